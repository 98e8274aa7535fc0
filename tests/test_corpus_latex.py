"""LaTeX markup in abstracts and titles (`10\\%`, `classifiers~(ACs)`, `\\emph{x}`, `$k$`) is undone when papers are
read, and again when an index built before that is read, so answers, the check and exports quote plain text; text
that only looks like markup (a `~` in a URL, "US$5", a backslash in a path) is left as it is."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from rag.answer.assistant import Assistant
from rag.corpus.latex_in_abstracts import undo_latex_markup
from rag.corpus.sources import iter_papers
from rag.factory import build_index, open_assistant
from rag.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "data" / "icml2025.jsonl"
GAIN = "What relative gain do auxiliary classifiers give in continual learning?"
COST = "How much do auxiliary classifiers reduce the inference cost?"


@pytest.mark.parametrize(("raw", "plain"), [
    ("yielding an average 10\\% relative gain", "yielding an average 10% relative gain"),
    ("by 10-60\\% without compromising accuracy", "by 10-60% without compromising accuracy"),
    ("auxiliary classifiers~(ACs) to enhance", "auxiliary classifiers (ACs) to enhance"),
    ("as in Fig.~3 and Section~2.1", "as in Fig. 3 and Section 2.1"),
    ("R\\&D and a\\_b and \\#1 and \\$5", "R&D and a_b and #1 and $5"),
    ("an \\emph{open} \\textit{and} \\textbf{fast} \\texttt{tool}", "an open and fast tool"),
    ("a \\textbf{\\emph{nested}} word", "a nested word"),
    ("the $k$-means and $\\ell_2$ norm", "the k-means and ℓ_2 norm"),
    ("error drops by $\\sim$10\\% ($p<0.05$)", "error drops by ~10% (p<0.05)"),
    ("a $3\\times$ speedup with $10^{6}$ tokens", "a 3× speedup with 10^6 tokens"),
    ("pages 10--60 and years 2001--2010", "pages 10–60 and years 2001–2010"),
    ("fast \\ldots and more", "fast … and more"),
])  # fmt: skip
def test_markup_becomes_the_text_it_typesets(raw: str, plain: str) -> None:
    assert undo_latex_markup(raw) == plain
    assert undo_latex_markup(plain) == plain  # read again (an index's stored text): unchanged


@pytest.mark.parametrize("text", [
    "code at https://example.org/~user/repo and http://x.org/a~b",  # a ~ in a URL
    "it costs US$5 and US$10 per run",  # dollars, not math
    "prices from $5 to $10, or $20",
    "a speedup of ~10x (~5% of the cost) in ~/data",  # "about", and a home directory
    "ranges 10~20",  # a range, not a tie
    "files in C:\\Users\\data and the \\n escape, the \\foo{x} macro",  # backslashes that are no markup we know
    "run it with --fast -- or not",  # a command-line option
    "a set {a, b} and 50% of it",
    "$\\unknowncommand{x}$ stays",  # math we cannot read is kept whole
])  # fmt: skip
def test_text_that_only_looks_like_markup_is_kept(text: str) -> None:
    assert undo_latex_markup(text) == text


def test_text_without_markup_characters_skips_the_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    # every search reads its hits' stored text through this (issue 36 latency): a hyphen alone is no markup
    import rag.corpus.latex_in_abstracts as latex

    monkeypatch.setattr(latex, "_plain", lambda text: pytest.fail(f"the rules ran on {text!r}"))
    text = "a state-of-the-art, non-i.i.d. long-tail method (10-60 ms) at 87% fewer parameters"
    assert undo_latex_markup(text) is text


def test_every_bundled_abstract_reads_without_markup() -> None:
    papers = list(iter_papers([CORPUS]))
    for paper in papers:
        assert "\\%" not in paper.abstract and "~(" not in paper.abstract, paper.id
        assert undo_latex_markup(paper.abstract) == paper.abstract  # reading again changes nothing
    acs = next(p for p in papers if p.id == "icml2025-18")
    for plain in ("classifiers (ACs)", "10% relative gain", "by 10-60% without"):
        assert plain in acs.abstract


def test_the_id_of_a_record_without_one_does_not_change(tmp_path: Path) -> None:
    """A derived id comes from the abstract as the file has it, so an index built before keeps its ids."""
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps({"abstract": "A 10\\% gain. It works."}) + "\n")
    paper = next(iter(iter_papers([path])))
    assert paper.id == "p-" + hashlib.sha1(b"A 10\\% gain. It works.").hexdigest()[:10]
    assert paper.abstract == "A 10% gain. It works."


def test_titles_and_structured_parts_are_read_plain(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    row = {"id": "t1", "title": "Up to 87\\% smaller \\emph{networks}", "abstract": "RESULTS: a 5\\% gain. "
           "CONCLUSIONS: it helps.", "sections": [{"label": "RESULTS", "text": "a 5\\% gain."},
                                                  {"label": "CONCLUSIONS", "text": "it helps."}]}  # fmt: skip
    path.write_text(json.dumps(row) + "\n")
    paper = next(iter(iter_papers([path])))
    assert paper.title == "Up to 87% smaller networks"
    assert [s.text for s in paper.abstract_sections] == ["a 5% gain.", "it helps."]


def test_an_answer_quotes_the_abstract_without_its_markup(assistant: Assistant) -> None:
    """Over the session's extractive assistant (the bundled corpus, tests/conftest.py), which only reads."""
    gain = assistant.ask(GAIN)
    assert "10% relative gain" in gain.text and "classifiers (ACs)" in gain.text, gain.text
    cost = assistant.ask(COST)
    assert "by 10-60% without compromising accuracy" in cost.text, cost.text
    for answer in (gain, cost):
        assert "\\" not in answer.text and "~" not in answer.text


def test_an_index_built_before_reads_plain_too(tmp_path: Path, minilm: object, monkeypatch: pytest.MonkeyPatch):
    """An index whose stored abstracts still carry the markup (built before this change) answers plainly: stored
    text is read through the same step; re-indexing then re-embeds exactly the papers whose text changed."""
    settings = Settings(home=tmp_path / "home", collection="old").replace(llm="extractive")
    with monkeypatch.context() as m:
        m.setattr("rag.corpus.paper_fields.undo_latex_markup", lambda text: text)
        build_index(settings, [CORPUS], embedder=minilm)  # type: ignore[arg-type]
    assistant = open_assistant(settings, embedder=minilm)  # type: ignore[arg-type]
    try:
        answer = assistant.ask(GAIN)
        assert "10% relative gain" in answer.text and "\\" not in answer.text and "~" not in answer.text, answer.text
        paper = assistant.retriever.paper("icml2025-18")  # what a paper page, the check and an export read
        assert paper is not None and "10\\%" not in paper.abstract and "10% relative gain" in paper.abstract
    finally:
        assistant.close()
    report = build_index(settings, [CORPUS], embedder=minilm)  # type: ignore[arg-type]
    assert report.embedded == 1, report  # only icml2025-18 carried markup
