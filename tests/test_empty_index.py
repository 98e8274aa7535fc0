"""Issue 14 item 5: a run that finds no paper never empties the index silently. Each case failed before the
fix: `rag index FILE --skip-bad` with no good record removed every paper and exited 0."""

from __future__ import annotations

import json
from pathlib import Path

from rag.factory import open_store
from rag.settings import load_settings


def _jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


GOOD = [{"id": f"g{i}", "title": f"Glacier study {i}", "abstract": f"Radar sounding of glacier {i} maps its bed."}
        for i in range(3)]  # fmt: skip
BAD = [{"id": "b1", "title": "No abstract"}, {"id": "b2", "abstract": ""}]


def _papers(home: Path) -> int:
    store = open_store(load_settings(home=home, env={}))
    return len({m["paper_id"] for _, m in store.open().iter_metadata()}) if store.exists() else 0


def _one_error(code: int, err: str) -> str:
    assert code == 2 and "Traceback" not in err
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, err
    return errors[0]


def test_skip_bad_with_no_good_record_refuses_and_keeps_the_index(rag_cli, tmp_path: Path) -> None:
    assert rag_cli("index", str(_jsonl(tmp_path / "good.jsonl", GOOD)))[0] == 0
    bad = _jsonl(tmp_path / "bad.jsonl", BAD)
    code, out, err = rag_cli("index", str(bad), "--skip-bad")
    assert _one_error(code, err) == (
        "error: nothing to index: all 2 records or files were skipped as bad; the index keeps its 3 papers "
        "(pass --allow-empty to index nothing, which empties the index)"
    )
    assert err.count("warning: ") == 2 and out == ""
    assert _papers(rag_cli.home) == 3
    assert rag_cli.ask_json("What does radar sounding of glacier 1 map?")["citations"]


def test_allow_empty_empties_the_index_and_searches_still_work(rag_cli, tmp_path: Path) -> None:
    assert rag_cli("index", str(_jsonl(tmp_path / "good.jsonl", GOOD)))[0] == 0
    code, out, err = rag_cli("index", str(_jsonl(tmp_path / "bad.jsonl", BAD)), "--skip-bad", "--allow-empty")
    assert code == 0, err
    assert out.startswith("indexed 0 papers: 0 chunks, 0 embedded, 0 unchanged, 3 removed")
    assert _papers(rag_cli.home) == 0
    code, out, err = rag_cli("search", "glacier radar")
    assert code == 0 and out.strip() == "no matching papers", err


def test_a_filter_that_keeps_nothing_is_refused_naming_the_filter(rag_cli) -> None:
    snapshot = Path(__file__).resolve().parent / "data" / "formats" / "arxiv-metadata-oai-snapshot.json"
    code, _, err = rag_cli("index", str(snapshot), "--where", "categories=astro-ph")
    assert _one_error(code, err) == (
        "error: nothing to index: --where/--since (categories=astro-ph) kept none of the 5 records "
        "(pass --allow-empty to index nothing, which empties the index)"
    )
    assert _papers(rag_cli.home) == 0


def test_a_directory_whose_only_entry_is_unreadable_is_refused(rag_cli, tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "gone.jsonl").symlink_to(tmp_path / "missing.jsonl")
    code, _, err = rag_cli("index", str(lib))
    link = f"{lib / 'gone.jsonl'}: a broken symbolic link (to {tmp_path / 'missing.jsonl'})"
    assert _one_error(code, err) == f"error: {link}"
    code, _, err = rag_cli("index", str(lib), "--skip-bad")
    assert _one_error(code, err).startswith("error: nothing to index: all 1 records or files were skipped as bad")
