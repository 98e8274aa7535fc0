"""The learned judge's decision: a cross-encoder (claim, evidence sentence) -> supported / contradicted / not found
(rag/models/judge-*.onnx through the SupportJudge port, trained by `make train-judge`) reads the cited papers'
closest sentences and decides. The rules that are precise stay as vetoes, checked before it (rag.verify.checker):
a number, link or name that is not in the cited paper, another number for the same quantity."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rag.ports import SupportJudge
from rag.types import CONTRADICTED, NOT_FOUND, SUPPORTED
from rag.verify.verdict import Verdict

# the rules of rag.verify.rules kept as vetoes of the judge: precise, and about what a cross-encoder reads badly
# (an invented name or term, a number written in words that differs)
VETOES = frozenset({"terms", "number_words", "units"})
READS = 3  # the cited papers' closest sentences the judge reads, one pair each, plus the two closest joined
NOT_SAID = "no cited sentence says this (learned judge)"


@dataclass(frozen=True)
class Judge:
    model: SupportJudge
    supported: float = 0.5  # the probability of supported a sentence needs from one evidence pair
    contradicted: float = 0.5  # ... of contradicted, above its best supported probability
    vetoes: frozenset[str] = VETOES
    reads: int = READS

    def verdict(self, claim: str, top: Sequence[tuple[int, str]], similarity: float) -> Verdict:
        """`top`: (index into the cited sources, sentence), closest first."""
        pairs = [(claim, s) for _, s in top]
        if len(top) > 1 and top[0][0] == top[1][0]:
            pairs.append((claim, f"{top[0][1]} {top[1][1]}"))
        label, i = decide(self.model.probabilities(pairs), self.supported, self.contradicted)
        evidence = [top[min(i, len(top) - 1)]] if label != NOT_FOUND else []  # the joined pair: its first sentence
        reason = {SUPPORTED: None, CONTRADICTED: "a cited sentence says otherwise"}.get(label, NOT_SAID)
        return Verdict(label, reason, evidence, similarity=similarity)


def decide(probs: Sequence[tuple[float, float, float]], supported: float, contradicted: float) -> tuple[str, int]:
    """(label, the pair that decided it) from the judge's probabilities over the evidence pairs: contradicted when
    one pair's contradicted probability reaches its floor and beats every pair's supported one, else supported
    when one pair's supported probability reaches its floor, else not found."""
    sup = max(range(len(probs)), key=lambda i: probs[i][0])
    con = max(range(len(probs)), key=lambda i: probs[i][1])
    if probs[con][1] >= contradicted and probs[con][1] > probs[sup][0]:
        return CONTRADICTED, con
    if probs[sup][0] >= supported:
        return SUPPORTED, sup
    return NOT_FOUND, sup
