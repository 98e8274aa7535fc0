"""Test doubles shipped with the package, so tests (ours and users') run without any model or network.

Never a default answer path: nothing outside tests should construct these.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from rag.errors import LLMError, StreamInterrupted
from rag.ports import Message
from rag.types import Usage

_DELTA = re.compile(r"\S*\s*")  # a word and the space after it (leading space first when the reply has one)
_WORD = re.compile(r"\w+")


class ScriptedChatModel:
    """A ChatModel that replies from a script.

    replies: a list consumed in order (one reply per `stream` call; LLMError when it runs out), or a function
    of the messages. Each reply streams in word-sized deltas, `delay_s` apart. With `fail_after_chars=N` the stream
    raises StreamInterrupted once N characters were sent (LLMError if N is 0: nothing was sent yet).
    `calls` records the messages of every call, in order.
    """

    backend = "fake"

    def __init__(
        self,
        replies: list[str] | Callable[[Sequence[Message]], str],
        *,
        delay_s: float = 0.0,
        fail_after_chars: int | None = None,
        model: str = "scripted",
    ) -> None:
        self._replies = replies if callable(replies) else list(replies)
        self.delay_s = delay_s
        self.fail_after_chars = fail_after_chars
        self.model = model
        self.calls: list[list[Message]] = []
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"ScriptedChatModel(model={self.model!r}, calls={len(self.calls)})"

    def _reply_for(self, messages: list[Message]) -> str:
        with self._lock:
            self.calls.append(messages)
            if callable(self._replies):
                replies = self._replies
            elif self._replies:
                return self._replies.pop(0)
            else:
                raise LLMError(f"ScriptedChatModel has no reply left for call {len(self.calls)}")
        return replies(messages)

    def stream(self, messages: Sequence[Message], *, max_tokens: int, temperature: float) -> ScriptedChatStream:
        copied: list[Message] = [{"role": m["role"], "content": m["content"]} for m in messages]
        reply = self._reply_for(copied)
        prompt_tokens = sum(len(m["content"].split()) + 4 for m in copied)
        return ScriptedChatStream(reply, self.delay_s, self.fail_after_chars, prompt_tokens)


class ScriptedChatStream:
    """ChatStream over a fixed reply. `text` holds what was sent so far."""

    def __init__(self, reply: str, delay_s: float, fail_after_chars: int | None, prompt_tokens: int) -> None:
        self.deltas = [d for d in _DELTA.findall(reply) if d]
        self._delay_s = delay_s
        self._fail_after = fail_after_chars
        self._prompt_tokens = prompt_tokens
        self.usage = Usage()
        self.text = ""

    def __iter__(self) -> Iterator[str]:
        for delta in self.deltas:
            if self._fail_after is not None and len(self.text) + len(delta) > self._fail_after:
                head = delta[: self._fail_after - len(self.text)]
                if head:
                    self.text += head
                    yield head
                if not self.text:
                    raise LLMError("scripted failure before the first delta")
                err = StreamInterrupted(f"scripted interruption after {len(self.text)} characters")
                err.partial_text = self.text  # type: ignore[attr-defined]
                raise err
            if self._delay_s:
                time.sleep(self._delay_s)
            self.text += delta
            yield delta
        self.usage = Usage(prompt_tokens=self._prompt_tokens, completion_tokens=len(self.deltas))


class HashEmbedder:
    """Deterministic bag-of-words embedder: hashed word unigrams and bigrams, L2-normalised.

    Texts that share words get similar vectors; the same text always gets the same vector, in any process."""

    def __init__(self, dim: int = 64) -> None:
        if dim < 2:
            raise ValueError("dim must be at least 2")
        self.dim = dim
        self.name = f"hash-{dim}"

    def __repr__(self) -> str:
        return f"HashEmbedder(dim={self.dim})"

    def _slot(self, feature: str) -> tuple[int, float]:
        digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
        value = int.from_bytes(digest, "little")
        return value % self.dim, (1.0 if (value >> 63) & 1 else -1.0)

    def _vector(self, text: str) -> np.ndarray:
        words = _WORD.findall(text.lower())
        vec = np.zeros(self.dim, dtype=np.float64)
        features = [(w, 1.0) for w in words] + [(f"{a} {b}", 0.5) for a, b in zip(words, words[1:], strict=False)]
        for feature, weight in features:
            slot, sign = self._slot(feature)
            vec[slot] += sign * weight
        norm = float(np.linalg.norm(vec))
        if norm == 0.0:  # no words (or features that cancel out): a fixed unit vector, never NaN
            slot, _ = self._slot("<empty>")
            vec[slot] = 1.0
            return vec
        return vec / norm

    def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._vector(t).tolist() for t in texts]
