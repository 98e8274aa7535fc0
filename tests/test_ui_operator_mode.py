"""Issue 37 item 11 without a browser: operator mode (`ui_operator_controls`, RAG_UI_OPERATOR_CONTROLS,
`rag ui --operator-controls`). Only the operator sees the server's data directory and may index into it: on by
default for a UI that serves only loopback without a login (its single user is the operator), off with --auth or
beyond loopback. Off: no absolute path in the page, no "Index the sample papers here", and the write is refused
by the server too, not only hidden. The same in Chromium: tests/test_ui_browser_team.py."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rag.cli.main import build_parser, settings_from
from rag.errors import ConfigError, RagError
from rag.settings import load_settings
from tests.reliability_helpers import assert_clean_failure, run_rag
from ui.live_index import LiveIndex
from ui.operator import operator_controls
from ui.page import render_header


@pytest.fixture
def home(tmp_path: Path, bundled_home: Path) -> Path:
    return Path(shutil.copytree(bundled_home, tmp_path / "home"))


def test_the_setting_comes_from_env_file_and_option_and_a_bad_value_is_one_line() -> None:
    assert load_settings(env={}).ui.ui_operator_controls == "auto"
    assert load_settings(env={"RAG_UI_OPERATOR_CONTROLS": "off"}).ui.ui_operator_controls == "off"
    args = build_parser().parse_args(["ui", "--operator-controls", "on"])
    assert settings_from(args).ui.ui_operator_controls == "on"
    for bad in ("maybe", "yes please"):
        with pytest.raises(ConfigError) as caught:
            load_settings(env={"RAG_UI_OPERATOR_CONTROLS": bad})
        assert "\n" not in str(caught.value) and str(caught.value).startswith("ui_operator_controls must be one of")


@pytest.mark.parametrize(
    ("setting", "host", "auth", "expected"),
    [("auto", "127.0.0.1", False, True), ("auto", "localhost", False, True), ("auto", "::1", False, True),
     ("auto", "127.0.0.1", True, False), ("auto", "0.0.0.0", False, False), ("auto", "192.168.1.5", False, False),
     ("auto", "papers.lab.example", False, False), ("on", "0.0.0.0", True, True), ("off", "127.0.0.1", False, False)],
)  # fmt: skip
def test_auto_means_on_for_one_local_user_only(setting: str, host: str, auth: bool, expected: bool) -> None:
    assert operator_controls(setting, host, auth) is expected


def test_a_team_page_names_no_path_and_refuses_to_index(home: Path) -> None:
    settings = load_settings(home=home, collection="pappers", env={})
    live = LiveIndex(settings, operator=False)
    assert live.missing is not None and str(home) not in live.missing
    assert "no collection 'pappers'" in live.missing and "'papers' (19 papers)" in live.missing
    info = live.snapshot().info
    page = render_header(info, 19)
    assert str(home) not in page and "--home /" not in page and "Collection <b>pappers</b>" in page
    assert "sample papers" not in page
    with pytest.raises(RagError, match="operator"):  # what the page's handler calls: refused, not only hidden
        live.index_sample()
    assert not (home / "index" / "docs-pappers").exists()


def test_a_missing_data_directory_is_not_named_to_a_team(tmp_path: Path) -> None:
    live = LiveIndex(load_settings(home=tmp_path / "typo-home", env={}), operator=False)
    assert live.missing is not None and str(tmp_path) not in live.missing


def test_the_team_app_has_no_path_and_its_index_handler_refuses(home: Path) -> None:
    from ui.app import build_app

    settings = load_settings(home=home, collection="pappers", env={"RAG_LLM": "extractive"})
    live = LiveIndex(settings, operator=False)
    demo = build_app(live, settings)
    assert str(home) not in json.dumps(demo.get_config_file(), default=str)
    handler = next(b.fn for b in demo.fns.values() if getattr(b.fn, "__name__", "") == "index_sample")
    with pytest.warns(UserWarning, match="for the operator only"):  # a crafted call: no button, and refused
        handler()
    assert not (home / "index" / "docs-pappers").exists()
    local = build_app(LiveIndex(settings), settings)  # the operator's own page still says where and offers it
    config = json.dumps(local.get_config_file(), default=str)
    assert str(home) in config and "Index the 19 sample papers here" in config


def test_a_bad_operator_controls_stops_rag_ui_with_one_line(tmp_path: Path) -> None:
    proc = run_rag(["ui", "--operator-controls", "maybe"], tmp_path / "home", timeout=90)
    line = assert_clean_failure(proc)
    assert line == "error: ui_operator_controls must be one of auto, on, off; got 'maybe'"
