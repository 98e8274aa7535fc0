"""The RAG step: route -> retrieve -> abstain -> draft -> verify.

Whatever the backend, the draft is checked the same way (rag.answer.checked): unknown markers are removed, each
sentence is checked against the sources it cites, and an LLM answer with no supported sentence is replaced by
the extractive one. An LLM endpoint that fails before its first word also falls back to the extractive answer.
"""

from __future__ import annotations

import re
import time
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from rag.answer.abstain import retrieval_refusal
from rag.answer.backends import AnswerBackend, ChatProvider, Draft
from rag.answer.checked import Checked, SecondOpinion, check
from rag.answer.citations import REFUSAL, citations_for, parse_markers
from rag.answer.deadline import BoundedChat, Deadline
from rag.answer.extractive import ExtractiveBackend, Floors
from rag.answer.followup import condense
from rag.answer.language import language_note
from rag.answer.llm_backend import LLMBackend
from rag.answer.paper_pick import two_step_parts
from rag.answer.question import Question, analyse
from rag.answer.runlog import append as log_answer
from rag.errors import LLMError, QuestionError
from rag.filters import Filters
from rag.ports import Message, SupportJudge
from rag.retrieve.companions import companions
from rag.retrieve.crosslingual import CrossLingualEmbedder
from rag.retrieve.retriever import Retriever
from rag.retrieve.whole_abstracts import whole_abstracts
from rag.settings import DEFAULT_MIN_RELEVANCE, AnswerSettings
from rag.types import Answer, AnswerEvent, DeltaEvent, Event, Hit, SourcesEvent, Usage
from rag.verify.checker import checker_for
from rag.verify.second_opinion import llm_check
from rag.verify.sentence_vectors import SentenceVectors

# controls, and lone surrogates (what undecodable bytes in argv become): the embedder's tokenizer rejects them
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")


def clean_question(question: str, max_chars: int) -> str:
    text = _CONTROL.sub(" ", question or "").strip()
    if not text:
        raise QuestionError("the question is empty; ask something about the papers")
    if len(text) > max_chars:
        raise QuestionError(f"the question is {len(text):,} characters long; the limit is {max_chars:,}")
    return re.sub(r"\s+", " ", text)


@dataclass(frozen=True)
class Route:
    """What the question is and who answers it."""

    question: str  # cleaned, as asked
    analysed: Question  # the standalone question (after follow-up rewriting), analysed once for every judge
    backend: AnswerBackend
    usage: Usage  # tokens spent on rewriting
    deadline: Deadline  # for every LLM call of this answer

    @property
    def standalone(self) -> str:
        return self.analysed.text

    @property
    def mode(self) -> str:
        return self.analysed.mode


LIST_K = 10  # sources for a "which papers ..." question (at least twice k)


def language_notes(route: Route, crosslingual: bool) -> tuple[str, ...]:
    """The note for a question not written in English (rag.answer.language), whichever backend answers. What is
    matched is judged: the standalone question (a follow-up an LLM rewrote into English is matched as English)."""
    note = language_note(route.standalone, crosslingual)
    return (note,) if note else ()


