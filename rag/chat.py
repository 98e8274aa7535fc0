"""The one small interface every answer-writing model sits behind.

Adapters (rag.llm for any OpenAI-compatible endpoint, rag.fakes for tests) implement ChatModel.
Nothing here imports an external library.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol, TypedDict

from rag.errors import LLMError
from rag.types import Usage


class Message(TypedDict):
    role: str  # "system" | "user" | "assistant"
    content: str


class ChatStream(Protocol):
    """Iterate for text deltas. After the iteration ends, `usage` holds the token counts
    (zeros when the endpoint did not report them)."""

    usage: Usage

    def __iter__(self) -> Iterator[str]: ...


class ChatModel(Protocol):
    backend: str  # "openai", "local", "fake" ...
    model: str  # model name as the endpoint knows it

    def stream(self, messages: Sequence[Message], *, max_tokens: int, temperature: float) -> ChatStream:
        """Start a completion. Failures before the first delta are retried inside the adapter and end
        in LLMError; a failure after text has arrived raises StreamInterrupted."""
        ...


class StreamInterrupted(LLMError):
    """The endpoint broke off after sending part of the answer; the partial text must not be shown as complete."""

    partial_text: str = ""


def complete(
    model: ChatModel, messages: Sequence[Message], *, max_tokens: int, temperature: float
) -> tuple[str, Usage]:
    """Run a completion to the end and return its text and usage (for short calls such as follow-up rewriting)."""
    stream = model.stream(messages, max_tokens=max_tokens, temperature=temperature)
    text = "".join(stream)
    return text, stream.usage
