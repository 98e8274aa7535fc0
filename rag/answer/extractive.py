"""The no-LLM backend: answers made of the retrieved abstracts' own sentences, each with its citation.

Deterministic and grounded by construction. Sentences are ranked by embedding similarity to the question
plus word overlap; questions that ask for a quantity only take sentences that state one; questions about
authors, code or links are answered from the index metadata. When nothing scores well enough the answer
is the fixed refusal sentence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag.answer.abstain import lexical_gap
from rag.answer.backends import Draft, DraftStream, whole
from rag.answer.citations import REFUSAL
from rag.answer.injection import untrusted
from rag.answer.metadata import metadata_answer
from rag.answer.question import Question, part_question
from rag.answer.question_parts import identified_paper, named_papers
from rag.answer.sentence_vectors import SentenceVectors
from rag.index.lexical import tokenize
from rag.ports import ChatModel
from rag.text import split_sentences
from rag.types import Hit

# -- scoring weights, in one place (tuned on the dev split only) ---------------------------------------------------
# score(sentence) = cosine(question, sentence) + OVERLAP_WEIGHT * share of the question's words it contains
#                 + PAPER_PRIOR * the paper's own relevance + FINDING_BONUS if it states a contribution or finding
OVERLAP_WEIGHT = 0.3  # word overlap catches exact terms the embedding blurs
PAPER_PRIOR = 0.3  # sentences of the most relevant paper come first
FINDING_BONUS = 0.05  # "we show / we propose ..." sentences carry the answer more often than background
# a question word also in the paper's title names the paper, not the answer (0.5 lost 3 dev facts)
TITLE_WORD_WEIGHT = 0.0
MIN_SCORE = 0.35  # below this the best sentence does not answer: refuse
KEEP_WITHIN = 0.85  # a further sentence joins the answer when it scores at least this share of the best one
OTHER_PAPER_WITHIN = 0.92  # ... and a sentence of another paper only when it is about as relevant
MULTI_PAPER_WITHIN = 0.75  # for "which papers ..." questions: papers at least this share of the best relevance
SUMMARY_WINDOW = 0.2  # a summary lists the papers within this cosine of the best one
SUMMARY_CONTRIBUTION_BONUS = 0.15  # "what does it propose?" prefers the paper's contribution sentence
MAX_SENTENCES = 3
MAX_PER_PAPER = 2
MAX_PAPERS = 4  # for multi-paper questions

_NUMBER_WORD = re.compile(
    r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundreds?"
    r"|thousands?|millions?|billions?|tens|dozens?|twice|double|half|percent)\b",
    re.IGNORECASE,
)
_FINDING = re.compile(
    r"\b(we|our)\s+(show|find|demonstrate|achieve|observe|reveal)|\b(results?|experiments?) (show|demonstrate)", re.I
)
_CONTRIBUTION = re.compile(r"\b(we|this (paper|work))\s+(propose|introduce|present|develop|design|build)", re.I)
@dataclass(frozen=True)
class Scored:
    n: int  # source number
    position: int
    text: str
    score: float


class ExtractiveBackend:
    """rag.answer.backends.AnswerBackend without an LLM."""

    name = "extractive"
    model = "extractive"
    chat: ChatModel | None = None  # no LLM: follow-ups are rewritten without one

    def __init__(self, vectors: SentenceVectors, min_relevance: float) -> None:
        self.vectors = vectors
        self.min_relevance = min_relevance

    def draft(self, question: Question, hits: Sequence[Hit]) -> DraftStream:
        return whole(self.write(question, hits))

    def write(self, question: Question, hits: Sequence[Hit]) -> Draft:
        if question.mode == "summary":
            return Draft(self.summary(question, hits), self.name, self.model, prompt=self.name)
        # a name or number no source mentions refuses the question; a missing attribute ("which model sizes")
        # refuses a multi-part question only when every part lacks what it asks for
        named = lexical_gap(question, hits, focus=False)
        parts = [question] if len(question.parts) < 2 else [part_question(question, p) for p in question.parts]
        gaps = [lexical_gap(part, hits) for part in parts]
        gap = named or (gaps[0] if all(gaps) else None)
        text = REFUSAL if gap else self.answer(question, hits)
        return Draft(text, self.name, self.model, prompt=self.name, notes=(gap,) if gap else ())

    def _score(self, question: Question, hits: Sequence[Hit], contribution: bool = False) -> list[Scored]:
        """Every quotable sentence of the hits, best first. `contribution`: the question asks what a paper
        proposes, so its contribution sentence ("we introduce ...") gets the summaries' bonus."""
        contribution = contribution or question.wants("contribution")
        candidates = [
            (n, i, s)
            for n, h in enumerate(hits, 1)
            if not untrusted(h)  # a source that gives the model orders is never quoted
            for i, s in enumerate(split_sentences(h.text))
        ]
        if not candidates:
            return []
        vecs = self.vectors([question.text] + [s for _, _, s in candidates])
        sims = vecs[1:] @ vecs[0]
        qwords = set(question.tokens)
        # words of the paper's own title mostly identify the paper, not the answer: they count TITLE_WORD_WEIGHT, so
        # a background sentence that restates the topic does not beat the sentence that answers
        weights_of = {n: {w: TITLE_WORD_WEIGHT if w in title else 1.0 for w in qwords}
                      for n, title in ((n, set(tokenize(h.paper.title))) for n, h in enumerate(hits, 1))}  # fmt: skip
        out = []
        for (n, i, s), sim in zip(candidates, sims, strict=True):
            weights = weights_of[n]
            total = sum(weights.values())
            words = set(tokenize(s)) if total else set()  # once per sentence, not once per question word
            overlap = sum(v for w, v in weights.items() if w in words) / total if total else 0.0
            prior = PAPER_PRIOR * (hits[n - 1].dense_score or 0.0)
            finding = FINDING_BONUS if _CONTRIBUTION.search(s) or _FINDING.search(s) else 0.0
            if contribution and _CONTRIBUTION.search(s):
                finding = SUMMARY_CONTRIBUTION_BONUS
            out.append(Scored(n, i, s, float(sim) + OVERLAP_WEIGHT * overlap + prior + finding))
        return sorted(out, key=lambda c: -c.score)

    def answer(self, question: Question, hits: Sequence[Hit]) -> str:
        if not hits:
            return REFUSAL
        meta = metadata_answer(question.metadata, hits)
        if meta:
            return meta
        scored = self._score(question, hits)
        if question.wants("quantity"):
            scored = [c for c in scored if _NUMBER_WORD.search(c.text)]
        named = named_papers(question.text, hits)
        meant = identified_paper(question.text, hits)
        multi = question.wants("list") or question.wants("comparison")
        if meant is not None and len(named) < 2 and not multi:  # "the Zorp123 benchmark"
            own = [c for c in scored if c.n == meant]
            scored = own if own and own[0].score >= MIN_SCORE else scored
        if not scored or scored[0].score < MIN_SCORE:
            return REFUSAL
        if len(named) >= 2 or multi:  # a sentence from each paper named, or each relevant one
            per = self._score(question, hits, contribution=True)
            return self._per_paper(per, hits, only=named if len(named) >= 2 else ())
        chosen = self._chosen(scored)
        if len(question.parts) > 1:  # a multi-part question gets a sentence for every part
            self.vectors(list(question.parts))  # the parts' vectors in one model call, not one call each
            for part in (part_question(question, p) for p in question.parts):
                best = self._score(part, hits)
                if part.wants("quantity"):
                    best = [c for c in best if _NUMBER_WORD.search(c.text)]
                new = best and best[0].score >= MIN_SCORE and all(c.text != best[0].text for c in chosen)
                if new and len(chosen) < MAX_SENTENCES + 1:
                    chosen.append(best[0])
        chosen.sort(key=lambda c: (c.n, c.position))  # read paper by paper, in the abstract's order
        return " ".join(f"{c.text.rstrip()} [{c.n}]" for c in chosen)

    def _chosen(self, scored: list[Scored]) -> list[Scored]:
        """The best sentences for the whole question: the top one, and the next ones nearly as good."""
        chosen: list[Scored] = []
        per_paper: dict[int, int] = {}
        top = scored[0]
        for c in scored:
            if len(chosen) >= MAX_SENTENCES or c.score < KEEP_WITHIN * top.score:
                break
            if c.n != top.n and c.score < OTHER_PAPER_WITHIN * top.score:
                continue
            if per_paper.get(c.n, 0) < MAX_PER_PAPER:
                chosen.append(c)
                per_paper[c.n] = per_paper.get(c.n, 0) + 1
        return chosen

    def _per_paper(self, scored: list[Scored], hits: Sequence[Hit], only: Sequence[int] = ()) -> str:
        """For questions about several papers: the best sentence of each paper about as relevant as the best one
        (or of each paper the question names)."""
        best = max((h.dense_score or 0.0) for h in hits)
        picked: dict[int, Scored] = {}
        for c in scored:
            relevant = c.n in only if only else (hits[c.n - 1].dense_score or 0.0) >= MULTI_PAPER_WITHIN * best
            if c.n not in picked and relevant and len(picked) < MAX_PAPERS:
                picked[c.n] = c
        return " ".join(f"{c.text.rstrip()} [{c.n}]" for c in sorted(picked.values(), key=lambda c: c.n))

    def summary(self, question: Question, hits: Sequence[Hit]) -> str:
        """One line per relevant paper: its most on-topic contribution sentence, cited."""
        top = max((h.dense_score or 0.0) for h in hits) if hits else 0.0
        keep = [
            (n, h)
            for n, h in enumerate(hits, 1)
            if (h.dense_score or 0.0) >= max(self.min_relevance, top - SUMMARY_WINDOW) and not untrusted(h)
        ]
        if not keep:
            return REFUSAL
        lines = [f"{len(keep)} relevant paper{'s' if len(keep) > 1 else ''}:"]
        for n, h in keep:
            sentences = split_sentences(h.text)
            vecs = self.vectors([question.text, *sentences])
            sims = vecs[1:] @ vecs[0]
            # the paper's contribution ("we propose ..."), not its background: the most on-topic contribution
            # sentence when the abstract has one
            contributions = [i for i, s in enumerate(sentences) if _CONTRIBUTION.search(s)]
            pool = contributions or list(range(len(sentences)))
            best = sentences[max(pool, key=lambda i: float(sims[i]))]
            lines.append(f"- {h.paper.title}: {best.rstrip()} [{n}]")
        return "\n".join(lines)
