"""Quantities with what they count, the direction of an effect, and the direction of a comparison."""

from __future__ import annotations

import pytest

from rag.adapters.fakes import HashEmbedder
from rag.types import CONTRADICTED, Hit, Paper
from rag.verify.checker import SupportChecker
from rag.verify.comparisons import different_number, direction_mismatch, reversed_comparison, unit_mismatch
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



@pytest.mark.parametrize(
    ("claim", "reversed_"),
    [
        ("Shallow lakes outperform deeper lakes in stability.", True),
        ("Deeper lakes are outperformed by shallow lakes.", True),  # the passive ranks its agent first
        ("Deeper lakes lag behind shallow lakes in stability.", True),
        ("Shallow lakes are better than deeper lakes.", True),  # a comparative right before "than" a name
        ("Shallow lakes are outperformed by deeper lakes.", False),  # the same finding, said the other way
        ("Shallow lakes trail deeper lakes in stability.", False),
        ("Deeper lakes surpass shallow lakes.", False),
        ("Deeper lakes exceed 40 metres.", False),  # a verb of ranking with a quantity: nothing compared
        ("Shallow lakes were higher than 40 metres.", False),  # "than" a quantity
    ],
)
def test_comparisons_said_with_a_verb_of_ranking(claim: str, reversed_: bool):
    evidence = "Deeper lakes outperform shallow lakes in stability across the basin."
    assert bool(reversed_comparison(claim, evidence)) is reversed_, claim
    # and against the same finding said with "than"
    than = "Deeper lakes were more stable than shallow lakes."
    if "40" not in claim:
        assert bool(reversed_comparison(claim, than)) is reversed_, claim

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


DUAL_ARCH = (  # icml2025-01, the bundled corpus
    "Extensive experiments demonstrate that Dual-Arch enhances the performance of existing CL methods while "
    "being up to 87% more compact in terms of parameters."
)


@pytest.mark.parametrize(("claim", "source", "reason"), [
    ("Dual-Arch is up to 45% more compact in terms of parameters.", DUAL_ARCH,
     "says 45% more compact where the source says 87% more compact"),
    ("It gives a 30 percent lower cost.", "It gives a 60 percent lower cost.",
     "says 30 percent lower where the source says 60 percent lower"),
    ("A 2× faster model.", "A 3× faster model.", "says 2× faster model where the source says 3× faster model"),
    ("It saves $5 billion.", "It could save $750 million.", "says $5 billion where the source says $750 million"),
    ("It cuts the cost by 80% without compromising accuracy.", "It cuts the cost by 10-60% without compromising "
     "accuracy.", "says 80% without compromising where the source says 10-60% without compromising"),
])  # fmt: skip
def test_a_different_number_is_named_with_its_unit(claim: str, source: str, reason: str):
    """The reason quotes each number as written, with its percent sign or unit: "45 more compact" read as a count."""
    number = next(w.strip("$%×") for w in claim.split() if w.strip("$%×")[:1].isdigit())
    assert different_number(claim, source, {number}) == reason


def test_the_check_quotes_the_sentence_whose_number_differs():
    hit = Hit(Paper("icml2025-01", "Dual-Arch", DUAL_ARCH), "icml2025-01:0", DUAL_ARCH, 1.0, 1.0)
    checker = SupportChecker(SentenceVectors(HashEmbedder(256)), threshold=0.0)
    v = checker.verdict("Dual-Arch is up to 45% more compact in terms of parameters.", [hit])
    assert v.label == CONTRADICTED and v.reason == "says 45% more compact where the source says 87% more compact"
    assert [s for _, s in v.evidence] == [DUAL_ARCH]  # the source sentence is shown, found by the quoted phrase


def test_which_way_is_read_in_the_closest_few_sentences_not_only_the_closest():
    near = ["Auxiliary classifiers for continual learning.",  # the closest by wording, saying nothing of accuracy
            "Integrating them into continual learning methods consistently improves accuracy."]  # fmt: skip
    claim = "Integrating auxiliary classifiers lowers accuracy."
    assert direction_mismatch(claim, near[0]) is None
    assert direction_mismatch(claim, near)
    # a sentence saying the claim's way among them keeps it: the sources disagree, not the claim with them
    assert direction_mismatch(claim, [*near, "Pruning lowers accuracy in the last layers."]) is None
    evidence = ["Auxiliary classifiers for continual learning.", "On various datasets, DPCR balances old and new "
                "tasks, outperforming state-of-the-art EFCIL methods."]  # fmt: skip
    assert reversed_comparison("State-of-the-art EFCIL methods outperform DPCR.", evidence)
    assert reversed_comparison("DPCR lags behind state-of-the-art EFCIL methods.", evidence)
    assert reversed_comparison("DPCR outperforms state-of-the-art EFCIL methods.", evidence) is None


def test_a_comparison_said_with_compared_to_and_hyphenated_names():
    evidence = ("Self-supervised models learn similarities that generalize better compared to those of "
                "classification-trained models.")  # fmt: skip
    assert reversed_comparison("Classification models generalize better than self-supervised models.", evidence)
    assert reversed_comparison("Self-supervised models generalize less well than classification models.", evidence)
    assert reversed_comparison("Self-supervised models generalize better than classification models.", evidence) is None


def test_what_other_studies_suggest_is_not_read_as_the_papers_finding():
    from rag.corpus.roles import reports_others_view

    assert reports_others_view("While some studies suggest that on-policy data consistently outperforms the rest.")
    assert reports_others_view("It is widely believed that deeper networks forget less.")
    assert not reports_others_view("Our studies suggest that deeper networks forget less.")
    assert not reports_others_view("DPCR outperforms existing methods on four benchmarks.")
