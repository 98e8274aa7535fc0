"""Issue 21, item 2-4: the forms real biomedical claims take (SciFact tuning half), checked rule by rule. Each
case failed before the rule it names; each "still flagged" case guards the planted errors the rule must not let
through."""

from __future__ import annotations

import pytest

from rag.verify.comparisons import different_number, direction_mismatch
from rag.verify.names import rounded_away
from rag.verify.rules import missing_specific_terms, polarity_mismatch
from rag.verify.vocabulary import SourceVocabulary


def missing(claim: str, source: str) -> list[str]:
    return missing_specific_terms(claim, SourceVocabulary(source))


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("KLF4 acts in VSMCs.", "the role of smooth muscle cells (SMCs) and KLF4"),  # a letter before a name
        ("Dscam1 acts as a receptor.", "the gene Dscam acts as a receptor"),  # a digit after a name
        ("MUC1-C activates the pathway.", "The MUC1 oncoprotein activates the pathway"),
        ("Carriers of APOE4 were older.", "most pronounced in APOE ε4 carriers"),  # Greek letter spelled or dropped
        ("MFGE8 binds av-Beta3 integrins.", "MFGE8 binds αvβ3 integrin"),
        ("Responses to interleukin-2 fall.", "variation lowers IL-2 signaling"),  # long and short protein names
        ("TRAP cells regulate bone.", "tartrate-resistant acid phosphatase positive cells regulate bone"),
        ("Energy balance needs hypothalamic signals.", "signals of the hypothalamus control energy balance"),
        ("Folic acid lowers homocysteine.", "folic acid lowers hyperhomocysteinemia"),
        ("Nonhypertensive adults were followed.", "adults free of hypertension were followed"),
        ("Snf1 acts in baker's yeast (Saccharomyces cerevisiae).", "Snf1 acts in yeast"),  # a gloss of a term
    ],
)
def test_a_variant_of_a_name_the_source_uses_is_found(claim: str, source: str):
    assert missing(claim, source) == []


@pytest.mark.parametrize(
    ("claim", "source", "term"),
    [
        ("HIV-2 replication fell.", "HIV-1 replication fell", "HIV-2"),  # a sibling name, not a variant
        ("Results on CIFAR-100 improve.", "Results on CIFAR-10 improve", "CIFAR-100"),  # a digit after a digit
        ("Embeddings are hyperspherical.", "embeddings are hyperbolic", "hyperspherical"),  # too short a shared start
        ("FoxO3a is inhibited by reactive oxygen species (ROS).", "FoxO3a dies with oxygen species", "ROS"),
    ],
)
def test_a_different_name_is_still_not_in_the_source(claim: str, source: str, term: str):
    assert term in missing(claim, source)


def test_a_whole_number_may_round_a_decimal_but_a_decimal_must_be_given():
    assert rounded_away({"76", "85"}, {"76.3", "85.4"}) == {"76", "85"}
    assert rounded_away({"3.0"}, {"3.05"}) == set()
    assert rounded_away({"77"}, {"76.3"}) == set()


def test_a_different_number_for_the_same_thing_is_a_contradiction():
    assert different_number("It covers 500 wells.", "It covers over 213,000 wells.", {"500"}) == (
        "says 500 wells where the source says 213,000 wells"
    )
    assert "$750 million" in (different_number("It saves $5 billion.", "It could save $750 million.", {"5"}) or "")
    assert different_number("It has 12 layers.", "It was run on 57 tasks.", {"12"}) is None  # nothing alike


def test_direction_is_read_per_thing_moved():
    evidence = "DUSP4 overexpression increased apoptosis, whereas DUSP4 depletion dampened the response."
    assert direction_mismatch("DUSP4 decreases apoptosis.", evidence)
    assert direction_mismatch("DUSP4 dampened the response.", evidence) is None


