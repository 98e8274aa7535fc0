"""The no-LLM backend: answers made of the retrieved abstracts' own sentences, each with its citation.

Deterministic and grounded by construction. Sentences are scored by rag.answer.sentence_scores (a score learned
from dev questions over similarity, word overlap, the paper's relevance, the sentence's role, a stated number); the
answer leads with the result or conclusion that answers and quotes an aim only when the question asks for one.
Questions that ask for a quantity only take sentences that state one; questions about authors, code or links are
answered from the index metadata; lists, comparisons and summaries give one cited line per paper
(rag.answer.paper_lines). When no sentence addresses the question well enough (its similarity is below the
library's sentence floor, or its score below the calibrated `min_score`) the answer is the fixed refusal sentence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from rag.answer import paper_lines, paper_pick, sentence_rank
from rag.answer.absent_model import absent_detail
from rag.answer.absent_value import asked_value, name_gap, value_gap
from rag.answer.abstain import Floors, lexical_gap
from rag.answer.backends import Draft, DraftStream, whole
from rag.answer.citations import REFUSAL
from rag.answer.counting import NUMBER_WORD, counts, states_value
from rag.answer.definitions import definition
from rag.answer.library import authored, authorship_answer, restricted
from rag.answer.metadata import metadata_answer
from rag.answer.paper_focus import paper_gap
from rag.answer.paper_lines import relevance
from rag.answer.question import Question, part_question
from rag.answer.question_parts import identified_paper, named_papers, side_paper
from rag.answer.savings import smaller_nouns, states_amount
from rag.answer.sentence_scores import Scored, score_sentences
from rag.corpus.lexicon import stem
from rag.corpus.roles import CONCLUSION, OBJECTIVE
from rag.ports import ChatModel
from rag.types import Hit
from rag.verify.sentence_vectors import SentenceVectors

KEEP_WITHIN = 0.85  # a further sentence joins the answer when it scores at least this share of the best one
OTHER_PAPER_WITHIN = 0.92  # ... and a sentence of another paper only when it is about as relevant
OTHER_RELEVANCE_WITHIN = 0.85  # ... and that paper is about as relevant to the question as the answering one
MAX_SENTENCES = 3
MAX_PER_PAPER = 2
FINDING_WITHIN = 0.7  # the answering paper's best finding leads when it scores at least this share of the best
CONCLUSION_FIRST = 0.1  # a yes/no question: its conclusion before a result that scores up to this much more


def min_score() -> float:
    """Below this the best sentence does not answer: refuse (calibrated with the learned sentence score,
    rag.answer.sentence_rank)."""
    return sentence_rank.stored().min_score


class ExtractiveBackend:
    """rag.answer.backends.AnswerBackend without an LLM."""

    name = "extractive"
    model = "extractive"
    chat: ChatModel | None = None  # no LLM: follow-ups are rewritten without one

    def __init__(self, vectors: SentenceVectors, floors: Floors | float | Callable[[], Floors]) -> None:
        """`floors`: fixed, or read at every answer (a collection re-indexed while serving is calibrated anew)."""
        self.vectors = vectors
        if callable(floors):
            self._floors = floors
        else:
            fixed = floors if isinstance(floors, Floors) else Floors(float(floors))
            self._floors = lambda: fixed

    @property
    def floors(self) -> Floors:
        return self._floors()

    def draft(self, question: Question, hits: Sequence[Hit]) -> DraftStream:
        return whole(self.write(question, hits))

    def write(self, question: Question, hits: Sequence[Hit]) -> Draft:
        if question.mode == "summary":
            scored = score_sentences(question, hits, self.vectors, contribution=True)
            text = paper_lines.summary(scored, hits, self.floors.relevance) if hits else REFUSAL
            return Draft(text, self.name, self.model, prompt=self.name)
        # a name or number no source mentions refuses the question; a missing attribute ("which model sizes")
        # refuses a multi-part question only when every part lacks what it asks for
        missing = lexical_gap(question, hits, focus=False)
        parts = [question] if len(question.parts) < 2 else [part_question(question, p) for p in question.parts]
        named = {text: named_papers(text, hits) for text in dict.fromkeys(p.text for p in (question, *parts))}
        gaps = [lexical_gap(part, hits) or paper_gap(part, hits, named[part.text]) for part in parts]
        gap = missing or (gaps[0] if all(gaps) else None)
        # a count or number the sources never state ("how many nodes" where PieClam speaks of nodes, counts none).
        # An LLM is not refused before it speaks: on the recorded held-out answers the model refused every question
        # this refuses, and a refusal before the model spoke counts against the answers it wrote (those gates sit
        # at their limits); a count it invents is unsupported, and this refusal replaces it
        gap = gap or value_gap(question, hits, self.floors.relevance, named[question.text])
        gap = gap or name_gap(question, hits, named[question.text], self.vectors)  # "which optimizer ..." likewise
        # what the rules cannot read for sure: rag.answer.absent_model, the same call an LLM gets before it speaks
        gap = gap or absent_detail(question, hits, self.floors, self.vectors, named[question.text])
        text = REFUSAL if gap else self.answer(question, hits, named[question.text])
        unlisted = "no retrieved paper is on the question's topic closely enough to be listed"  # list_keep, its cut
        refused = unlisted if question.wants("list") else "no retrieved sentence addresses the question closely enough"
        note = gap or (refused if text == REFUSAL else None)
        return Draft(text, self.name, self.model, prompt=self.name, notes=(note,) if note else ())

    def _scored(
        self, question: Question, hits: Sequence[Hit], contribution: bool = False, scored: list[Scored] | None = None
    ) -> list[Scored]:
        """The sentences that may answer, best first (`scored`: all of them, when scored already)."""
        scored = score_sentences(question, hits, self.vectors, contribution) if scored is None else scored
        if question.wants("quantity"):
            scored = [c for c in scored if NUMBER_WORD.search(c.text)]
            noun = question.counted if len(question.parts) < 2 else None
            meant = identified_paper(question.text, hits)  # "the Zorp123 benchmark": what that paper speaks of
            about = [c for c in scored if same_paper(hits, c.n, meant)] if meant is not None else scored
            if noun and any(stem(noun) in {stem(w) for w in re.findall(r"\w+", c.text.lower())} for c in about):
                # "how many X" where the sources speak of X: a count of X answers, not any number (when they never
                # name X, the question may name it in other words: any number may answer)
                scored = [c for c in scored if counts(c.text, noun)]
        if any(h.page is not None for h in hits) and asked_value(question) == "number":  # full text: "what weight
            # decay": a sentence giving the attribute a value ("a weight decay of 0.0001"), when one answers well enough
            valued = [c for c in scored if any(states_value(c.text, phrase) for phrase in question.focus)]
            scored = valued if valued and valued[0].score >= min_score() else scored
        # "which of them saves parameters?": the sentences that say by how much. Not for a list (every paper that
        # addresses it is listed), "how much" (its numbers are chosen above) or yes/no (its conclusion answers)
        other = question.wants("list") or question.wants("quantity") or question.wants("yes_no")
        smaller = frozenset() if other else smaller_nouns(question.asked)
        stated = [c for c in scored if states_amount(c.text, smaller)] if smaller else []
        if stated and stated[0].score >= min_score():
            scored = stated
        if not question.wants("aim"):  # an aim restates the question: quoted only when nothing else answers
            findings = [c for c in scored if c.role != OBJECTIVE]
            scored = findings if findings and findings[0].score >= min_score() else scored
        return scored

    def answer(self, question: Question, hits: Sequence[Hit], named: list[int]) -> str:
        """The answer from the sources; `named`: the sources the question names (rag.answer.question_parts)."""
        if not hits:
            return REFUSAL
        meta = metadata_answer(question.metadata, hits) or authorship_answer(question, hits)
        if meta:
            return meta
        defined = definition(question, hits)  # "what does KDS stand for": the sentence that defines it
        lead = f"{defined.sentence} [{defined.n}]" if defined else None
        if defined and defined.expansion_only:
            return f"{defined.sentence} [{defined.n}]"
        mine = restricted(question, hits)  # "Zilberg's paper", "at ICML": only those papers answer
        by = authored(question, hits)  # ... and a named author's paper answers however the question is worded
        if question.wants("recommendation") and not mine:  # "which paper should I read": its title, then why
            picked = self._scored(question, hits, contribution=True)
            return (paper_pick.recommendation(picked, hits) if picked and picked[0].score >= min_score() else None) or (
                lead or REFUSAL
            )
        if question.wants("list"):
            scored = self._scored(question, hits, contribution=True)
            scored = [c for c in scored if c.n in mine] or scored if mine else scored
            return paper_lines.paper_list(scored, hits, self.floors.relevance, len(question.parts) < 2, question.text,
                                          chosen_by_metadata=bool(mine))  # fmt: skip
        if question.wants("comparison") or len(named) >= 2:
            sides = [n for n in (side_paper(side, hits) for side in question.sides) if n is not None]
            compared = list(dict.fromkeys(sides)) if len(set(sides)) >= 2 else named
            return paper_lines.comparison(self._scored(question, hits, contribution=True), hits, compared)
        everything = score_sentences(question, hits, self.vectors)
        if not everything or max(c.similarity for c in everything) < self.floors.sentence and not by:
            return lead or REFUSAL  # no retrieved sentence is close enough to the question to address it
        scored = self._scored(question, hits, scored=everything)
        meant = identified_paper(question.text, hits)
        if meant is None and question.wants("two_step"):  # "the paper whose scorer is X: how many ...": that paper
            meant = paper_pick.two_step_paper(question.text, hits)
        if meant is not None and len(named) < 2:  # "the Zorp123 benchmark"
            own = [c for c in scored if same_paper(hits, c.n, meant)]
            scored = own if own and own[0].score >= min_score() else scored
        if mine:  # the author or venue named the papers: their best sentences answer
            scored = [c for c in scored if c.n in mine] or scored
        if not scored or scored[0].score < min_score() and not by:
            return lead or REFUSAL
        chosen = self._chosen(scored, hits)
        if len(question.parts) > 1:  # a multi-part question gets a sentence for every part
            self.vectors(list(question.parts))  # the parts' vectors in one model call, not one call each
            for part in (part_question(question, p) for p in question.parts):
                best = self._scored(part, hits)
                new = best and best[0].score >= min_score() and all(c.text != best[0].text for c in chosen)
                if new and len(chosen) < MAX_SENTENCES + 1:
                    chosen.append(best[0])
        if not question.wants("aim"):
            chosen = with_finding(question, scored, chosen)
        quoted = [c.quoted() for c in lead_with_finding(question, chosen)]
        if defined and lead:  # the defining sentence first, then the others
            quoted = [lead, *(q for c, q in zip(lead_with_finding(question, chosen), quoted, strict=True)
                              if not (c.n == defined.n and c.text == defined.sentence))][:MAX_SENTENCES]  # fmt: skip
        return " ".join(quoted)

    def _chosen(self, scored: list[Scored], hits: Sequence[Hit]) -> list[Scored]:
        """The best sentences for the whole question: the top one, and the next ones nearly as good."""
        chosen: list[Scored] = []
        per_paper: dict[int, int] = {}
        top = scored[0]
        for c in scored:
            if len(chosen) >= MAX_SENTENCES or c.score < KEEP_WITHIN * top.score:
                break
            if c.n != top.n and (c.score < OTHER_PAPER_WITHIN * top.score or relevance(hits[c.n - 1])
                                 < OTHER_RELEVANCE_WITHIN * relevance(hits[top.n - 1])):  # fmt: skip
                continue
            if per_paper.get(c.n, 0) < MAX_PER_PAPER:
                chosen.append(c)
                per_paper[c.n] = per_paper.get(c.n, 0) + 1
        return chosen


def same_paper(hits: Sequence[Hit], n: int, m: int) -> bool:
    """Sources n and m are windows of one paper (a full-text paper may be retrieved as several)."""
    return hits[n - 1].paper.id == hits[m - 1].paper.id


def _finding_rank(question: Question, c: Scored) -> float:
    """A yes/no question is answered by the conclusion before the numbers that back it."""
    return c.score + (CONCLUSION_FIRST if c.role == CONCLUSION and question.wants("yes_no") else 0.0)


def with_finding(question: Question, scored: Sequence[Scored], chosen: list[Scored]) -> list[Scored]:
    """The chosen sentences, and the best result or conclusion of the paper that answers when none of them is one
    and it scores nearly as well (FINDING_WITHIN of the best sentence)."""
    if not chosen or any(c.finding for c in chosen):
        return chosen
    top = chosen[0]
    findings = [c for c in scored if c.n == top.n and c.finding and c.score >= FINDING_WITHIN * top.score]
    return [max(findings, key=lambda c: _finding_rank(question, c)), *chosen] if findings else chosen


def lead_with_finding(question: Question, chosen: Sequence[Scored]) -> list[Scored]:
    """The answer's order: first the best result or conclusion (else the best sentence), then the others paper by
    paper, in the abstract's order."""
    if not chosen:
        return []
    findings = [c for c in chosen if c.finding]
    lead = max(findings, key=lambda c: _finding_rank(question, c)) if findings else chosen[0]
    rest = sorted((c for c in chosen if c is not lead), key=lambda c: (c.n, c.position))
    return [lead, *rest]
