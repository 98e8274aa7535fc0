"""What backs each citation of an answer, from the citation check's per-sentence results. No gradio here.

    evidence(answer, 3)          -> the source sentences of [3] that the check matched to supported sentences
    closest(answer, 3)           -> those it matched to unsupported ones (they do not back the claim)
    unsupported_only(answer, 3)  -> [3] is cited, but only by sentences the check did not support
"""

from __future__ import annotations

from rag.types import Answer


def _sentences(answer: Answer, n: int, supported: bool) -> list[str]:
    out: list[str] = []
    for check in answer.sentence_checks:
        if check.supported == supported:
            out += [text for m, text in check.evidence if m == n and text not in out]
    return out


def evidence(answer: Answer, n: int) -> list[str]:
    return _sentences(answer, n, True)


def closest(answer: Answer, n: int) -> list[str]:
    return [s for s in _sentences(answer, n, False) if s not in evidence(answer, n)]


def cited_numbers(answer: Answer) -> list[int]:
    """Source numbers the answer cites, in order, once each (none for an abstention)."""
    return sorted({c.n for c in answer.citations if 1 <= c.n <= len(answer.sources)})


def unsupported_only(answer: Answer, n: int) -> bool:
    citing = [c for c in answer.sentence_checks if n in c.cited]
    return bool(citing) and not any(c.supported for c in citing)


def tip_sentence(answer: Answer | None, n: int, passage: str) -> str:
    """The sentence a [n] preview shows: its evidence, else the closest sentence, else the passage's start."""
    if answer is not None:
        found = evidence(answer, n) or closest(answer, n)
        if found:
            return found[0]
    return passage.split(". ")[0][:240]
