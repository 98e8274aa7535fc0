"""Bad input through the CLI: corpus files, questions, search sizes and eval files. Each ends in a clear one-line
message (exit 2) or a normal answer, never a traceback; a refused corpus leaves the existing index untouched.

Most cases call `rag.cli.main(argv)` in-process (the same code path as the `rag` script, minus interpreter start-up);
one of each kind also runs as a real subprocess."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag.cli import main
from rag.factory import layout_of, open_retriever, open_store
from rag.settings import BUNDLED_CORPUS, Settings, load_settings
from tests.reliability_helpers import WELLS, assert_clean_failure, run_rag

GOOD = json.dumps({"id": "good-1", "title": "A good paper", "abstract": "A perfectly fine abstract."})


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory, bundled_settings: Settings, minilm: object) -> Iterator[Settings]:
    """An index of the bundled corpus of our own (these tests try to damage it: a copy of the session's), and one
    embedder for every in-process CLI call of the module."""
    home = tmp_path_factory.mktemp("bad-input") / "rag-home"
    shutil.copytree(bundled_settings.home, home)
    s = load_settings(home=home, env={})
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("rag.factory.make_embedder", lambda settings, **_: minilm)
        yield s


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _one_error_line(code: int, out: str, err: str) -> str:
    assert code == 2, (code, out[-500:], err[-500:])
    assert "Traceback" not in err + out
    # besides the error, stderr may only name the format each file is read as ("reading X as JSONL ...")
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("reading ")]
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


def _snapshot(s: Settings) -> tuple[int, list[str], int]:
    ids = sorted(cid for cid, _ in open_store(s).open().iter_metadata())
    return len(ids), ids, (layout_of(s).lexical_dir / "ids.json").stat().st_mtime_ns


def _assert_index_answers(s: Settings) -> None:
    hits = open_retriever(s).search(WELLS, 3)
    assert hits[0].paper.id == "icml2025-00"
    assert not layout_of(s).dirty_marker.exists()


# --- corpus files -------------------------------------------------------------------------------------------
BAD_CORPORA: list[tuple[str, str, str | bytes, str]] = [
    ("jsonl-syntax", "broken.jsonl", GOOD + "\n{broken\n", "broken.jsonl:2: invalid JSON"),
    ("jsonl-not-object", "list.jsonl", GOOD + "\n[1, 2]\n", "list.jsonl:2: "),
    ("jsonl-no-abstract", "noabs.jsonl", '{"id": "x", "title": "No abstract"}\n', "noabs.jsonl:1: no abstract"),
    ("json-trailing-comma", "arr.json", f"[{GOOD},\n]", "arr.json:2: invalid JSON (trailing comma)"),
    ("csv-extra-fields", "cols.csv", "id,title,abstract\na,T,An abstract,extra,cols\n", "cols.csv:2: row has 5 fields"),
    ("csv-no-abstract-column", "noabs.csv", "id,title\na,T\n", "noabs.csv:1: the header has no 'abstract' column"),
    (
        "bibtex-unbalanced",
        "refs.bib",
        "@article{a,\n  title={T},\n  abstract={An abstract.}\n}\n@article{b,\n  title={U,\n  abstract={Oops.\n}\n",
        "refs.bib:5: unbalanced braces",
    ),
    ("bibtex-no-abstract", "noabs.bib", "@article{a,\n  title = {T}\n}\n", "noabs.bib:1: no abstract"),
    ("binary-elf", "prog.jsonl", b"\x7fELF\x02\x01\x01\x00\x00\x00\x00", "prog.jsonl: looks like a binary file"),
    (
        "binary-png",
        "image.csv",
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
        "image.csv: looks like a binary file|image.csv: not UTF-8 text",
    ),
    ("non-utf8", "latin1.jsonl", b'{"id": "a", "abstract": "caf\xe9"}\n', "latin1.jsonl: not UTF-8 text"),
    ("utf16", "wide.csv", "id,abstract\na,b\n".encode("utf-16"), "wide.csv: UTF-16 text"),
    ("empty", "empty.jsonl", "", "empty.jsonl: empty file"),
    ("blank-lines-only", "blank.txt", "\n\n   \n", "blank.txt: empty file"),
    (
        "1mb-abstract",
        "huge.jsonl",
        json.dumps({"id": "huge", "title": "Huge", "abstract": "word " * 200_000}) + "\n",
        "huge.jsonl:1: abstract is 999,999 characters; the limit is",
    ),
    (
        "duplicate-ids",
        "dup.jsonl",
        GOOD + "\n" + GOOD.replace("A good paper", "Another paper") + "\n",
        "dup.jsonl:1 and ",
    ),
    ("unsupported-suffix", "notes.md", "# notes", "notes.md: unsupported file type"),
]


@pytest.mark.parametrize(("name", "content", "expected"), [c[1:] for c in BAD_CORPORA], ids=[c[0] for c in BAD_CORPORA])
def test_bad_corpus_file_is_refused_and_the_index_untouched(
    name: str, content: str | bytes, expected: str, indexed: Settings, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    before = _snapshot(indexed)
    line = _one_error_line(*_cli(capsys, "index", str(path), "--home", str(indexed.home)))
    assert line.startswith(f"error: {tmp_path}") and any(e in line for e in expected.split("|")), line
    assert len(line) < 400
    assert _snapshot(indexed) == before  # count, ids and the BM25 files: nothing written
    _assert_index_answers(indexed)


def test_bad_file_among_good_ones_stops_everything(
    indexed: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.jsonl").write_text(BUNDLED_CORPUS.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "corpus" / "b.jsonl").write_text(GOOD + "\n{broken\n", encoding="utf-8")
    before = _snapshot(indexed)
    line = _one_error_line(*_cli(capsys, "index", str(tmp_path / "corpus"), "--home", str(indexed.home)))
    assert "b.jsonl:2: invalid JSON" in line
    assert _snapshot(indexed) == before


def test_rag_index_bad_file_subprocess(indexed: Settings, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(GOOD + "\n{broken\n", encoding="utf-8")
    before = _snapshot(indexed)
    line = assert_clean_failure(run_rag(["index", str(bad)], indexed.home))
    assert line.startswith(f"error: {bad}:2: invalid JSON")
    assert _snapshot(indexed) == before
    _assert_index_answers(indexed)


# --- questions ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("", "the question is empty"),
        ("   \t\n  ", "the question is empty"),
        ("\x00\x01\x1b\x7f", "the question is empty"),
        ("x" * 100_000, "the question is 100,000 characters long; the limit is 4,000"),
        ("how many wells? " * 6_000, "the limit is 4,000"),
    ],
    ids=["empty", "whitespace", "only-control-characters", "100kb", "100kb-words"],
)
def test_unanswerable_questions_are_one_clear_line(
    question: str, expected: str, indexed: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    for extra in ([], ["--json"]):
        line = _one_error_line(*_cli(capsys, "ask", question, "--home", str(indexed.home), *extra))
        assert expected in line


@pytest.mark.parametrize(
    "question",
    [
        "How many\x00 wells\x1b[31m are in the\x07 Alberta\x7f dataset?",  # control characters
        "阿尔伯塔油井数据集中有多少口井？",  # Chinese
        "كم عدد الآبار في مجموعة بيانات ألبرتا؟",  # Arabic
        "Сколько скважин в наборе данных Alberta Wells?",  # Russian, with a name
        "\u202eHow many wells\u202c are in the 🛢️ Alberta dataset? \ufeff",  # bidi override, emoji, BOM
        "How many wells \udcff\udcfe are in the Alberta dataset?",  # undecodable argv bytes (surrogateescape)
        "SELECT * FROM papers; DROP TABLE papers; -- how many wells?",
        "{{7*7}} ${jndi:ldap://x} <script>alert(1)</script> wells?",
    ],
    ids=["control", "chinese", "arabic", "russian", "bidi-emoji-bom", "lone-surrogates", "sql", "template"],
)
def test_odd_questions_get_an_answer_or_a_clear_message(
    question: str, indexed: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _cli(capsys, "ask", question, "--json", "--home", str(indexed.home))
    assert "Traceback" not in out + err
    if code == 2:
        _one_error_line(code, out, err)
        return
    assert code == 0, err
    answer = json.loads(out)
    assert answer["answer"] and answer["sources"]
    if "wells" in question and "Alberta" in question and "SELECT" not in question:
        assert answer["sources"][0]["paper_id"] == "icml2025-00"


def test_odd_questions_through_the_real_cli(indexed: Settings) -> None:
    for question in ("كم عدد الآبار في مجموعة بيانات ألبرتا؟", "How many wells\x1b[2J are in the Alberta dataset?"):
        proc = run_rag(["ask", question, "--llm", "extractive"], indexed.home)
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
        assert "Sources:" in proc.stdout or "Closest papers:" in proc.stdout
    big = assert_clean_failure(run_rag(["ask", "y" * 100_000], indexed.home))  # 100 KB through argv
    assert "the limit is 4,000" in big


def test_undecodable_argv_bytes_are_no_traceback(indexed: Settings) -> None:
    """Bytes that are not UTF-8 in argv reach Python as lone surrogates; the tokenizer used to crash on them."""
    import os
    import subprocess
    import sys

    from tests.reliability_helpers import ROOT, cli_env

    for args in ([b"ask", b"How many wells \xff\xfe are in the Alberta dataset?", b"--json"],
                 [b"search", b"wells \xff Alberta", b"--json"]):
        proc = subprocess.run(
            [os.fsencode(sys.executable), b"-m", b"rag.cli", *args], cwd=ROOT, env=cli_env(indexed.home),
            capture_output=True, timeout=120,
        )
        err = proc.stderr.decode("utf-8", "replace")
        assert proc.returncode == 0 and b"Traceback" not in proc.stderr, err
        assert b"icml2025-00" in proc.stdout


# --- search sizes ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("command", ["search", "ask"])
@pytest.mark.parametrize("k", ["0", "1000", "-3"])
def test_out_of_range_k_is_a_clear_error(
    command: str, k: str, indexed: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    line = _one_error_line(*_cli(capsys, command, "wells", "-k", k, "--home", str(indexed.home)))
    assert "k must be between 1 and 50" in line


def test_k_as_text_is_a_usage_error(indexed: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["search", "wells", "-k", "many", "--home", str(indexed.home)])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "invalid int value: 'many'" in err and "Traceback" not in err


def test_search_k_limits_through_the_real_cli(indexed: Settings) -> None:
    line = assert_clean_failure(run_rag(["search", "wells", "-k", "1000"], indexed.home))
    assert "k must be between 1 and 50" in line
    ok = run_rag(["search", "wells", "-k", "50", "--json"], indexed.home)
    assert ok.returncode == 0 and len(json.loads(ok.stdout)["hits"]) == 19  # every paper, no error


# --- eval question files -----------------------------------------------------------------------------------
Q1 = json.dumps({"id": "q1", "question": WELLS, "gold": ["icml2025-00"]})
BAD_EVAL: list[tuple[str, str | bytes, str]] = [
    ("json-syntax", Q1 + "\n" + Q1.replace("q1", "q2") + "\n{oops\n", "bad.jsonl:3: invalid JSON"),
    ("missing-question", Q1 + '\n{"id": "q2"}\n', "bad.jsonl:2: missing required field 'question'"),
    ("blank-question", Q1 + '\n{"id": "q2", "question": "   "}\n', "bad.jsonl:2: field 'question' is blank"),
    ("not-an-object", Q1 + "\n\n[1, 2]\n", "bad.jsonl:3: expected a JSON object"),
    ("gold-not-a-list", '{"id": "q1", "question": "x?", "gold": "icml2025-00"}\n', "bad.jsonl:1: field 'gold'"),
    ("duplicate-id", Q1 + "\n" + Q1 + "\n", "bad.jsonl:2: duplicate id 'q1' (first used on line 1)"),
    ("non-utf8", b'{"id": "q1", "question": "caf\xe9?"}\n', "is not UTF-8 text"),
    ("empty", "\n\n", "holds no questions"),
]


@pytest.mark.parametrize(("content", "expected"), [c[1:] for c in BAD_EVAL], ids=[c[0] for c in BAD_EVAL])
def test_malformed_eval_file_names_the_line(
    content: str | bytes, expected: str, indexed: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    out_dir = tmp_path / "out"
    line = _one_error_line(*_cli(capsys, "eval", str(bad), "--out", str(out_dir), "--home", str(indexed.home)))
    assert expected in line and str(bad) in line, line
    assert not out_dir.exists()  # refused before the run: nothing written


def test_malformed_eval_file_through_the_real_cli(indexed: Settings, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(Q1 + "\n{oops\n", encoding="utf-8")
    line = assert_clean_failure(run_rag(["eval", str(bad), "--out", str(tmp_path / "out")], indexed.home))
    assert line.startswith(f"error: {bad}:2: invalid JSON")
