"""The small typed values that flow through the pipeline. No logic lives here (`Answer.to_record` only lays the
answer out as JSON-safe values).

papers -> chunks -> vectors -> hits -> prompt -> completion -> Answer
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rag.safe_text import safe_url


@dataclass(frozen=True)
class Section:
    """A piece of a paper's full text (a PDF indexed with --full-text): one section's text on one page."""

    page: int  # 1-based page of the PDF
    heading: str | None  # "3.2 Training objective"; None before the first heading
    text: str


@dataclass(frozen=True)
class AbstractSection:
    """One labelled part of a structured abstract ("RESULTS", "Conclusions"), as the source labelled it."""

    label: str
    text: str


@dataclass(frozen=True)
class Paper:
    """One paper: its abstract and whatever metadata the source gave."""

    id: str
    title: str
    abstract: str
    authors: tuple[str, ...] = ()
    year: int | None = None
    venue: str | None = None
    url: str | None = None
    code_url: str | None = None
    arxiv_id: str | None = None
    source: str = ""  # file the paper was read from, for error messages
    doi: str | None = None  # bare DOI ("10.1000/xyz"), no resolver prefix
    body: tuple[Section, ...] = ()  # full text beyond the abstract, when it was read (PDFs with --full-text)
    abstract_sections: tuple[AbstractSection, ...] = ()  # a structured abstract's labelled parts, if the source has any
    # (short form, long form) the abstract defines, found at index time (rag.corpus.abbreviations); None: an index
    # written before they were stored (the answer finds them in the text then)
    abbreviations: tuple[tuple[str, str], ...] | None = None


@dataclass(frozen=True)
class Calibration:
    """The relevance floors a collection derived from its own papers when it was indexed (rag.index.calibration):
    the similarity at which a question made of a paper's own sentence still finds that paper first `target` of
    the time. Below `floor` (question to passage) or `sentence_floor` (question to sentence) a match says too
    little about which paper a question is about."""

    floor: float  # cosine of question and passage
    sentence_floor: float | None  # cosine of question and sentence; None when sentence vectors were not stored
    target: float  # the share of pseudo-questions that find their own paper first at the floor
    questions: int  # pseudo-questions it was derived from ...
    papers: int  # ... drawn from this many papers
    fingerprint: str  # of the index it was derived from
    sentence_target: float = 0.5  # the share at the sentence floor

    def describe(self) -> str:
        return (f"relevance floor {self.floor:.2f} (calibrated on {self.questions:,} sentences of {self.papers:,} "
                "papers)")


@dataclass(frozen=True)
class Chunk:
    """A token window of one paper's abstract, the unit that is embedded and searched."""

    id: str  # "<paper_id>:<position>"
    paper_id: str
    position: int
    text: str  # the abstract window shown to readers and to the LLM
    num_tokens: int
    content_hash: str  # hash of everything that goes into the embedding
    page: int | None = None  # full-text chunks: the PDF page the window starts on ...
    page_end: int | None = None  # ... and the page it ends on
    section: str | None = None  # full-text chunks: the heading of the section the window is in


@dataclass(frozen=True)
class Hit:
    """A retrieved chunk with the paper it belongs to and how it scored."""

    paper: Paper
    chunk_id: str
    text: str
    score: float  # fused relevance in [0, 1]; higher is better
    dense_score: float | None = None  # cosine similarity, when the dense search found it
    lexical_score: float | None = None  # BM25 score, when the lexical search found it
    num_tokens: int = 0
    page: int | None = None  # a full-text chunk's first page ...
    page_end: int | None = None  # ... and last page
    section: str | None = None  # a full-text chunk's section heading
    roles: tuple[str, ...] = ()  # rag.corpus.roles role of each sentence of `text` (split_sentences); () = not known


@dataclass(frozen=True)
class Citation:
    """A numbered reference in an answer. Built from index metadata, never from model text."""

    n: int
    paper_id: str
    title: str
    url: str | None
    page: int | None = None  # the cited passage's page(s), for full-text chunks
    page_end: int | None = None


# What the sentence check found, one label per checked sentence. Each says what was checked, so a user can tell
# "this is false" from "I could not confirm this" (the labels of ALCE and SciFact):
SUPPORTED = "supported"  # a sentence of a cited paper says it (the evidence)
NOT_FOUND = "not found"  # a specific term or number of the sentence is absent from the paper it cites, or nothing
#                          the cited paper says is close enough: not confirmed, not refuted
CONTRADICTED = "contradicted"  # an evidence sentence of the cited paper states the opposite: polarity, the direction
#                                of a comparison, a different number for the same quantity
WRONG_PAPER = "wrong paper"  # another retrieved paper supports it; the cited one does not
UNCITED = "uncited"  # the sentence cites no source (nothing to check it against)
CHECK_LABELS = (SUPPORTED, NOT_FOUND, CONTRADICTED, WRONG_PAPER, UNCITED)


