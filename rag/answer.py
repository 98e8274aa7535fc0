"""ask(question, history, settings) -> Answer: the whole RAG step.

question -> standalone question -> hits -> (abstain?) -> draft from a backend -> verified answer.
Whatever the backend, citations are checked the same way: unknown markers are removed, each sentence
is checked against the sources it cites, and an answer with no supported sentence is replaced by the
extractive one.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack

from rag.chat import ChatModel, Message, StreamInterrupted
from rag.citations import REFUSAL, citations_for, clean_markers, format_sources, parse_markers
from rag.embedding import Embedder
from rag.errors import LLMError, QuestionError
from rag.extractive import Extractive, metadata_intent
from rag.followup import condense
from rag.grounding import (
    SentenceVectors,
    SupportChecker,
    key_terms,
    missing_focus,
    missing_key_terms,
    untrusted,
)
from rag.prompts import load_prompt, prompt_id
from rag.retriever import Filters, Retriever, top_relevance
from rag.runlog import append as log_answer
from rag.settings import Settings
from rag.types import Answer, AnswerEvent, DeltaEvent, Event, Hit, SourcesEvent, Usage

SUMMARY_REQUEST = re.compile(
    r"\b(summari[sz]e|summary|overview|survey|literature review|review the|what (work|research) (is there|exists))\b",
    re.IGNORECASE,
)
# controls, and lone surrogates (what undecodable bytes in argv become): the embedder's tokenizer rejects them
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")


def clean_question(question: str, max_chars: int) -> str:
    text = _CONTROL.sub(" ", question or "").strip()
    if not text:
        raise QuestionError("the question is empty; ask something about the papers")
    if len(text) > max_chars:
        raise QuestionError(f"the question is {len(text):,} characters long; the limit is {max_chars:,}")
    return re.sub(r"\s+", " ", text)


class Assistant:
    """Holds the opened index, the embedder and the chat models; answers many questions (thread-safe)."""

    def __init__(
        self,
        settings: Settings,
        *,
        retriever: Retriever | None = None,
        embedder: Embedder | None = None,
        chat_model: ChatModel | None = None,
    ) -> None:
        self.settings = settings
        self.retriever = retriever or Retriever(settings, embedder)
        self.vectors = SentenceVectors(self.retriever.embedder)
        self.checker = SupportChecker(self.vectors, settings.support_threshold)
        self.extractive = Extractive(self.vectors)
        self._chat_model = chat_model
        self._resources = ExitStack()
        self._local: ChatModel | None = None
        self._local_lock = threading.Lock()  # two sessions choosing "local" at once start one server

    def close(self) -> None:
        self._resources.close()

    def backend_for(self, llm: str | None) -> str:
        llm = llm or self.settings.llm
        if llm == "auto":
            if self._chat_model is not None or self.settings.openai_base_url or self.settings.openai_api_key:
                return "openai"
            return "extractive"
        return llm

    def chat_model(self, backend: str, model: str | None = None) -> ChatModel:
        if self._chat_model is not None:
            return self._chat_model
        if backend == "local":
            with self._local_lock:
                if self._local is None:
                    from rag.local_model import LocalServer

                    server = self._resources.enter_context(LocalServer.from_settings(self.settings))
                    self._local = server.chat_model(self.settings)
                return self._local
        from rag.llm import OpenAIChatModel

        return OpenAIChatModel.from_settings(self.settings, model=model)

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
        q = clean_question(question, self.settings.max_question_chars)
        mode = "summary" if summary or (summary is None and SUMMARY_REQUEST.search(q)) else "answer"
        backend = self.backend_for(llm)
        chat = None if backend == "extractive" else self.chat_model(backend, model)
        backend = backend if chat is None else chat.backend
        history = list(history)[-2 * self.settings.max_history_turns :]
        standalone, usage = condense(q, history, chat, self.settings)
        if k is None:  # an explicit 0 is refused by the retriever, not silently replaced by the default
            k = 2 * self.settings.k if mode == "summary" else self.settings.k
        hits = tuple(self.retriever.search(standalone, k, filters=filters, token_budget=self.settings.context_tokens))
        yield SourcesEvent(standalone, hits, mode, backend)

        notes: list[str] = []
        complete = True
        prompt = "extractive"
        model_name = "extractive" if chat is None else chat.model
        reason = self.abstain_reason(standalone, hits, mode)
        if reason:
            text = REFUSAL
            notes.append(reason)
            yield DeltaEvent(text)
        elif chat is None:
            text = self._extractive(standalone, hits, mode)
            yield DeltaEvent(text)
        else:
            system = load_prompt(self.settings.prompts_dir, f"{mode}_system")
            user = load_prompt(self.settings.prompts_dir, f"{mode}_user")
            prompt = prompt_id(system, user)
            messages: list[Message] = [
                {"role": "system", "content": system.render(refusal=REFUSAL)},
                {"role": "user", "content": user.render(sources=format_sources(hits), question=standalone)},
            ]
            parts: list[str] = []
            try:
                stream = chat.stream(
                    messages, max_tokens=self.settings.max_tokens, temperature=self.settings.temperature
                )
                for delta in stream:
                    parts.append(delta)
                    yield DeltaEvent(delta)
                usage = Usage(
                    usage.prompt_tokens + stream.usage.prompt_tokens,
                    usage.completion_tokens + stream.usage.completion_tokens,
                )
                text = "".join(parts).strip()
            except StreamInterrupted as exc:
                text, complete = "".join(parts).strip(), False
                notes.append(f"incomplete: {exc}")
            except LLMError as exc:
                text = self._extractive(standalone, hits, mode)
                notes.append(f"{exc}; showing the extractive answer instead")
                backend, model_name, prompt = "extractive", "extractive", "extractive"
        answer = self._verify(q, standalone, text, hits, mode, backend, model_name, prompt, usage, notes, complete)
        answer = _with_latency(answer, time.perf_counter() - started)
        log_answer(self.settings.runlog_path, answer)
        yield AnswerEvent(answer)

    def ask(self, question: str, history: Sequence[Message] = (), **kwargs: object) -> Answer:
        for event in self.ask_stream(question, history, **kwargs):  # type: ignore[arg-type]
            if isinstance(event, AnswerEvent):
                return event.answer
        raise AssertionError("ask_stream ended without an answer")

    def abstain_reason(self, question: str, hits: Sequence[Hit], mode: str) -> str | None:
        """Why the sources cannot answer, decided before any model writes a word (None: go ahead)."""
        if not hits:
            return "no indexed paper matches the question"
        missing = missing_key_terms(question, hits)
        if missing and mode == "answer":
            return f"no retrieved paper mentions {', '.join(repr(t) for t in missing)}"
        best = top_relevance(hits)
        named = bool(key_terms(question)) and not missing  # e.g. "PaperBench": a name that was found
        if best < self.settings.min_relevance and not named:
            return f"nothing relevant was found (best similarity {best:.2f} < {self.settings.min_relevance:.2f})"
        if mode == "summary":
            return None
        focus = None if metadata_intent(question) else missing_focus(question, hits)
        if focus:
            return f"no retrieved paper mentions any {focus!r}"
        return None

    def _extractive(self, question: str, hits: Sequence[Hit], mode: str) -> str:
        if mode == "summary":
            return self.extractive.summary(question, hits, self.settings.min_relevance)
        return self.extractive.answer(question, hits)

    def _verify(
        self,
        question: str,
        standalone: str,
        text: str,
        hits: Sequence[Hit],
        mode: str,
        backend: str,
        model: str,
        prompt: str,
        usage: Usage,
        notes: list[str],
        complete: bool,
    ) -> Answer:
        text, removed = clean_markers(text, set(range(1, len(hits) + 1)))
        if removed:
            notes.append(f"removed {removed} citation(s) of sources that were not retrieved")
        flagged = [f"[{n}] {h.paper.id}" for n, h in enumerate(hits, 1) if untrusted(h)]
        if flagged:
            notes.append(
                f"source {', '.join(flagged)} contains instructions addressed to the model; "
                "treated as data and never used as evidence"
            )
        unsupported, checked = self.checker.unsupported(text, hits)
        abstained = REFUSAL in text
        if backend != "extractive" and not abstained and checked and len(unsupported) == checked and complete:
            notes.append(
                f"no sentence of the {backend} answer was supported by its sources; showing the extractive answer"
            )
            text = self._extractive(standalone, hits, mode)
            unsupported, checked = self.checker.unsupported(text, hits)
            abstained = REFUSAL in text
            backend, model = "extractive", "extractive"
        if abstained and not text.startswith(REFUSAL):
            text = REFUSAL  # a refusal mixed with claims is a refusal
            unsupported = []
        return Answer(
            question=question,
            standalone_question=standalone,
            text=text,
            citations=() if abstained else citations_for(parse_markers(text), hits),
            sources=tuple(hits),
            abstained=abstained,
            unsupported=tuple(unsupported),
            checked_sentences=checked,
            backend=backend,
            model=model,
            prompt=prompt,
            usage=usage,
            removed_citations=removed,
            complete=complete,
            notes=tuple(notes),
            mode=mode,
        )


def _with_latency(answer: Answer, seconds: float) -> Answer:
    from dataclasses import replace

    return replace(answer, latency_s=seconds)


def ask(
    question: str, history: Sequence[Message] = (), *, settings: Settings | None = None, **kwargs: object
) -> Answer:
    """One-shot convenience: opens the index, answers, closes. Hold an Assistant for many questions."""
    from rag.settings import load_settings

    assistant = Assistant(settings or load_settings())
    try:
        return assistant.ask(question, history, **kwargs)
    finally:
        assistant.close()


def ask_stream(
    question: str, history: Sequence[Message] = (), *, settings: Settings | None = None, **kwargs: object
) -> Iterator[Event]:
    from rag.settings import load_settings

    assistant = Assistant(settings or load_settings())
    try:
        yield from assistant.ask_stream(question, history, **kwargs)  # type: ignore[arg-type]
    finally:
        assistant.close()
