"""One-line errors, never tracebacks (issue 14 items 11 and 12): a data directory that does not exist, is
read-only, is full, or holds a damaged chroma.sqlite3; out-of-range settings through the real CLI; and for
`--json` commands the same error as a JSON object on stdout.

The disk faults are real: a tmpfs of a few hundred kB that fills up, remounted read-only or larger (needs root, as
in CI; elsewhere skipped with the reason in the summary, or failed under RAG_REQUIRE_DISK_FAULTS=1)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag.adapters.fakes import HashEmbedder
from rag.cli import main
from tests.fs_helpers import remount, tmpfs
from tests.reliability_helpers import WELLS, assert_clean_failure, run_rag


@pytest.fixture
def cli(minilm: object, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    """`rag ARGS` in-process with the shared MiniLM; returns (code, stdout, stderr)."""
    monkeypatch.setattr("rag.factory.make_embedder", lambda settings, **_: minilm)

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run


def _one_line(code: int, out: str, err: str, *, json_out: bool = False) -> str:
    assert code == 2, (code, out[-800:], err[-800:])
    assert "Traceback" not in err + out, err
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("reading ")]
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    if json_out:
        assert json.loads(out) == {"error": lines[0].removeprefix("error: "), "kind": json.loads(out)["kind"]}
    return lines[0]


# --- a home that does not exist -------------------------------------------------------------------------------
@pytest.mark.parametrize("command", [["search", "wells"], ["ask", WELLS, "--llm", "extractive"], ["export"]])
def test_a_home_that_does_not_exist_is_refused_not_created(cli, tmp_path: Path, command: list[str]) -> None:
    home = tmp_path / "typo-home"
    line = _one_line(*cli(*command, "--home", str(home)))
    assert str(home) in line and "run `rag index` first" in line and "--home" in line
    assert not home.exists()  # it used to be created, empty, and searched


# --- a read-only home ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def read_only_home(tmp_path_factory: pytest.TempPathFactory, bundled_home: Path) -> Iterator[Path]:
    """A data directory with a complete index that cannot be written: a tmpfs remounted read-only (root), or
    write permission removed (any other user). A copy of an index no process has open (a busy tmpfs cannot be
    remounted read-only)."""
    base = tmp_path_factory.mktemp("read-only")
    if os.geteuid() == 0:
        with tmpfs(base / "fs", "50m") as fs:
            shutil.copytree(bundled_home, fs / "home")
            remount(fs, "ro")
            yield fs / "home"
        return
    home = base / "home"
    shutil.copytree(bundled_home, home)
    paths = [home, *home.rglob("*")]
    for p in paths:
        p.chmod(p.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    yield home
    for p in paths:
        p.chmod(p.stat().st_mode | stat.S_IWUSR)


@pytest.mark.parametrize("command", [["index"], ["index", "--rebuild"]])
def test_a_read_only_home_is_one_line(cli, read_only_home: Path, command: list[str]) -> None:
    line = _one_line(*cli(*command, "--home", str(read_only_home)))
    assert "cannot be written" in line or "cannot write" in line, line
    assert "writable data directory" in line


@pytest.mark.parametrize("command", [["search", WELLS, "-k", "1"], ["ask", WELLS, "--llm", "extractive"]])
def test_a_read_only_home_still_answers(cli, read_only_home: Path, command: list[str]) -> None:
    """Reading needs no write: an index on a read-only mount (shared, or backed up) answers from its checked copies."""
    code, out, err = cli(*command, "--home", str(read_only_home))
    assert code == 0 and "Traceback" not in err, err
    assert ("icml2025-00" if command[0] == "search" else "213,000") in out


def test_a_home_on_a_read_only_disk_that_does_not_exist_yet(cli, tmp_path: Path) -> None:
    with tmpfs(tmp_path / "fs", "1m") as fs:
        remount(fs, "ro")
        line = _one_line(*cli("index", "--home", str(fs / "new-home")))
    assert "cannot write" in line and "Read-only file system" in line


# --- a damaged chroma.sqlite3 ------------------------------------------------------------------------------------
@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_a_damaged_chroma_database_is_one_line(cli, tmp_path: Path, bundled_home: Path, damage: str) -> None:
    home = shutil.copytree(bundled_home, tmp_path / "home")
    db = home / "index" / "chroma" / "chroma.sqlite3"
    if damage == "garbage":
        db.write_bytes(b"this is not a database\n" * 100)
    else:
        db.write_bytes(db.read_bytes()[:1000])
    line = _one_line(*cli("index", "--home", str(home)))
    assert "is damaged" in line and "rag index" in line, line
    # search and ask read this machine's checksummed copies and never need the database ...
    code, out, err = cli("search", WELLS, "-k", "1", "--home", str(home))
    assert code == 0 and "icml2025-00" in out, err
    # ... until those are gone too: then the damaged database is the one line
    shutil.rmtree(home / "index" / "docs-papers")
    for command in (["search", "wells"], ["ask", WELLS]):
        line = _one_line(*cli(*command, "--home", str(home)))
        assert "is damaged" in line and "rag index" in line, line


# --- a full disk -----------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_a_full_disk_is_one_line_and_a_rerun_with_space_completes(cli, tmp_path: Path) -> None:
    with tmpfs(tmp_path / "fs", "600k") as fs:
        home = fs / "home"
        line = _one_line(*cli("index", "--home", str(home)))
        assert "disk" in line and "free some space" in line, line  # was "Error in compaction: ..." and a traceback
        remount(fs, "size=50m")
        code, out, err = cli("index", "--home", str(home))
        assert code == 0, err
        assert "indexed 19 papers" in out
        code, out, err = cli("search", WELLS, "-k", "1", "--home", str(home))
        assert code == 0 and "icml2025-00" in out


@pytest.mark.slow
def test_a_rerun_in_the_same_process_after_a_full_disk_does_not_hang(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The disk fills at a different step of the build for each size (hash vectors: quick). Before `rag index`
    closed its store, the rerun in the same process (a notebook, a test) waited forever on the chromadb system
    the failed run left open: here at 425k-500k, in CI once at 600k."""
    monkeypatch.setattr("rag.factory.make_embedder", lambda settings, **_: HashEmbedder(384))
    for size in ("400k", "425k", "450k", "475k", "500k"):
        with tmpfs(tmp_path / size, size) as fs:
            home = str(fs / "home")
            assert main(["index", "--home", home]) == 2
            remount(fs, "size=50m")
            done: list[int] = []
            argv = ["index", "--home", home]
            rerun = threading.Thread(target=lambda d=done, a=argv: d.append(main(a)), daemon=True)
            rerun.start()
            rerun.join(60)
            assert done == [0], f"the rerun after a full disk at {size} did not finish within 60 s"
            assert "indexed 19 papers" in capsys.readouterr().out