@dataclass(frozen=True)
class SentenceCheck:
    """How one answer sentence fared against the sources it cites."""

    sentence: str  # as in the answer, [n] markers kept
    cited: tuple[int, ...]  # source numbers it cites
    label: str  # one of CHECK_LABELS
    reason: str | None = None  # why not, in words ("78% is not in [1]", "cites no retrieved source")
    evidence: tuple[tuple[int, str], ...] = ()  # (source number, source sentence) that back it best, or contradict it
    checks: tuple[str, ...] = ("offline",)  # which checks judged it
    supported_by: tuple[int, ...] = ()  # WRONG_PAPER: the retrieved sources (numbers) that do support it

    @property
    def supported(self) -> bool:
        return self.label == SUPPORTED


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True)
class Answer:
    """What `rag.ask` returns: the text, what it cites, and how it was made."""

    question: str  # as the user asked it
    standalone_question: str  # after follow-up rewriting (same as question when no history)
    text: str
    citations: tuple[Citation, ...]
    sources: tuple[Hit, ...]
    abstained: bool
    unsupported: tuple[str, ...]  # sentences no cited source supports
    backend: str
    model: str
    prompt: str  # "<prompt name>@<sha256 prefix>"
    usage: Usage = field(default_factory=Usage)
    latency_s: float = 0.0
    removed_citations: int = 0  # markers that pointed at no retrieved source
    complete: bool = True  # False when the stream broke off
    checked_sentences: int = 0  # answer sentences the support check judged
    notes: tuple[str, ...] = ()  # e.g. "fell back to extractive: no supported sentence"
    mode: str = "answer"  # "answer" or "summary"
    abstain_reason: str | None = None  # why it refused before any backend wrote a word (None: it did not)
    checks: tuple[str, ...] = ()  # the support checks that judged the sentences: "offline", "llm"
    sentence_checks: tuple[SentenceCheck, ...] = ()  # one per checked sentence, in answer order

    def to_record(self) -> dict[str, Any]:
        """The answer as JSON-safe values: `rag ask --json` prints it, the run log stores it."""
        return {
            "question": self.question,
            "standalone_question": self.standalone_question,
            "answer": self.text,
            "mode": self.mode,
            "citations": [
                {"n": c.n, "paper_id": c.paper_id, "title": c.title, "url": safe_url(c.url), "page": c.page,
                 "page_end": c.page_end}
                for c in self.citations
            ],
            "sources": [
                {
                    "n": n,
                    "paper_id": h.paper.id,
                    "title": h.paper.title,
                    "url": safe_url(h.paper.url),
                    "score": round(h.score, 4),
                    "relevance": None if h.dense_score is None else round(h.dense_score, 4),
                    "page": h.page,
                    "page_end": h.page_end,
                    "section": h.section,
                }
                for n, h in enumerate(self.sources, 1)
            ],
            "abstained": self.abstained,
            "unsupported": list(self.unsupported),
            "checked_sentences": self.checked_sentences,
            "removed_citations": self.removed_citations,
            "abstain_reason": self.abstain_reason,
            "checks": list(self.checks),
            "sentence_checks": [
                {
                    "sentence": c.sentence,
                    "cited": list(c.cited),
                    "supported": c.supported,
                    "label": c.label,
                    "reason": c.reason,
                    "supported_by": list(c.supported_by),
                    "evidence": [{"n": n, "text": text} for n, text in c.evidence],
                }
                for c in self.sentence_checks
            ],
            "complete": self.complete,
            "backend": self.backend,
            "model": self.model,
            "prompt": self.prompt,
            "usage": {"prompt_tokens": self.usage.prompt_tokens, "completion_tokens": self.usage.completion_tokens},
            "latency_s": round(self.latency_s, 4),
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class SourcesEvent:
    """First event of a streamed answer: what was retrieved, before any text."""

    standalone_question: str
    hits: tuple[Hit, ...]
    mode: str
    backend: str


@dataclass(frozen=True)
class DeltaEvent:
    """A piece of answer text as it streams (not yet verified)."""

    text: str


@dataclass(frozen=True)
class AnswerEvent:
    """Last event: the verified answer."""

    answer: Answer


Event = SourcesEvent | DeltaEvent | AnswerEvent
