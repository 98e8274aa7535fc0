"""Bounded time and length for every LLM call of one answer, whatever the endpoint does.

The endpoint's `timeout_s` bounds each read, not the answer: a server that sends SSE comments forever, or one
token every 0.3 s, kept `rag ask` (and a UI worker) busy without end, and one that ignores `max_tokens` wrote on.
`BoundedChat` wraps any ChatModel: its streams are read on a worker thread, and the caller stops waiting at the
answer's deadline (`answer_deadline_s`, shared by the follow-up rewrite, the draft and the LLM check) or once the
text is longer than `max_tokens` (estimated: a streamed piece counts one token per 4 characters, at least one,
so a per-token stream is counted piece by piece; with slack for other tokenizers).

Stopping before any text raises LLMError (the assistant then answers extractively, with a note); stopping after
some raises StreamInterrupted (the answer is marked incomplete). A piece that crosses `max_tokens` gives up the
part past it, not all of it: a server that sends a whole over-long completion as one piece is shown up to there.
The worker is told to stop and the stream is closed from a side thread, so a read blocked on the socket ends at
the next byte or at the read timeout.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

from rag.errors import LLMError, StreamInterrupted
from rag.ports import ChatModel, ChatStream, Message
from rag.types import Usage


class Deadline:
    """A point in time `seconds` from now."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.at = time.monotonic() + seconds

    def left(self) -> float:
        return self.at - time.monotonic()


def token_limit(max_tokens: int) -> int:
    """How many (estimated) tokens of text a stream asked for `max_tokens` may bring before it is cut off."""
    return max_tokens + max(32, max_tokens // 4)


def estimated_tokens(piece: str) -> int:
    """A cheap upper-ish estimate (no tokenizer to load): ~4 characters a token, and a streamed piece is at least
    one."""
    return max(1, len(piece) // 4)


class BoundedChat:
    """rag.ports.ChatModel: `chat`, with every stream bounded by `deadline` and by its `max_tokens`."""

    def __init__(self, chat: ChatModel, deadline: Deadline) -> None:
        self.inner = chat
        self.deadline = deadline

    @property
    def backend(self) -> str:
        return self.inner.backend

    @backend.setter
    def backend(self, value: str) -> None:
        self.inner.backend = value

    @property
    def model(self) -> str:  # an endpoint's default model is resolved at its first request
        return self.inner.model

    @model.setter
    def model(self, value: str) -> None:
        self.inner.model = value

    def where(self) -> str:
        return str(getattr(self.inner, "base_url", "") or self.inner.backend)

    def stream(self, messages: Sequence[Message], *, max_tokens: int, temperature: float) -> BoundedStream:
        return BoundedStream(self, list(messages), max_tokens, temperature)


class BoundedStream:
    """rag.ports.ChatStream read on a worker thread, so that waiting for it can stop."""

    def __init__(self, chat: BoundedChat, messages: list[Message], max_tokens: int, temperature: float) -> None:
        self.chat, self.messages, self.max_tokens, self.temperature = chat, messages, max_tokens, temperature
        self.usage = Usage()
        self._stop = threading.Event()
        self._inner: ChatStream | None = None

    def _read(self, out: queue.Queue[tuple[str, Any]]) -> None:
        try:
            inner = self._inner = self.chat.inner.stream(
                self.messages, max_tokens=self.max_tokens, temperature=self.temperature
            )
            for delta in inner:
                if self._stop.is_set():
                    return
                out.put(("delta", delta))
            out.put(("end", inner.usage))
        except BaseException as exc:  # handed to the reader, which raises it in its own thread
            out.put(("error", exc))

    def _abandon(self) -> None:
        """Tell the worker to stop and close the stream from a side thread (a close can block on the socket)."""
        self._stop.set()
        close = getattr(self._inner, "close", None)
        if callable(close):
            threading.Thread(target=close, name="rag-llm-close", daemon=True).start()

    def __iter__(self) -> Iterator[str]:
        out: queue.Queue[tuple[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, args=(out,), name="rag-llm-stream", daemon=True).start()
        text, tokens, limit = "", 0, token_limit(self.max_tokens)
        try:
            while True:
                try:
                    kind, value = out.get(timeout=max(0.0, self.chat.deadline.left()))
                except queue.Empty:
                    raise self._late(text) from None
                if kind == "error":
                    raise value
                if kind == "end":
                    self.usage = value
                    return
                if tokens + estimated_tokens(value) > limit:
                    kept = fitting(value, limit - tokens)  # a piece past the limit: the start that fits is kept
                    if kept:
                        yield kept
                    raise _cut(
                        f"LLM endpoint {self.chat.where()} kept writing past max_tokens ({self.max_tokens}); the "
                        "answer was cut there", text + kept,
                    )  # fmt: skip
                text += value
                tokens += estimated_tokens(value)
                yield value
        finally:
            self._abandon()

    def _late(self, text: str) -> LLMError:
        message = (
            f"LLM endpoint {self.chat.where()} did not finish within the answer deadline of "
            f"{self.chat.deadline.seconds:g} s (answer_deadline_s)"
        )
        return _cut(message, text) if text else LLMError(message)


def fitting(piece: str, tokens: int) -> str:
    """The start of `piece` worth at most `tokens` estimated tokens, ended at a word boundary when it has one (a
    server that sends the whole completion as one piece must not lose all of it)."""
    if tokens <= 0:
        return ""
    head = piece[: 4 * tokens]
    if len(head) < len(piece) and not piece[len(head)].isspace():
        space = max(head.rfind(" "), head.rfind("\n"))
        head = head[:space] if space > 0 else head
    return head.rstrip()


def _cut(message: str, partial: str) -> StreamInterrupted:
    err = StreamInterrupted(message)
    err.partial_text = partial
    return err
