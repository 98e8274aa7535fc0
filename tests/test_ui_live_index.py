"""ui.live_index (issue 24 items 5 and 12) without a browser: a missing, mistyped or empty index is reported, never
filled with the sample papers behind the user's back; an index built with another embedder stops the start; the
counts follow a re-index. The same in the page: tests/test_ui_browser_index.py."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from rag.corpus import selection
from rag.errors import IndexMissingError
from rag.factory import build_index
from rag.settings import BUNDLED_CORPUS, load_settings
from ui.live_index import LiveIndex, other_collections, sample_count


@pytest.fixture
def home(tmp_path: Path, bundled_home: Path) -> Path:
    return Path(shutil.copytree(bundled_home, tmp_path / "home"))


def test_a_data_directory_that_does_not_exist_is_reported_and_not_created(tmp_path: Path) -> None:
    settings = load_settings(home=tmp_path / "typo-home", env={})
    live = LiveIndex(settings)
    assert live.current() is None
    assert live.missing == f"the data directory {tmp_path / 'typo-home'} does not exist"
    assert live.snapshot().info.missing == live.missing and live.paper("icml2025-00") is None
    assert not (tmp_path / "typo-home").exists()


def test_a_mistyped_collection_names_the_ones_that_are_there(home: Path) -> None:
    live = LiveIndex(load_settings(home=home, collection="pappers", env={}))
    assert live.current() is None
    assert live.missing == f"there is no collection 'pappers' in {home}. This data directory also holds 'papers' " \
                           "(19 papers)"  # fmt: skip
    assert other_collections(load_settings(home=home, env={})) == []  # "papers" itself is not "another"
    assert not (home / "index" / "docs-pappers").exists() and sample_count() == 19


def test_an_empty_collection_is_reported(home: Path, minilm: object) -> None:
    settings = load_settings(home=home, collection="empty", env={})
    empty = home / "nothing.jsonl"
    empty.write_text(json.dumps({"id": "x", "abstract": "A."}) + "\n", encoding="utf-8")
    build_index(settings, [empty], embedder=minilm, selection=selection(["title=nothing"]), allow_empty=True)
    live = LiveIndex(settings)
    assert live.current() is None and live.missing is not None
    assert live.missing.startswith(f"the collection 'empty' at {home} is empty")


def test_an_index_built_with_another_embedder_stops_the_start(home: Path) -> None:
    with pytest.raises(IndexMissingError, match="embedder"):
        LiveIndex(load_settings(home=home, embedder="openai", env={}))


def test_the_counts_follow_a_reindex(home: Path, minilm: object, tmp_path: Path) -> None:
    settings = load_settings(home=home, env={}).replace(ui_refresh_s=1.0)
    live = LiveIndex(settings)
    first = live.snapshot()
    assert first.info.papers == 19 and len(first.papers) == 19
    assert live.snapshot() is first  # nothing changed: not counted again
    extra = tmp_path / "extra.jsonl"
    extra.write_text(json.dumps({"id": "extra-1", "abstract": "Glacier melt measured by radar."}) + "\n")
    build_index(settings, [BUNDLED_CORPUS, extra], embedder=minilm)
    time.sleep(1.05)  # ui_refresh_s: the retriever looks again
    now = live.snapshot()
    assert now.info.papers == 20 and "extra-1" in {p.id for p in now.papers} and now.stamp != first.stamp
    live.close()
