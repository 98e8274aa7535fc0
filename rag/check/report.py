"""What `rag check` found, as typed values, and as the stable JSON record `rag check --json` prints (schema
"rag-check/1", every field described in docs/check-json.md). Text, Markdown and the UI render from these values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rag.safe_text import invisible_chars, safe_url, show_invisible
from rag.types import CHECK_LABELS, CONTRADICTED, NOT_FOUND, UNCITED, WRONG_PAPER, Paper
from rag.verify.labels import NOT_IN_LIBRARY

SCHEMA = "rag-check/1"
LABELS = (*CHECK_LABELS, NOT_IN_LIBRARY)
FLAGGED = frozenset({NOT_FOUND, CONTRADICTED, WRONG_PAPER, NOT_IN_LIBRARY})  # what makes `rag check` exit 1


def invisible_note(key: str) -> str | None:
    """ "key 'icml2025\\u200b' holds an invisible character (U+200B ZERO WIDTH SPACE)", or None for a key without
    one (rag.safe_text.invisible_chars): such a key reads as another ("icml2025") but is not that key."""
    found = invisible_chars(key)
    if not found:
        return None
    what = "an invisible character" if len(found) == 1 else "invisible characters"
    return f"key '{show_invisible(key)}' holds {what} ({', '.join(found)})"


@dataclass(frozen=True)
class PaperRef:
    """A library paper as outputs name it."""

    id: str
    title: str
    url: str | None

    @classmethod
    def of(cls, paper: Paper) -> PaperRef:
        return cls(paper.id, paper.title, safe_url(paper.url))

    def record(self) -> dict[str, Any]:
        return {"paper_id": self.id, "title": self.title, "url": safe_url(self.url)}


@dataclass(frozen=True)
class Cite:
    """One citation key of a sentence and what it resolved to."""

    key: str
    paper: PaperRef | None  # None: not in the library
    matched_by: str | None  # "id", "bibtex key", "doi", "arxiv", "title"

    @property
    def invisible(self) -> tuple[str, ...]:
        """The invisible characters the key holds ("U+200B ZERO WIDTH SPACE"), usually none."""
        return invisible_chars(self.key)

    def record(self) -> dict[str, Any]:
        found = self.paper.record() if self.paper else {"paper_id": None, "title": None, "url": None}
        return {"key": self.key, "in_library": self.paper is not None, **found, "matched_by": self.matched_by,
                "invisible": list(self.invisible)}  # fmt: skip


@dataclass(frozen=True)
class SentenceResult:
    n: int  # 1-based position among the checked sentences
    line: int  # the draft's line where it starts
    text: str  # as in the draft, citations shown as [key; key]
    cites: tuple[Cite, ...]
    label: str  # one of LABELS
    reason: str | None = None  # why it is not supported, in words
    evidence: str | None = None  # the library sentence that backs it, or contradicts it
    evidence_paper: PaperRef | None = None  # ... and its paper
    supported_by: tuple[PaperRef, ...] = ()  # wrong paper: the papers that do say it; uncited: suggested citations
    checks: tuple[str, ...] = ("offline",)  # "offline", and "llm" when the LLM judged it too
    llm: str | None = None  # the LLM's judgement: "supported", "unsupported", or None (not asked)
    file: str | None = None  # the included file it is in (\input{...}); None: the draft itself

    @property
    def flagged(self) -> bool:
        return self.label in FLAGGED

    @property
    def unknown_keys(self) -> tuple[str, ...]:
        return tuple(c.key for c in self.cites if c.paper is None)

    def record(self, draft: str) -> dict[str, Any]:
        """`draft`: the draft's name, the sentence's `file` when it is not in an included file."""
        return {
            "n": self.n, "file": self.file or draft, "line": self.line, "text": self.text, "label": self.label,
            "flagged": self.flagged,
            "reason": self.reason, "cites": [c.record() for c in self.cites],
            "unknown_keys": list(self.unknown_keys),
            "evidence": None if self.evidence is None else {
                "text": self.evidence, **(self.evidence_paper.record() if self.evidence_paper else {})},
            "supported_by": [p.record() for p in self.supported_by],
            "checks": list(self.checks), "llm": self.llm,
        }  # fmt: skip


@dataclass(frozen=True)
class CheckReport:
    file: str
    format: str  # "markdown" | "latex"
    sentences: tuple[SentenceResult, ...]
    library_papers: int
    collection: str
    checks: tuple[str, ...] = ("offline",)
    notes: tuple[str, ...] = ()
    seconds: float = 0.0
    bibliography: tuple[str, ...] = field(default=())  # the draft's .bib files that were read

    @property
    def counts(self) -> dict[str, int]:
        return {label: sum(1 for s in self.sentences if s.label == label) for label in LABELS}

    @property
    def flagged(self) -> int:
        return sum(1 for s in self.sentences if s.flagged)

    @property
    def unknown_keys(self) -> dict[str, list[int]]:
        """Keys not in the library -> the sentences (n) that cite them, in order of first use."""
        out: dict[str, list[int]] = {}
        for s in self.sentences:
            for key in s.unknown_keys:
                out.setdefault(key, []).append(s.n)
        return out

    @property
    def invisible_notes(self) -> list[str]:
        """One line for each cited key holding an invisible character (invisible_note), in order of first use."""
        keys = dict.fromkeys(c.key for s in self.sentences for c in s.cites)
        return [note for key in keys if (note := invisible_note(key)) is not None]

    @property
    def suggested(self) -> int:
        return sum(1 for s in self.sentences if s.label == UNCITED and s.supported_by)

    @property
    def exit_code(self) -> int:
        return 1 if self.flagged else 0

    def to_record(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "file": self.file,
            "format": self.format,
            "library": {"collection": self.collection, "papers": self.library_papers},
            "bibliography": list(self.bibliography),
            "checks": list(self.checks),
            "summary": {
                "sentences": len(self.sentences),
                "cited": sum(1 for s in self.sentences if s.cites),
                "flagged": self.flagged,
                "labels": self.counts,
                "suggested_citations": self.suggested,
                "unknown_keys": [{"key": k, "sentences": ns, "invisible": list(invisible_chars(k))}
                                 for k, ns in self.unknown_keys.items()],  # fmt: skip
            },
            "sentences": [s.record(self.file) for s in self.sentences],
            "notes": list(self.notes),
            "seconds": round(self.seconds, 3),
            "exit_code": self.exit_code,
        }
