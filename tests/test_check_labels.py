"""The sentence check's labels read distinctly in the terminal, Markdown and the UI, each with its evidence."""

from __future__ import annotations

import dataclasses

import pytest

from rag.cli.ask import print_flags
from rag.export import answer_markdown
from rag.types import CONTRADICTED, NOT_FOUND, SUPPORTED, WRONG_PAPER, Answer, Citation, Hit, Paper, SentenceCheck
from rag.verify.labels import flag_lines, flagged, symbol
from ui.message import View, render_message
from ui.turns import Turn

A = Paper("a", "Wells <b>of</b> Alberta", "Over 213,000 wells. Deeper nets are less stable.")
B = Paper("b", "Glacier radar", "The radar maps 40 glaciers.")
HITS = (Hit(A, "a:0", A.abstract, 1.0, 0.9), Hit(B, "b:0", B.abstract, 1.0, 0.9))
CHECKS = (
    SentenceCheck("There are 213,000 wells [1].", (1,), SUPPORTED, None, ((1, "Over 213,000 wells."),)),
    SentenceCheck("The radar maps 12 glaciers [2].", (2,), NOT_FOUND, "12 is not in the cited source"),
    SentenceCheck("Deeper nets are more stable [1].", (1,), CONTRADICTED, "'more' where the source says 'less'",
                  ((1, "Deeper nets are <i>less</i> stable."),)),  # fmt: skip
    SentenceCheck("The radar maps 40 glaciers [1].", (1,), WRONG_PAPER, "another paper says this",
                  ((2, "The radar maps 40 glaciers."),), supported_by=(2,)),  # fmt: skip
)
TEXT = " ".join(c.sentence for c in CHECKS)
ANSWER = Answer("q?", "q?", TEXT, (Citation(1, "a", A.title, None), Citation(2, "b", B.title, None)), HITS, False,
                tuple(c.sentence for c in CHECKS if not c.supported), "openai", "m", "p@1",
                sentence_checks=CHECKS)  # fmt: skip


def test_flags_are_ordered_by_seriousness_and_name_the_supporting_paper():
    assert [c.label for c in flagged(CHECKS)] == [CONTRADICTED, WRONG_PAPER, NOT_FOUND]
    assert {symbol(CONTRADICTED), symbol(NOT_FOUND), symbol(WRONG_PAPER)} == {"✗", "?", "⇄"}
    head, why, evidence = flag_lines(CHECKS[3], [A.title, B.title])
    assert head.startswith("⇄ wrong paper") and "[2]" in head
    assert evidence == "[2] Glacier radar says it: “The radar maps 40 glaciers.”"


def test_terminal_shows_each_label_with_why_and_evidence(capsys: pytest.CaptureFixture[str]):
    print_flags(ANSWER)
    out = capsys.readouterr().out
    assert "✗ contradicted: the cited paper says otherwise\n    Deeper nets are more stable [1]." in out
    assert "why: 'more' where the source says 'less'" in out and "says instead: “Deeper nets are <i>less</i>" in out
    assert "? not found: could not confirm" in out and "⇄ wrong paper" in out
    assert "There are 213,000 wells" not in out  # supported sentences are not listed


def test_markdown_labels_and_escapes_source_text():
    md = answer_markdown(ANSWER)
    assert "- **✗ contradicted: the cited paper says otherwise**: Deeper nets are more stable \\[1\\]." in md
    assert "<b>of</b>" not in md.split("**References**")[0]  # the title inside the evidence line is escaped
    assert "**Not supported by the cited sources:**" not in md


def test_ui_marks_each_sentence_by_its_label_and_lists_evidence():
    html = render_message(Turn("a1", "q?", answer=ANSWER, hits=HITS, searched=True), View())
    assert 'class="unsupported check-contradicted" title="contradicted: the cited paper says otherwise">✗ ' in html
    assert 'class="unsupported check-wrong-paper"' in html and 'class="unsupported check-not-found"' in html
    assert '✗ <span class="sr-only">contradicted: </span>' in html  # the word a screen reader reads out
    assert "Deeper nets are &lt;i&gt;less&lt;/i&gt; stable." in html and "<i>less</i>" not in html
    assert "<b>of</b>" not in html


def test_a_flag_lands_on_its_own_sentence_not_on_one_with_the_same_words():
    from ui.message import find_sentence

    text = "The dataset has 213,000 wells [1]. The dataset has 213,000 wells [3]."
    second = find_sentence(text, "The dataset has 213,000 wells [3].")
    assert second is not None and text[second[0] : second[1]] == "The dataset has 213,000 wells [3]."
    assert find_sentence(text, "The dataset has 213,000 wells [1].") == (0, 34)
    assert find_sentence(text, "The dataset has 213,000 wells.") == (0, 34)  # no marker of its own: the first place


def test_answers_without_labels_keep_the_plain_flag(capsys: pytest.CaptureFixture[str]):
    plain = dataclasses.replace(ANSWER, sentence_checks=())
    print_flags(plain)
    assert "  ! Deeper nets are more stable [1]." in capsys.readouterr().out
