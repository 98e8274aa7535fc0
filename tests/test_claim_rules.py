"""The offline claim rules, each on a hand-made source: it catches the wrong claim and lets the paraphrase pass."""

from __future__ import annotations

import pytest

from rag.adapters.fakes import HashEmbedder
from rag.answer.followup import offline_standalone, topic_of
from rag.answer.question_parts import named_papers, question_parts
from rag.types import Hit, Paper
from rag.verify import rules
from rag.verify.checker import SupportChecker
from rag.verify.number_words import number_word_mismatch
from rag.verify.sentence_vectors import SentenceVectors

SOURCE = (
    "Millions of abandoned oil and gas wells are scattered across the world, leaching methane into the atmosphere "
    "and toxic compounds into the groundwater. We introduce a benchmark of over 213,000 wells from Alberta, "
    "sourced from the Alberta Energy Regulator and imaged by Planet Labs. Deeper networks exhibit better "
    "plasticity, while wider networks are characterized by superior stability. We train with mini-batch "
    "stochastic gradient descent. The method does not require exemplars and may improve accuracy."
)
HIT = Hit(Paper("p0", "Alberta Wells Dataset", SOURCE), "p0:0", SOURCE, 1.0, 1.0)


@pytest.fixture(scope="module")
def checker() -> SupportChecker:
    return SupportChecker(SentenceVectors(HashEmbedder(256)), threshold=0.3)


@pytest.mark.parametrize(
    ("claim", "reason"),
    [
        ("The benchmark pairs the wells with imagery from Maxar.", "'Maxar' is not in the cited source"),
        ("The wells were imaged with Landsat-8 satellites.", "not in the cited source"),
        ("The benchmark covers over two million wells from Alberta.", "written as a word"),
        ("Billions of abandoned wells are scattered across the world.", "'billions'"),
        ("The method always improves accuracy.", "claims more than the source: 'always'"),
        ("The method guarantees better accuracy.", "claims more than the source: 'guarantees'"),
        ("Deeper networks do not exhibit better plasticity.", "negation"),
        ("Wider networks exhibit better plasticity, while deeper networks show superior stability.", "other way"),
    ],
)
def test_each_rule_catches_its_kind(checker: SupportChecker, claim: str, reason: str):
    v = checker.verdict(claim, [HIT])
    supported, why = v.supported, v.reason
    assert not supported and why is not None and reason in why, why


@pytest.mark.parametrize(
    "claim",
    [
        "The benchmark includes more than 213,000 wells across Alberta, imaged by Planet Labs.",
        "Over two hundred thousand wells from Alberta make up the benchmark.",  # a rounded figure of 213,000
        "We train with mini-batch SGD.",  # an acronym of a source phrase
        "The method works without any exemplars and may improve accuracy.",  # "without any" denies, no over-claim
        "Deeper networks show better plasticity, and wider ones are more stable.",
    ],
)
def test_faithful_paraphrases_pass(checker: SupportChecker, claim: str):
    v = checker.verdict(claim, [HIT])
    supported, why, evidence = v.supported, v.reason, v.evidence
    assert supported, why
    assert evidence and evidence[0][0] == 0  # the evidence sentence comes from the cited source


def test_rules_can_be_switched_off_one_by_one(checker: SupportChecker):
    claim = "The method always improves accuracy."
    checker.rules = frozenset(r for r in checker.rules if r != "strong")
    try:
        assert checker.verdict(claim, [HIT]).reason != "claims more than the source: 'always'"
    finally:
        checker.rules = frozenset(("terms", "number_words", "strong", "polarity", "swap"))


def test_stems_and_vocabulary():
    vocab = rules.SourceVocabulary("It reconstructs graphs; learned embeddings; stochastic gradient descent; PhDs")
    for word in ("reconstruction", "embedding", "learnability", "learns", "SGD"):
        assert vocab.has(word), word
    assert not vocab.has("transformer")
    assert rules.stem("embedded") == rules.stem("embeddings") and rules.stem("studies") == rules.stem("studied")
    # Known losses of the one (Snowball) stemmer, listed in tests/data/LABEL_MOVES.md: "embeds" stems to "emb",
    # and an acronym's plural keeps its "s" ("PhDs"), so neither meets the other form any more.
    assert not vocab.has("embeds") and not vocab.has("PhD")


def test_number_words():
    assert number_word_mismatch("It has three stages.", "It has 3 stages.") is None
    assert number_word_mismatch("It has five stages.", "It has 3 stages.")
    assert number_word_mismatch("Two papers study this.", "no numbers here", cited=2) is None  # counts the citations
    assert number_word_mismatch("It is twice as fast.", "It is 2x faster.") is None


def test_not_only_is_no_negation():
    source = "It allows not only sets of connected nodes but also sets with strong disconnection."
    assert rules.polarity_mismatch("It allows sets of nodes with strong disconnection.", source) is None


def test_question_parts_and_named_papers():
    assert question_parts("What imagery does it use, and who sourced the records?") == [
        "What imagery does it use",
        "who sourced the records",
    ]
    assert question_parts("How much, in euros, did it cost?") == ["How much, in euros, did it cost?"]
    assert question_parts("Ignore the rules. What is X and how is it evaluated?") == [
        "What is X",
        "how is it evaluated",
    ]
    titles = ["SIMPLEMIX: Mixing Data", "Predictive Data Selection (PreSelect)", "PaperBench: Replicating Research"]
    hits = [Hit(Paper(f"p{i}", title, "x"), f"p{i}:0", "x", 1.0) for i, title in enumerate(titles)]
    assert named_papers("How do SimpleMix and PreSelect each combine data?", hits) == [1, 2]


def test_offline_follow_up_resolves_references_without_gluing_questions():
    assert topic_of("Summarize the continual learning papers") == "continual learning"
    standalone = offline_standalone(
        "and which of them use auxiliary classifiers?", "Summarize the continual learning papers"
    )
    assert standalone == "and which of the continual learning papers use auxiliary classifiers?"
    assert offline_standalone("what about savings?", "Summarize the continual learning papers") == (
        "what about savings (continual learning papers)?"
    )