# --- invalid numeric settings, through the real `rag` ------------------------------------------------------------
@pytest.mark.parametrize(
    ("env", "command", "expected"),
    [
        ({"RAG_EMBED_BATCH_SIZE": "0"}, ["index"], "embed_batch_size must be between 1 and 4096; got 0"),
        ({"RAG_CANDIDATES": "-3"}, ["search", "wells"], "candidates must be between 1 and 10000; got -3"),
        ({"RAG_TIMEOUT_S": "-1"}, ["ask", WELLS], "timeout_s must be between 0.1 and 3600; got -1"),
        ({"RAG_ANSWER_DEADLINE_S": "0"}, ["ask", WELLS], "answer_deadline_s must be between 1 and 86400"),
        ({"RAG_CHROMA_TIMEOUT_S": "nan"}, ["search", "wells"], "chroma_timeout_s' must be a number, got NaN"),
    ],
)
def test_invalid_numeric_settings_through_the_real_cli(
    tmp_path: Path, env: dict[str, str], command: list[str], expected: str
) -> None:
    line = assert_clean_failure(run_rag(command, tmp_path / "home", env=env))
    assert expected in line, line
    setting = next(iter(env))
    assert setting in line or setting.removeprefix("RAG_").lower() in line
    assert not (tmp_path / "home").exists()  # refused before anything was created


# --- --json commands: a JSON error object on stdout as well ------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "kind"),
    [
        (["search", "wells", "--json"], "index_missing"),
        (["ask", WELLS, "--json"], "index_missing"),
        (["ask", WELLS, "--format", "json"], "index_missing"),
        (["ask", "   ", "--json", "--llm", "extractive"], "question"),
        (["ask", WELLS, "--json", "-k", "0", "--llm", "extractive"], "question"),
    ],
)
def test_json_commands_print_a_json_error_object(
    cli, tmp_path: Path, bundled_home: Path, argv: list[str], kind: str
) -> None:
    home = tmp_path / "home"
    if kind == "question":
        home = shutil.copytree(bundled_home, tmp_path / "indexed")
    code, out, err = cli(*argv, "--home", str(home))
    assert code == 2 and "Traceback" not in err
    error = json.loads(out)
    assert set(error) == {"error", "kind"} and error["kind"] == kind and error["error"], error
    assert f"error: {error['error']}" in err.splitlines()  # the same message on stderr, for people


def test_a_usage_error_of_a_json_command_is_json_too(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["search", "wells", "--json", "-k", "many"])
    out, err = capsys.readouterr()
    assert exit_info.value.code == 2
    assert json.loads(out) == {"error": "argument -k: invalid int value: 'many'", "kind": "usage"}
    assert "usage: rag search" in err and "invalid int value" in err


def test_json_error_through_the_real_cli(tmp_path: Path) -> None:
    proc = run_rag(["search", "wells", "--json", "--home", str(tmp_path / "nope")], tmp_path / "unused")
    line = assert_clean_failure(proc)
    assert json.loads(proc.stdout) == {"error": line.removeprefix("error: "), "kind": "index_missing"}
