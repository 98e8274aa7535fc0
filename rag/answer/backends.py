"""One interface for every way of writing an answer: `draft(question, hits) -> DraftStream`, where `question` is
the analysed rag.answer.question.Question.

The extractive backend (no LLM) and the LLM backends (any OpenAI-compatible endpoint, the local llama.cpp
model, a scripted fake) all implement it; the Assistant treats them alike and checks whatever they wrote.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from rag.answer.question import Question
from rag.ports import ChatModel
from rag.types import Hit, Usage


@dataclass(frozen=True)
class Draft:
    """What a backend wrote, before verification."""

    text: str
    backend: str
    model: str
    prompt: str  # "<prompt name>@<sha>", or the backend's name when no prompt was used
    usage: Usage = Usage()
    complete: bool = True  # False when the stream broke off
    notes: tuple[str, ...] = ()
    refused_before: str | None = None  # set when no backend was asked: why the sources cannot answer


class DraftStream:
    """Iterate once for text deltas; afterwards `draft` holds the finished Draft. Wraps a generator that
    yields the deltas and returns the Draft."""

    def __init__(self, steps: Generator[str, None, Draft]) -> None:
        self._steps = steps
        self.draft: Draft | None = None

    def __iter__(self) -> Iterator[str]:
        self.draft = yield from self._steps

    def run(self) -> Draft:
        """Consume the stream and return the Draft (for callers that do not stream)."""
        for _ in self:
            pass
        assert self.draft is not None
        return self.draft


def whole(draft: Draft) -> DraftStream:
    """A stream of one delta: the whole text at once (backends that do not stream)."""

    def steps() -> Generator[str, None, Draft]:
        if draft.text:
            yield draft.text
        return draft

    return DraftStream(steps())


class AnswerBackend(Protocol):
    name: str  # "extractive", "openai", "local", "fake"...
    model: str
    chat: ChatModel | None  # the model behind it, for follow-up rewriting (None: no LLM)

    def draft(self, question: Question, hits: Sequence[Hit]) -> DraftStream:
        """Write an answer from the numbered hits ([1] is hits[0]); `question.mode` is "answer" or "summary". An
        LLM backend raises LLMError when its endpoint fails before the first delta."""
        ...


class ChatProvider(Protocol):
    """Chat models by backend name, built from the settings at the edge (rag.factory)."""

    def configured(self) -> bool:
        """An LLM endpoint is configured (what `--llm auto` picks)."""
        ...

    def chat(self, backend: str, model: str | None) -> ChatModel: ...

    def unavailable(self, backend: str) -> str | None:
        """Why `backend` cannot answer here, in one line (None: it can). The UI offers only usable backends."""
        ...

    def capable(self, chat: ChatModel) -> bool:
        """Strong enough to check claims (`verify = "auto"`): an endpoint or a model file of the user's, not the
        packaged SmolLM2-135M."""
        ...

    def close(self) -> None: ...
