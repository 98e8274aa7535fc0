"""Reading one streamed chat completion from an OpenAI-compatible endpoint (rag.ports.ChatStream).

Establishing the stream and receiving its first text go through the endpoint's retry policy; once text has reached
the caller, a failure raises StreamInterrupted and is never retried. Everything it needs from the client comes in
as callables (`StreamCalls`), the SDK's error type included, so this module does not import the SDK.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from rag.adapters.openai.responses import Malformed
from rag.errors import LLMError, StreamInterrupted
from rag.ports import Message
from rag.types import Usage

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StreamCalls:
    """What a stream needs from its client, as plain callables."""

    create: Callable[[], Any]  # send the request; returns the SDK's stream (iterable of chunks, .close())
    call: Callable[[Callable[[], Any], str], Any]  # run a callable under the endpoint's retry policy
    sdk_error: type[Exception]  # what the SDK raises mid-stream
    malformed: Callable[[str], LLMError]
    interrupted: Callable[[BaseException | str, str], StreamInterrupted]
    count_tokens: Callable[[str], int] | None = None  # estimates usage when the stream reports none


class OpenAIChatStream:
    """rag.ports.ChatStream: iterate once for text deltas; then `usage` and `finish_reason` are set.

    `text` holds everything received so far (also after a StreamInterrupted)."""

    def __init__(self, calls: StreamCalls, messages: list[Message]) -> None:
        self._calls = calls
        self._messages = messages
        self._started = False
        self.usage = Usage()
        self.finish_reason: str | None = None
        self.text = ""
        self._saw_choices = False
        self._sdk_stream: Any = None
        self._closed = False

    def close(self) -> None:
        """Stop reading (from any thread): the HTTP response is closed, so a read blocked on it ends, and no
        further attempt starts. rag.answer.deadline calls it when an answer runs out of time."""
        self._closed = True
        if self._sdk_stream is not None:
            self._sdk_stream.close()

    def _take(self, chunk: Any) -> str:
        """Content of one chunk; records usage and finish reason. Raises Malformed on a non-chunk."""
        choices = getattr(chunk, "choices", None)
        if choices is None and getattr(chunk, "usage", None) is None:
            raise Malformed(f"a stream chunk has no 'choices' ({type(chunk).__name__})")
        usage = getattr(chunk, "usage", None)
        if usage is not None:
            prompt = getattr(usage, "prompt_tokens", 0)
            completion = getattr(usage, "completion_tokens", 0)
            self.usage = Usage(
                prompt_tokens=prompt if isinstance(prompt, int) else 0,
                completion_tokens=completion if isinstance(completion, int) else 0,
            )
        if not choices:
            return ""
        if not isinstance(choices, list):
            raise Malformed("'choices' in a stream chunk is not a list")
        self._saw_choices = True
        first = choices[0]
        reason = getattr(first, "finish_reason", None)
        if isinstance(reason, str) and reason:
            self.finish_reason = reason
        delta = getattr(first, "delta", None)
        content = getattr(delta, "content", None)
        return content if isinstance(content, str) else ""

    def _estimate_usage(self) -> Usage:
        """Token counts from the model's own tokenizer when the stream reported none: exact for the answer,
        the message texts plus 4 tokens of chat framing each (and 3 to start the reply) for the prompt."""
        count = self._calls.count_tokens
        if count is None:
            return Usage()
        try:
            prompt = sum(count(m["content"]) + 4 for m in self._messages) + 3
            return Usage(prompt_tokens=prompt, completion_tokens=count(self.text) if self.text else 0)
        except Exception as exc:  # an estimate must never fail the answer
            log.debug("could not count tokens: %s", type(exc).__name__)
            return Usage()

    def _open(self) -> tuple[Any, Iterator[Any], str]:
        """Send the request and read up to the first text. Everything here is safely retryable: nothing has
        reached the caller yet. Returns the SDK stream, its chunk iterator and the first text ('' at the end)."""
        if self._closed:
            raise LLMError("the stream was closed before it started")
        sdk_stream = self._sdk_stream = self._calls.create()
        chunks = iter(sdk_stream)
        try:
            for chunk in chunks:
                content = self._take(chunk)
                if content:
                    return sdk_stream, chunks, content
        except (ValueError, TypeError, AttributeError, KeyError) as exc:  # undecodable JSON, odd shapes
            sdk_stream.close()
            raise Malformed(f"{type(exc).__name__}: {exc}") from exc
        except BaseException:
            sdk_stream.close()
            raise
        return sdk_stream, chunks, ""

    def __iter__(self) -> Iterator[str]:
        if self._started:
            raise RuntimeError("an OpenAIChatStream can be iterated only once")
        self._started = True
        calls = self._calls

        def attempt() -> tuple[Any, Iterator[Any], str]:
            # a retried attempt starts from a clean slate
            self.usage, self.finish_reason, self._saw_choices = Usage(), None, False
            return self._open()

        sdk_stream, chunks, first = calls.call(attempt, "chat completion")
        try:
            if not first:
                if not self._saw_choices:
                    content_type = sdk_stream.response.headers.get("content-type", "?")
                    raise calls.malformed(f"the stream carried no choices and no text (content-type {content_type})")
                return  # a genuinely empty completion
            self.text = first
            yield first
            while True:
                try:
                    chunk = next(chunks)
                    content = self._take(chunk)
                except StopIteration:
                    break
                except Malformed as exc:
                    raise calls.interrupted(f"malformed chunk ({exc})", self.text) from None
                except (ValueError, TypeError, AttributeError, KeyError) as exc:
                    raise calls.interrupted(f"malformed chunk ({type(exc).__name__})", self.text) from None
                except calls.sdk_error as exc:
                    raise calls.interrupted(exc, self.text) from None
                if content:
                    self.text += content
                    yield content
            if self.finish_reason is None:
                # the body ended cleanly but the completion never said it was done
                raise calls.interrupted("the stream ended without a finish reason", self.text)
            if self.usage == Usage():
                self.usage = self._estimate_usage()
        finally:
            sdk_stream.close()
