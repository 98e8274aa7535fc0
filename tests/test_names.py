"""Names in scientific text: digits of names are no quantities, abbreviations are learnt, spellings meet, links are
not evidence."""

from __future__ import annotations

import pytest

from rag.adapters.fakes import HashEmbedder
from rag.types import Hit, Paper
from rag.verify.checker import SupportChecker
from rag.verify.names import abbreviations, links, quantities
from rag.verify.rules import missing_specific_terms
from rag.verify.sentence_vectors import SentenceVectors
from rag.verify.vocabulary import SourceVocabulary

SOURCE = (
    "Inhibiting MEK 1/2 lowered IL-6 release in CD4+ T cells exposed to H2O2, and HIV-1 replication fell. "
    "Vascular smooth muscle cells respond to TNF-alpha within 3 hours. Posttranscriptional control of "
    "leukemia cells was measured in 120 mice. We study multimodal large language models (MLLMs)."
)
PAPER = Paper("p0", "A made-up study of kinases", SOURCE, url="https://example.org/paper/4471", year=2021)
HIT = Hit(PAPER, "p0:0", SOURCE, 1.0, 1.0)


def test_digits_of_names_are_not_quantities():
    assert quantities("MEK 1/2 and IL-6 in CD4+ cells with H2O2 and HIV-1, Dscam1") == set()
    assert quantities("Over 213,000 wells in 2019 rose by 12.5%") == {"213000", "2019", "12.5"}
    assert quantities("see https://example.org/paper/4471 and arXiv 2410.09032") == set()


def test_abbreviations_are_read_from_the_text():
    assert ("MLLMs", "multimodal large language models") in abbreviations(SOURCE)


def test_links_without_scheme():
    assert links("code at github.com/ann/tool.") == ["github.com/ann/tool"]


@pytest.mark.parametrize(
    "claim",
    [
        "Blocking MEK 1/2 reduced IL-6 release in CD4+ T cells.",
        "HIV1 replication fell.",  # hyphenation
        "VSMCs respond to TNF-α.",  # plural acronym of a spelled-out name, Greek letter
        "Post-transcriptional control of leukaemia cells was measured.",  # hyphen, British spelling
        "MLLMs are studied.",
        "Tumour necrosis factor alpha (TNF-alpha) acts on vascular smooth muscle cells.",  # the claim's own definition
    ],
)
def test_names_written_otherwise_are_found(claim: str):
    assert missing_specific_terms(claim, SourceVocabulary(SOURCE)) == []
    assert SupportChecker(SentenceVectors(HashEmbedder(256)), threshold=0.0).verdict(claim, [HIT]).supported


@pytest.mark.parametrize(
    ("claim", "reason"),
    [
        ("Inhibiting MEK 1/2 lowered IL-8 release.", "IL-8"),
        ("The effect was measured in 4471 mice.", "says 4471 mice where the source says 120 mice"),  # URL digits
        ("HIV-2 replication fell.", "HIV-2"),
        ("The code is at github.com/someone/else.", "not a link of the cited paper"),
    ],
)
def test_names_and_numbers_still_checked(claim: str, reason: str):
    v = SupportChecker(SentenceVectors(HashEmbedder(256)), threshold=0.0).verdict(claim, [HIT])
    assert not v.supported and reason in (v.reason or "")


def test_a_close_paraphrase_may_add_a_rare_word_but_not_a_name():
    source = "Glutamate release in the hypothalamus is required for energy balance."
    hit = Hit(Paper("q", "Energy balance", source), "q:0", source, 1.0, 1.0)
    checker = SupportChecker(SentenceVectors(HashEmbedder(256)), threshold=0.0)
    claim = "Glutamate neurotransmission in the hypothalamus keeps energy balance."  # our own sentence
    checker.paraphrase = 0.0  # every sentence counts as close here
    assert checker.verdict(claim, [hit]).supported
    v = checker.verdict("Glutamate via GRIN2B in the hypothalamus keeps energy balance.", [hit])
    assert not v.supported and "GRIN2B" in (v.reason or "")
    checker.paraphrase = 1.01  # nothing is close enough: the rare word is a term the source lacks
    assert not checker.verdict(claim, [hit]).supported


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("FOXO3 lowers the levels.", "A FOXO3-driven pathway lowers the levels."),
        ("Clocks gate division in NIH 3T3 cells.", "Clocks gate division in NIH3T3 cells."),
        ("Clocks gate cell division in NIH 3T3 cells.", "Clocks gate cell division in NIH3T3 cells."),
        ("SIRT1 controls the protein.", "The protein is controlled in a SIRT1-dependent manner."),
    ],
)
def test_a_name_with_digits_is_found_inside_a_compound_or_glued_form(claim, source):
    assert missing_specific_terms(claim, SourceVocabulary(source)) == []


def test_a_name_with_other_digits_is_still_missing():
    source = SourceVocabulary("A FOXO3-driven pathway lowers the levels in NIH3T3 cells.")
    assert missing_specific_terms("FOXO1 lowers the levels in NIH 3T4 cells.", source) == ["FOXO1", "T4"]


def test_the_second_number_of_a_glued_name_pair_is_no_quantity():
    assert quantities("Oct3/4 binds Sox2; MEK1/2 and HIV1/2 too") == set()
    assert quantities("3/4 of cases in 2019/2020") == {"3", "4", "2019", "2020"}
