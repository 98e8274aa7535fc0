"""Attribution per citation: a clause's numbers and names must be in the paper its own marker cites."""

from __future__ import annotations

from rag.adapters.fakes import HashEmbedder
from rag.answer.checked import judge_answer
from rag.answer.citations import clauses_by_marker
from rag.types import SUPPORTED, WRONG_PAPER, Hit, Paper
from rag.verify.checker import SupportChecker
from rag.verify.sentence_vectors import SentenceVectors

LAKES = Paper("l", "Lake survey", "The survey counts 4,800 lakes in the Yukon basin.")
BIRDS = Paper("b", "Bird census", "The census rings 310 swallows near Lund.")
HITS = [Hit(p, f"{p.id}:0", p.abstract, 1.0, 1.0) for p in (LAKES, BIRDS)]


def test_clauses_follow_their_markers():
    assert clauses_by_marker("A has 3 cats [1], while B has 4 dogs [2].") == [
        ("A has 3 cats", (1,)), (", while B has 4 dogs", (2,))]  # fmt: skip
    assert clauses_by_marker("Both count animals [1, 2].") == [("Both count animals", (1, 2))]


def test_a_number_from_the_other_cited_paper_is_wrong_paper():
    checker = SupportChecker(SentenceVectors(HashEmbedder(256)), threshold=0.0)
    right = "The survey counts 4,800 lakes in the Yukon basin [1], and the census rings 310 swallows near Lund [2]."
    swapped = "The survey counts 310 lakes in the Yukon basin [1], and the census rings 4,800 swallows near Lund [2]."
    named = "The survey counts lakes near Lund [1], and the census rings swallows in the Yukon basin [2]."
    assert [c.label for c in judge_answer(checker, right, HITS)] == [SUPPORTED]
    for sentence in (swapped, named):
        (check,) = judge_answer(checker, sentence, HITS)
        assert check.label == WRONG_PAPER and "not in [1]" in (check.reason or ""), check
        assert check.supported_by == (2,) and check.evidence and check.evidence[0][0] == 2
