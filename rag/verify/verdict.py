"""What the check says about one sentence (rag.verify.checker, rag.verify.learned)."""

from __future__ import annotations

from dataclasses import dataclass

from rag.types import SUPPORTED

Clause = tuple[str, tuple[int, ...]]  # a part of a sentence and the cited sources (1-based) its citation gives


@dataclass(frozen=True)
class Verdict:
    """The check of one claim against the sources it cites."""

    label: str  # rag.types.CHECK_LABELS
    reason: str | None  # why it is not supported, in words
    evidence: list[tuple[int, str]]  # (index into the cited sources, sentence): what backs it, or contradicts it
    supported_by: tuple[int, ...] = ()  # WRONG_PAPER: indices into `others` (see verdict_among) that do support it
    similarity: float | None = None  # how close the closest cited sentence is (when the similarity step ran)
    cited_instead: int | None = None  # WRONG_PAPER within the sentence: index into `cited` of the paper that says it

    @property
    def supported(self) -> bool:
        return self.label == SUPPORTED
