"""Issue 37 item 10: the evidence shown for a supported sentence is the cited sentence that carries its numbers and
names, among those close enough to back it; the closest sentence only when none carries more of them. The label
never changes, only which sentence is shown.

The texts are the bundled corpus's own abstracts (data/icml2025.jsonl); the sentence vectors are set by hand so
which sentence is closest is fixed, whatever the embedder."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from rag.adapters.fakes import HashEmbedder
from rag.text import split_sentences
from rag.types import SUPPORTED, Hit, Paper
from rag.verify.checker import SupportChecker
from rag.verify.evidence_choice import carrying_first
from rag.verify.sentence_vectors import SentenceVectors

CORPUS = Path(__file__).resolve().parents[1] / "data" / "icml2025.jsonl"
DIM = 16


def _paper(pid: str) -> Paper:
    for line in CORPUS.read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        if d["id"] == pid:
            return Paper(d["id"], d["title"], d["abstract"], tuple(d["authors"]), d.get("year"), d.get("venue"))
    raise LookupError(pid)


def _unit(i: int) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    v[i] = 1.0
    return v


def _checker(paper: Paper, claim: str, closest: str, second: str) -> tuple[SupportChecker, Hit]:
    """A checker whose vectors make the sentence holding `closest` the claim's closest (similarity 1.0), the one
    holding `second` close enough to back it too (0.8), and every other sentence unrelated (0.0)."""
    vectors = SentenceVectors(HashEmbedder(DIM))
    pairs = [(claim, _unit(0))]
    for k, s in enumerate(split_sentences(f"{paper.title}. {paper.abstract}")):
        if closest in s:
            pairs.append((s, _unit(0)))
        elif second in s:
            pairs.append((s, 0.8 * _unit(0) + 0.6 * _unit(1)))
        else:
            pairs.append((s, _unit(2 + k % (DIM - 2))))
    vectors.remember(pairs)
    return SupportChecker(vectors), Hit(paper, f"{paper.id}:0", paper.abstract, 1.0, 1.0)


def test_the_sentence_with_the_claims_number_is_shown_not_the_closest():
    paper = _paper("icml2025-01")
    claim = "Dual-Arch is a plug-in framework for CL that is up to 87% more compact in terms of parameters."
    checker, hit = _checker(paper, claim, closest="we introduce a novel framework denoted Dual-Arch",
                            second="87% more compact")  # fmt: skip
    v = checker.verdict(claim, [hit])
    assert v.label == SUPPORTED
    assert "87%" in v.evidence[0][1], v.evidence  # before: "To address this architectural-level dilemma, ..."
    assert "novel framework denoted Dual-Arch" in v.evidence[1][1]  # the closest is still shown, second


def test_the_sentence_with_the_claims_name_is_shown_not_the_closest():
    paper = _paper("icml2025-00")
    claim = "The satellite imagery used to pinpoint the oil and gas wells comes from Planet Labs."
    checker, hit = _checker(paper, claim, closest="Pinpointing Oil and Gas Wells", second="from Planet Labs")
    v = checker.verdict(claim, [hit])
    assert v.label == SUPPORTED
    assert "Planet Labs" in v.evidence[0][1], v.evidence  # before: the title, which does not name Planet Labs


def test_when_no_sentence_holds_the_number_the_closest_is_shown():
    paper = _paper("icml2025-01")  # 2025 is the paper's year: in its metadata, in none of its sentences
    claim = "In 2025, Dual-Arch was introduced as a plug-in framework for CL."
    checker, hit = _checker(paper, claim, closest="we introduce a novel framework denoted Dual-Arch",
                            second="87% more compact")  # fmt: skip
    v = checker.verdict(claim, [hit])
    assert v.label == SUPPORTED
    assert "novel framework denoted Dual-Arch" in v.evidence[0][1], v.evidence


def test_the_choice_keeps_the_closest_unless_another_holds_more():
    closest, other = (0, "Dual-Arch is up to 87% more compact."), (0, "Dual-Arch uses two networks, 87% smaller.")
    unrelated = (0, "Each network is designed with a lightweight architecture.")
    claim = "Dual-Arch is 87% more compact."
    assert carrying_first(claim, [closest], [closest, other]) == [closest]  # both hold it: the closest stays
    assert carrying_first(claim, [unrelated], [unrelated, other]) == [other, unrelated]
    assert carrying_first("It is lighter.", [unrelated], [unrelated, other]) == [unrelated]  # nothing to carry
    assert carrying_first(claim, [unrelated], [unrelated]) == [unrelated]  # nothing else close enough