def test_negation_words_and_their_scope():
    assert polarity_mismatch("Glutamate signalling is unrelated to energy balance.",
                             "Glutamate signalling controls energy balance.")  # fmt: skip
    # a source's "but not" denies the word after it, not the clause the claim repeats
    source = "Amitriptyline is effective in chronic but not in episodic tension-type headache."
    assert polarity_mismatch("Amitriptyline is effective in chronic tension-type headache.", source) is None
    source = "Macrophages self-maintain with minimal contribution from bone marrow cells."
    assert polarity_mismatch("Bone marrow cells do not contribute to macrophages.", source) is None


def test_an_aim_or_an_open_question_states_no_result_to_oppose():
    from rag.corpus.roles import states_no_finding

    assert states_no_finding("OBJECTIVE To determine whether folic acid reduces mortality in kidney disease.")
    assert states_no_finding("However, the role of FGF21 in the cardiovascular system remains elusive.")
    assert not states_no_finding("Folic acid did not reduce mortality (HR 1.04).")


def test_a_negated_claim_is_not_contradicted_by_an_aim():
    from rag.adapters.fakes import HashEmbedder
    from rag.types import CONTRADICTED, Hit, Paper
    from rag.verify.checker import SupportChecker
    from rag.verify.sentence_vectors import SentenceVectors

    text = "To determine whether folic acid reduces mortality in chronic kidney disease."
    hit = Hit(Paper("p", "Folic acid in kidney disease", text), "p:0", text, 1.0, 1.0)
    checker = SupportChecker(SentenceVectors(HashEmbedder(256)), threshold=0.0)
    assert (
        checker.verdict("Folic acid does not reduce mortality in chronic kidney disease.", [hit]).label != CONTRADICTED
    )
    found = "Folic acid reduced mortality in chronic kidney disease."
    hit = Hit(Paper("p", "Folic acid in kidney disease", found), "p:0", found, 1.0, 1.0)
    assert (
        checker.verdict("Folic acid does not reduce mortality in chronic kidney disease.", [hit]).label == CONTRADICTED
    )


def test_trust_names_above_lets_a_close_sentence_vouch_for_a_background_name():
    from rag.adapters.fakes import HashEmbedder
    from rag.settings import load_settings
    from rag.types import NOT_FOUND, SUPPORTED, Hit, Paper
    from rag.verify.checker import SupportChecker
    from rag.verify.sentence_vectors import SentenceVectors

    text = "Loading cholesterol induces KLF4 expression in smooth muscle cells."
    hit = Hit(Paper("p", "KLF4", text), "p:0", text, 1.0, 1.0)
    claim = "Loading cholesterol induces KLF4 expression in Eomes smooth muscle cells."
    strict = SupportChecker(SentenceVectors(HashEmbedder(256)), threshold=0.3)
    assert strict.verdict(claim, [hit]).label == NOT_FOUND
    trusting = SupportChecker(SentenceVectors(HashEmbedder(256)), threshold=0.3, terms_below=0.2)
    assert trusting.verdict(claim, [hit]).label == SUPPORTED
    assert trusting.verdict("Loading cholesterol induces KLF4 expression in 12 cells.", [hit]).label == NOT_FOUND
    settings = load_settings(env={"RAG_TRUST_NAMES_ABOVE": "off"}, home="/nonexistent")
    assert settings.answer.trust_names_above is None
    assert load_settings(env={"RAG_TRUST_NAMES_ABOVE": "0.7"}, home="/nonexistent").answer.trust_names_above == 0.7


def test_direction_words_in_a_row_compose_and_a_direction_noun_is_a_subject():
    # "reduced activation of STING" lowers STING: it does not also raise it
    assert direction_mismatch("IFI16 impedes STING phosphorylation, resulting in reduced activation of STING.",
                              "IFI16 interacts with STING to promote STING phosphorylation.")  # fmt: skip
    # "downregulation activates the pathway" raises the pathway; the claim lowers it
    assert direction_mismatch("DUSP4 downregulation deactivates the Ras-ERK pathway.",
                              "DUSP4 downregulation activates the Ras-ERK pathway in BLBC.")  # fmt: skip
    assert direction_mismatch("DUSP4 downregulation activates the Ras-ERK pathway.",
                              "Thus, DUSP4 downregulation activates the Ras-ERK pathway in BLBC.") is None  # fmt: skip