class Assistant:
    """Holds the opened index, the embedder and the answer backends; answers many questions (thread-safe)."""

    def __init__(
        self, settings: AnswerSettings, retriever: Retriever, chats: ChatProvider, *, runlog: Path | None = None,
        judge: SupportJudge | None = None,
    ) -> None:
        self.settings = settings
        self.retriever = retriever
        self.chats = chats
        self.runlog = runlog
        self.vectors = SentenceVectors(retriever.embedder)
        self.checker = checker_for(settings, self.vectors, judge)
        self.extractive = ExtractiveBackend(self.vectors, self.floors)

    def close(self) -> None:
        self.chats.close()

    def floors(self) -> Floors:
        """The relevance floors in force: the min_relevance setting when it is a number, else the floor the collection
        was calibrated to at index time (DEFAULT_MIN_RELEVANCE without one); the sentence floor is always the
        calibrated one (0 without)."""
        calibration, setting = self.retriever.calibration, self.retriever.settings.min_relevance
        sentence = (calibration.sentence_floor or 0.0) if calibration else 0.0
        if setting is not None:
            return Floors(setting, sentence, "the min_relevance setting")
        if calibration is None:
            return Floors(DEFAULT_MIN_RELEVANCE, sentence, "the default")
        return Floors(calibration.floor, sentence, "calibrated on the library")

    def backend_for(self, llm: str | None) -> str:
        llm = llm or self.settings.llm
        if llm == "auto":
            return "openai" if self.chats.configured() else "extractive"
        return llm

    def backend(self, llm: str | None, model: str | None = None, deadline: Deadline | None = None) -> AnswerBackend:
        """The backend for `llm`; an LLM's every call for this answer ends by `deadline` (default: one
        answer_deadline_s from now) and within its max_tokens (rag.answer.deadline)."""
        name = self.backend_for(llm)
        if name == "extractive":
            return self.extractive
        deadline = deadline or Deadline(self.settings.answer_deadline_s)
        return LLMBackend(BoundedChat(self.chats.chat(name, model), deadline), self.settings)

    # -- the RAG step ---------------------------------------------------------------------------
    def ask_stream(
        self,
        question: str,
        history: Sequence[Message] = (),
        *,
        llm: str | None = None,
        model: str | None = None,
        k: int | None = None,
        filters: Filters | None = None,
        summary: bool | None = None,
    ) -> Iterator[Event]:
        started = time.perf_counter()
        route = self.route(question, history, llm=llm, model=model, summary=summary)
        hits = self.retrieve(route, k, filters)
        yield SourcesEvent(route.standalone, hits, route.mode, route.backend.name)

        agree = lambda: self.retrievers_agree(route.standalone, filters)  # noqa: E731  (asked only below the floor)
        reason = retrieval_refusal(route.analysed, hits, self.floors(), agree)
        if reason:
            backend = route.backend
            draft = Draft(REFUSAL, backend.name, backend.model, "refusal", notes=(reason,), refused_before=reason)
            yield DeltaEvent(REFUSAL)
        else:
            draft = yield from self._draft(route, hits)
        answer = self.verify(route, draft, hits)
        answer = replace(answer, latency_s=time.perf_counter() - started)
        if self.runlog is not None:
            log_answer(self.runlog, answer)
        yield AnswerEvent(answer)

    def ask(self, question: str, history: Sequence[Message] = (), **kwargs: object) -> Answer:
        for event in self.ask_stream(question, history, **kwargs):  # type: ignore[arg-type]
            if isinstance(event, AnswerEvent):
                return event.answer
        raise AssertionError("ask_stream ended without an answer")

    def route(
        self,
        question: str,
        history: Sequence[Message],
        *,
        llm: str | None,
        model: str | None,
        summary: bool | None,
    ) -> Route:
        q = clean_question(question, self.settings.max_question_chars)
        deadline = Deadline(self.settings.answer_deadline_s)
        backend = self.backend(llm, model, deadline)
        recent = list(history)[-2 * self.settings.max_history_turns :]
        standalone, usage = condense(q, recent, backend.chat, self.settings.prompts_dir)
        wording = analyse(q, None)  # --summary / --no-summary decide; else the question's own wording
        mode = "summary" if summary or (summary is None and wording.mode == "summary") else "answer"
        # the same text in the same mode is the same analysis: analysed once (it is most of the routing's time)
        same = standalone == q and mode == wording.mode
        return Route(q, wording if same else analyse(standalone, mode), backend, usage, deadline)

    def retrievers_agree(self, query: str, filters: Filters | None) -> bool:
        """The dense search and BM25 alone rank the same paper first."""
        dense = self.retriever.search(query, 1, filters=filters, mode="dense")
        lexical = self.retriever.search(query, 1, filters=filters, mode="lexical")
        return bool(dense and lexical) and dense[0].paper.id == lexical[0].paper.id

    def retrieve(self, route: Route, k: int | None, filters: Filters | None) -> tuple[Hit, ...]:
        retrieval = self.retriever.settings
        question, budget = route.analysed, retrieval.context_tokens
        if question.years != (None, None) and not (filters and filters.has_year_range):  # "papers from 2024"
            filters = replace(filters or Filters(), year_min=question.years[0], year_max=question.years[1])
        if k is None:  # an explicit 0 is refused by the retriever, not silently replaced by the default
            k = 2 * retrieval.k if route.mode == "summary" else retrieval.k
            if question.wants("list"):  # "which papers ...": room for every paper that addresses it
                k, budget = min(retrieval.max_k, max(2 * retrieval.k, LIST_K)), 2 * budget
        found = self.retriever.search(route.standalone, k, filters=filters, token_budget=budget)
        given = two_step_parts(question.text) if question.wants("two_step") else None
        # a comparison: each side's best paper, even when the whole question misses it; a two-step question: the
        # best paper for the property that identifies the paper ("the paper whose scorer is X: ...")
        for side in (*question.sides, *(given[:1] if given else ())):
            best = self.retriever.search(side, 1, filters=filters)
            if best and all(h.paper.id != best[0].paper.id for h in found):
                found.append(best[0])
        if route.mode == "answer" and not (question.wants("list") or question.wants("comparison")):
            found += companions(self.retriever, route.standalone, found, filters, budget)  # full text: more windows
        # each window widened to its whole abstract (the conclusion is most often in the last window); what is
        # embedded already is not embedded again: the search's query vector and the sentence vectors stored
        hits, stored = whole_abstracts(found, self.retriever)
        self.vectors.remember([(route.standalone, self.retriever.query_vector(route.standalone)), *stored])
        return hits

    def _draft(self, route: Route, hits: Sequence[Hit]) -> Generator[Event, None, Draft]:
        """Stream the backend's draft; an LLM endpoint that fails before its first word gives the extractive one."""
        stream = route.backend.draft(route.analysed, hits)
        try:
            for delta in stream:
                yield DeltaEvent(delta)
        except LLMError as exc:
            fallback = self.extractive.write(route.analysed, hits)
            yield DeltaEvent(fallback.text)
            return replace(fallback, notes=(f"{exc}; showing the extractive answer instead",))
        assert stream.draft is not None
        return stream.draft

    def verify(self, route: Route, draft: Draft, hits: Sequence[Hit]) -> Answer:
        checked = check(draft, hits, self.checker, self._second_opinion(route, draft))
        if draft.backend != self.extractive.name and draft.complete and checked.nothing_supported:
            fallback = self.extractive.write(route.analysed, hits)
            note = (
                f"no sentence of the {draft.backend} answer was supported by its sources; showing the extractive answer"
            )
            redo = check(fallback, hits, self.checker)
            checked = replace(
                redo, notes=(*checked.notes, note, *redo.notes), removed_citations=checked.removed_citations,
                usage=checked.usage,
            )
            draft = replace(fallback, usage=draft.usage)
        return self._answer(route, draft, checked, hits)

    def _second_opinion(self, route: Route, draft: Draft) -> SecondOpinion | None:
        """The LLM check, when the settings ask for it: "llm" always (with the answer's model, else the configured
        endpoint), "auto" for answers an LLM endpoint wrote, but not the packaged SmolLM2 (too weak to judge)."""
        mode = self.settings.verify
        chat = route.backend.chat if draft.backend == route.backend.name else None
        if mode == "offline" or draft.backend == self.extractive.name and mode == "auto":
            return None
        if mode == "auto" and (chat is None or not self.chats.capable(chat)):
            return None
        if chat is None:
            if not self.chats.configured():
                return None
            chat = BoundedChat(self.chats.chat("openai", None), route.deadline)
        judge = chat
        return lambda claims: llm_check(judge, claims, self.settings.prompts_dir)

    def _answer(self, route: Route, draft: Draft, checked: Checked, hits: Sequence[Hit]) -> Answer:
        usage = Usage(
            route.usage.prompt_tokens + draft.usage.prompt_tokens,
            route.usage.completion_tokens + draft.usage.completion_tokens,
        )
        usage = Usage(usage.prompt_tokens + checked.usage.prompt_tokens,
                      usage.completion_tokens + checked.usage.completion_tokens)  # fmt: skip
        return Answer(
            question=route.question,
            standalone_question=route.standalone,
            text=checked.text,
            citations=() if checked.abstained else citations_for(parse_markers(checked.text), hits),
            sources=tuple(hits),
            abstained=checked.abstained,
            unsupported=checked.unsupported,
            checked_sentences=checked.checked,
            checks=checked.checks,
            sentence_checks=checked.sentence_checks,
            backend=draft.backend,
            model=draft.model,
            prompt=draft.prompt,
            usage=usage,
            removed_citations=checked.removed_citations,
            complete=draft.complete,
            notes=(*language_notes(route, isinstance(self.retriever.embedder, CrossLingualEmbedder)), *checked.notes),
            mode=route.mode,
            abstain_reason=draft.refused_before,
        )
