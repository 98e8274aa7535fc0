"""The learned judge's seat in the verify stage (issue 34): vetoes first, then the judge decides from its
probabilities over the cited papers' closest sentences. The shipped model itself is tested in test_judge_onnx.py;
here a scripted model stands in so each branch is exercised on purpose."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from rag.adapters.fakes import HashEmbedder
from rag.settings import AnswerSettings
from rag.types import CONTRADICTED, NOT_FOUND, SUPPORTED, Hit, Paper
from rag.verify.checker import SupportChecker, checker_for
from rag.verify.learned import Judge, decide
from rag.verify.sentence_vectors import SentenceVectors

WELLS = Paper("w", "Alberta Wells", "The dataset comprises over 213,000 wells from Alberta. Wells leak methane.")
HIT = Hit(WELLS, "w:0", WELLS.abstract, 1.0, 1.0)


class Scripted:
    """Gives the same probabilities for every pair and counts the pairs it was asked about."""

    def __init__(self, probs: tuple[float, float, float]) -> None:
        self.probs = probs
        self.asked: list[tuple[str, str]] = []

    def probabilities(self, pairs: Sequence[tuple[str, str]]) -> list[tuple[float, float, float]]:
        self.asked.extend(pairs)
        return [self.probs for _ in pairs]


def _checker(probs: tuple[float, float, float]) -> tuple[SupportChecker, Scripted]:
    model = Scripted(probs)
    return SupportChecker(SentenceVectors(HashEmbedder(256)), judge=Judge(model)), model


def test_decide_prefers_a_contradiction_only_when_it_beats_every_support() -> None:
    assert decide([(0.9, 0.05, 0.05)], 0.5, 0.5) == (SUPPORTED, 0)
    assert decide([(0.2, 0.7, 0.1), (0.6, 0.1, 0.3)], 0.5, 0.5) == (CONTRADICTED, 0)
    assert decide([(0.2, 0.55, 0.25), (0.6, 0.1, 0.3)], 0.5, 0.5) == (SUPPORTED, 1)  # a pair supports it more
    assert decide([(0.4, 0.3, 0.3)], 0.5, 0.5) == (NOT_FOUND, 0)


@pytest.mark.parametrize(("probs", "label"), [((0.9, 0.05, 0.05), SUPPORTED), ((0.1, 0.8, 0.1), CONTRADICTED),
                                              ((0.2, 0.2, 0.6), NOT_FOUND)])  # fmt: skip
def test_the_judge_decides_a_sentence_no_veto_stops(probs: tuple[float, float, float], label: str) -> None:
    checker, model = _checker(probs)
    v = checker.verdict("Wells from Alberta leak methane into the air.", [HIT])
    assert v.label == label
    assert model.asked and all(claim == "Wells from Alberta leak methane into the air." for claim, _ in model.asked)
    assert (v.evidence != []) == (label != NOT_FOUND)


def test_a_number_or_name_not_in_the_cited_paper_is_vetoed_before_the_judge_is_asked() -> None:
    checker, model = _checker((0.99, 0.0, 0.01))
    # another number for the same quantity: the paper says otherwise
    assert checker.verdict("The dataset comprises over 500,000 wells from Alberta.", [HIT]).label == CONTRADICTED
    assert checker.verdict("The Zorblax dataset comprises wells from Alberta.", [HIT]).label == NOT_FOUND
    assert model.asked == []


def test_the_settings_choose_who_judges() -> None:
    vectors = SentenceVectors(HashEmbedder(256))
    model = Scripted((0.9, 0.05, 0.05))
    assert checker_for(AnswerSettings(), vectors, model).judge is None  # rules by default
    learned = checker_for(AnswerSettings(judge="learned", judge_supported=0.7), vectors, model).judge
    assert learned is not None and learned.model is model and learned.supported == 0.7
