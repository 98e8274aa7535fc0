"""Quantities with what they count, the direction of an effect, and the direction of a comparison."""

from __future__ import annotations

import pytest

from rag.adapters.fakes import HashEmbedder
from rag.types import CONTRADICTED, Hit, Paper
from rag.verify.checker import SupportChecker
from rag.verify.comparisons import direction_mismatch, reversed_comparison, unit_mismatch
from rag.verify.sentence_vectors import SentenceVectors

SOURCE = ("The survey counts 4,800 lakes in the northern basin. Deeper lakes were more stable than shallow lakes. "
          "Warming increased algal growth in shallow lakes.")  # fmt: skip
HIT = Hit(Paper("p", "A lake survey", SOURCE), "p:0", SOURCE, 1.0, 1.0)


def test_a_number_is_checked_with_what_it_counts():
    assert unit_mismatch("The survey covers 4,800 square kilometres.", SOURCE)
    assert unit_mismatch("The survey counts 4,800 lakes.", SOURCE) is None
    assert unit_mismatch("It counts 4,800 of them in the north.", SOURCE) is None  # no unit named
    assert unit_mismatch("Version 2.0 counts lakes.", "Version 2.0 of the tool was used.") is None


def test_direction_of_an_effect():
    assert direction_mismatch("Warming reduced algal growth.", "Warming increased algal growth in shallow lakes.")
    assert direction_mismatch("Warming boosted algal growth.", "Warming increased algal growth.") is None
    # a sentence with both directions is left to the other rules
    assert direction_mismatch("Warming raised growth and cut oxygen.", "Warming lowered oxygen levels.") is None


@pytest.mark.parametrize(
    ("claim", "reversed_"),
    [
        ("Shallow lakes were more stable than deeper lakes.", True),
        ("Deeper lakes were less stable than shallow lakes.", True),
        ("Shallow lakes were less stable than deeper lakes.", False),  # the same finding, said the other way
        ("Deeper lakes were more stable than shallow lakes.", False),
        ("Deeper lakes hold more than 40 species.", False),  # "more than" a number is no comparison
    ],
)
def test_reversed_comparisons(claim: str, reversed_: bool):
    evidence = "Deeper lakes were more stable than shallow lakes."
    assert bool(reversed_comparison(claim, evidence)) is reversed_


def test_the_check_labels_them_contradicted():
    checker = SupportChecker(SentenceVectors(HashEmbedder(256)), threshold=0.0)
    for claim in ("Shallow lakes were more stable than deeper lakes.", "Warming reduced algal growth in shallow lakes.",
                  "The survey counts 4,800 square kilometres in the northern basin."):  # fmt: skip
        v = checker.verdict(claim, [HIT])
        assert v.label == CONTRADICTED, (claim, v)
    assert checker.verdict("Deeper lakes were more stable than shallow lakes.", [HIT]).supported


def test_a_corrected_premise_is_not_a_contradiction():
    source = "The learner is exemplar-free: it keeps a running mean of each class. Old classes drift during training."
    hit = Hit(Paper("e", "An exemplar-free learner", source), "e:0", source, 1.0, 1.0)
    checker = SupportChecker(SentenceVectors(HashEmbedder(256)), threshold=0.0)
    assert checker.verdict("The learner does not keep old exemplars.", [hit]).label != CONTRADICTED
    assert checker.verdict("Old classes do not drift during training.", [hit]).label == CONTRADICTED
