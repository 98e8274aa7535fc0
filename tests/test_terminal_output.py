"""Terminal escape injection (issue 14 item 2): escape sequences from a model's streamed answer, an abstract, a
title or a file name never reach the terminal. Everything `rag` prints has C0 control characters (except newline
and tab), DEL and C1 control characters removed; `--json` output escapes them, so the data survive intact."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rag.cli.output import json_text, safe
from tests.fault_server import FaultServer
from tests.reliability_helpers import WELLS, write_jsonl

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
OSC52 = "\x1b]52;c;cm0gLXJmIH4K\x07"  # write "rm -rf ~" to the clipboard
CLEAR = "\x1b[2J\x1b[H"
LINK = "\x1b]8;;http://phish.example/\x1b\\the paper\x1b]8;;\x1b\\"  # a hidden hyperlink
C1_CSI = "\x9b31m"  # an 8-bit CSI
EVIL = OSC52 + CLEAR + LINK + C1_CSI + "\r\x08\x7f"


def _assert_clean(*texts: str) -> None:
    for text in texts:
        found = sorted({f"U+{ord(c):04X}" for c in CONTROL.findall(text)})
        assert not found, f"control characters reached the terminal: {found}"


def test_safe_keeps_text_newlines_and_tabs() -> None:
    assert safe(f"a{EVIL}b\n\tc") == "a]52;c;cm0gLXJmIH4K[2J[H]8;;http://phish.example/\\the paper]8;;\\31mb\n\tc"
    assert safe("caf\u00e9 \u6f22\u5b57 \ud800") == "caf\u00e9 \u6f22\u5b57 \ufffd"  # a lone surrogate cannot print
    assert json.loads(json_text({"t": EVIL})) == {"t": EVIL}  # JSON escapes rather than drops
    _assert_clean(json_text({"t": EVIL}))


def test_a_model_streaming_escape_sequences_cannot_drive_the_terminal(
    indexed_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAG_VERIFY", "offline")
    reply = f"Our curated Dataset comprises over 213,000 wells [1]. {OSC52}Also{CLEAR} see {LINK} {C1_CSI}now."
    with FaultServer(["ok"], reply=reply) as server:
        code, out, err = indexed_cli("ask", WELLS, "--llm", "openai", "--base-url", server.base_url, "--model", "m")
    assert code == 0, err
    assert "213,000 wells" in out and "Sources:" in out
    _assert_clean(out, err)


@pytest.fixture
def hostile_corpus(tmp_path: Path) -> Path:
    """A paper whose title, abstract, authors and URL carry escape sequences, in a file whose name does too (the
    readers drop control characters from the fields; the file name is printed as it is)."""
    papers = [
        {"id": "evil-1", "title": f"Zorp Wells{CLEAR} of the North", "authors": [f"Mallory{OSC52}"],
         "url": f"https://example.org/{C1_CSI}p", "year": 2025,
         "abstract": f"The Zorp dataset counts 4,242 wells{OSC52} in the tundra. {LINK} Wells are mapped{EVIL}."},
        {"id": "fine-1", "title": "Glacier radar", "abstract": "We map glaciers with radar altimetry over ten years."},
    ]  # fmt: skip
    return write_jsonl(tmp_path / f"papers{CLEAR}.jsonl", papers)


def test_abstracts_titles_and_file_names_cannot_drive_the_terminal(rag_cli, hostile_corpus: Path) -> None:
    code, out, err = rag_cli("index", str(hostile_corpus))
    assert code == 0, err
    _assert_clean(out, err)
    for argv in (
        ["search", "Zorp wells tundra"],
        ["ask", "How many wells does the Zorp dataset count?", "--llm", "extractive"],
        ["ask", "How many wells does the Zorp dataset count?", "--llm", "extractive", "--format", "markdown"],
        ["ask", "How many wells does the Zorp dataset count?", "--llm", "extractive", "--format", "bibtex"],
        ["export"],
    ):
        code, out, err = rag_cli(*argv)
        assert code == 0, (argv, err)
        assert "Zorp" in out
        _assert_clean(out, err)


def test_json_output_escapes_control_characters_and_keeps_the_data(
    indexed_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAG_VERIFY", "offline")
    reply = f"Our curated Dataset comprises over 213,000 wells [1]. Also {OSC52}{C1_CSI}done."
    with FaultServer(["ok"], reply=reply) as server:
        code, out, err = indexed_cli("ask", WELLS, "--json", "--llm", "openai", "--base-url", server.base_url)
    assert code == 0, err
    _assert_clean(out, err)
    assert OSC52 in json.loads(out)["answer"] and C1_CSI in json.loads(out)["answer"]  # escaped, not lost


@pytest.mark.parametrize("args", [["search", "oil wells from satellites"], ["ask", WELLS, "--llm", "extractive"]])
def test_a_reader_that_leaves_early_gets_no_error_message(bundled_home: Path, args: list[str]) -> None:
    """`rag search ... | head -1`: the pipe closes before rag writes. That is no fault of the data directory."""
    import subprocess
    import sys

    from tests.reliability_helpers import ROOT, cli_env

    proc = subprocess.Popen([sys.executable, "-m", "rag.cli", *args], cwd=ROOT, env=cli_env(bundled_home, None),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before the first line
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141, err
    assert err == ""
