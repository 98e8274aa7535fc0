"""Adapter for any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, LM Studio, llama.cpp's server).

This is the only module that imports `openai`. It implements rag.chat.ChatModel (streaming chat) and an
embedder for the embeddings endpoint, with one retry policy. The SDK-free parts live beside it: rag.llm_stream
(reading a chat stream), rag.llm_responses, rag.retry_policy and rag.endpoint_text (key-free wording).

- Retries (tenacity) cover only establishing the stream and receiving its first text: rate limits (429, honouring
  Retry-After up to the wait cap), timeouts, connection errors and 5xx. Exponential backoff with jitter; the number
  of attempts is the total, first try included. The SDK's own retries are off so they are not doubled.
- Other errors (400/401/403/404, malformed responses) raise LLMError at once.
- Once text has been handed to the caller, a failure raises StreamInterrupted and is never retried: a retry would
  repeat text the reader has already seen.

The API key never appears in a message, a log line or a repr.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, TypeVar

import openai
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt, wait_random_exponential

from rag.chat import Message, StreamInterrupted
from rag.endpoint_text import OPENAI_DEFAULT_URL, PLACEHOLDER_KEY, display_url, redact, status_reason
from rag.errors import ConfigError, LLMError
from rag.llm_responses import Malformed, embedding_vectors, model_ids, server_message
from rag.llm_stream import OpenAIChatStream
from rag.retry_policy import out_of_quota, retry_after_s, retryable_status
from rag.settings import Settings

log = logging.getLogger(__name__)

DEFAULT_OPENAI_MODEL = "gpt-4o-mini"
# Output sizes of OpenAI's embedding models, so `dim` is known without a call.
_KNOWN_EMBEDDING_DIMS = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072, "text-embedding-ada-002": 1536}

T = TypeVar("T")


def _is_retryable(exc: BaseException) -> bool:
    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(exc, openai.APIStatusError):
        return retryable_status(exc.status_code, getattr(exc, "code", None))
    return False


class _Endpoint:
    """One configured OpenAI-compatible endpoint: the SDK client, the retry policy and error wording."""

    sdk_error: ClassVar[type[Exception]] = openai.OpenAIError  # what the SDK raises, for rag.llm_stream

    def __init__(
        self,
        *,
        base_url: str | None,
        api_key: str,
        timeout_s: float,
        attempts: int,
        max_wait_s: float,
        wait_multiplier: float,
    ) -> None:
        if attempts < 1:
            raise ConfigError(f"max_retries must be at least 1 (attempts in total); got {attempts}")
        self.url = display_url(base_url)
        self.timeout_s = timeout_s
        self.attempts = attempts
        self.max_wait_s = max(0.0, max_wait_s)
        self._key = api_key
        self._backoff = wait_random_exponential(multiplier=wait_multiplier, max=self.max_wait_s)
        # called after a connection failure; may explain it (e.g. "the local model server exited")
        self.diagnose: Callable[[], str | None] | None = None
        self.client = openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout_s, max_retries=0)

    def __repr__(self) -> str:
        return f"_Endpoint(url={self.url!r})"

    # --- retry policy -------------------------------------------------------------------------------------------
    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome is not None else None
        if isinstance(exc, openai.RateLimitError):
            asked = retry_after_s(getattr(getattr(exc, "response", None), "headers", None))
            if asked is not None:
                return min(asked, self.max_wait_s)
        return float(self._backoff(state))

    def call(self, fn: Callable[[], T], what: str = "request") -> T:
        """Run fn with retries on transient failures; every failure leaves as LLMError (key-free message)."""
        tries = 0

        def attempt() -> T:
            nonlocal tries
            tries += 1
            return fn()

        def before_sleep(state: RetryCallState) -> None:
            exc = state.outcome.exception() if state.outcome is not None else None
            log.warning(
                "LLM endpoint %s: %s %s (attempt %d of %d), retrying",
                self.url,
                what,
                self.describe(exc) if exc else "failed",
                state.attempt_number,
                self.attempts,
            )

        retrying = Retrying(
            stop=stop_after_attempt(self.attempts),
            wait=self._wait,
            retry=retry_if_exception(_is_retryable),
            before_sleep=before_sleep,
            reraise=True,
        )
        try:
            return retrying(attempt)
        except Malformed as exc:
            raise self.malformed(str(exc)) from None
        except openai.OpenAIError as exc:
            raise self.error(exc, tries) from None

    # --- wording ------------------------------------------------------------------------------------------------
    def describe(self, exc: BaseException) -> str:
        """A short, key-free reason for an SDK error."""
        if isinstance(exc, openai.APITimeoutError):
            return f"timed out after {self.timeout_s:g} s"
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__
            detail = type(cause).__name__ if cause is not None else "connection error"
            return f"connection failed ({detail})"
        if isinstance(exc, openai.APIStatusError):
            code = exc.status_code
            reason = status_reason(code, out_of_quota=out_of_quota(code, getattr(exc, "code", None)))
            if reason is not None:
                return reason
            message = redact(server_message(exc), self._key)
            return f"request rejected ({code})" + (f": {message}" if message else "")
        if isinstance(exc, openai.APIError):
            return "error: " + redact(exc.message, self._key)
        return f"{type(exc).__name__}: {redact(str(exc), self._key)}"

    def _diagnosis(self, exc: BaseException | str) -> str:
        if self.diagnose is None or not isinstance(exc, openai.APIConnectionError):
            return ""
        try:
            found = self.diagnose()
        except Exception:  # a diagnosis must never hide the real error
            return ""
        return f"; {found}" if found else ""

    def error(self, exc: BaseException, tries: int) -> LLMError:
        reason = self.describe(exc) + self._diagnosis(exc)
        if _is_retryable(exc):
            plural = "attempt" if tries == 1 else "attempts"
            return LLMError(f"LLM endpoint {self.url} failed after {tries} {plural}: {reason}")
        return LLMError(f"LLM endpoint {self.url} {reason}")

    def malformed(self, detail: str) -> LLMError:
        return LLMError(f"LLM endpoint {self.url} returned a malformed response: {redact(detail, self._key)}")

    def interrupted(self, exc: BaseException | str, partial: str) -> StreamInterrupted:
        reason = exc if isinstance(exc, str) else self.describe(exc) + self._diagnosis(exc)
        err = StreamInterrupted(
            f"LLM endpoint {self.url} broke off the answer after {len(partial)} characters: {reason}"
        )
        err.partial_text = partial
        return err

    def list_models(self) -> list[str]:
        return self.call(lambda: model_ids(self.client.models.list()), "list models")


def _endpoint_from_settings(
    settings: Settings,
    *,
    attempts: int | None,
    max_wait_s: float | None,
    wait_multiplier: float,
) -> _Endpoint:
    base_url = settings.openai_base_url or None
    api_key = settings.openai_api_key or None
    if base_url is None and api_key is None:
        raise ConfigError(
            "no LLM endpoint configured: set OPENAI_API_KEY for OpenAI, or OPENAI_BASE_URL / RAG_PRESET "
            "(ollama, vllm, llamacpp, lmstudio) for a local server"
        )
    if base_url is not None and not base_url.startswith(("http://", "https://")):
        raise ConfigError(f"openai_base_url must start with http:// or https://; got '{display_url(base_url)}'")
    return _Endpoint(
        base_url=base_url,
        api_key=api_key or PLACEHOLDER_KEY,
        timeout_s=settings.timeout_s,
        attempts=settings.max_retries if attempts is None else attempts,
        max_wait_s=settings.retry_max_wait_s if max_wait_s is None else max_wait_s,
        wait_multiplier=wait_multiplier,
    )


class OpenAIChatModel:
    """rag.chat.ChatModel over an OpenAI-compatible chat.completions endpoint."""

    def __init__(
        self,
        endpoint: _Endpoint,
        *,
        model: str,
        backend: str = "openai",
        diagnose: Callable[[], str | None] | None = None,
        count_tokens: Callable[[str], int] | None = None,
    ) -> None:
        self._endpoint = endpoint
        endpoint.diagnose = diagnose
        # for servers whose streams report no usage (llama-cpp-python's): estimate it with their tokenizer
        self._count_tokens = count_tokens
        self.model = model
        self.backend = backend
        self._stream_options_ok = True  # cleared when the server rejects stream_options
        self._max_tokens_param = "max_tokens"  # switched when the server asks for max_completion_tokens
        self._lock = threading.Lock()

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        model: str | None = None,
        *,
        backend: str = "openai",
        attempts: int | None = None,
        max_wait_s: float | None = None,
        wait_multiplier: float = 0.5,
        diagnose: Callable[[], str | None] | None = None,
        count_tokens: Callable[[str], int] | None = None,
    ) -> OpenAIChatModel:
        """Build from Settings. `attempts` (default settings.max_retries) and the wait knobs exist for fast tests;
        `diagnose` may explain a connection failure (LocalServer passes one that reports a crashed server);
        `count_tokens` estimates usage when the stream reports none.

        With no model name: OpenAI's own endpoint gets gpt-4o-mini; another endpoint is asked for its model list
        at the first request.
        """
        endpoint = _endpoint_from_settings(
            settings, attempts=attempts, max_wait_s=max_wait_s, wait_multiplier=wait_multiplier
        )
        name = model or settings.model
        if not name and endpoint.url == OPENAI_DEFAULT_URL:
            name = DEFAULT_OPENAI_MODEL
        return cls(endpoint, model=name, backend=backend, diagnose=diagnose, count_tokens=count_tokens)

    @property
    def base_url(self) -> str:
        return self._endpoint.url

    def __repr__(self) -> str:
        return f"OpenAIChatModel(backend={self.backend!r}, model={self.model!r}, base_url={self._endpoint.url!r})"

    def list_models(self) -> list[str]:
        """Model ids the endpoint serves (GET /models), with the same retry policy."""
        return self._endpoint.list_models()

    def _resolve_model(self) -> str:
        with self._lock:
            if not self.model:
                ids = self._endpoint.list_models()
                if not ids:
                    raise ConfigError(f"LLM endpoint {self._endpoint.url} serves no model: set RAG_MODEL")
                self.model = ids[0]
                log.info("LLM endpoint %s: using model %s", self._endpoint.url, self.model)
            return self.model

    def stream(self, messages: Sequence[Message], *, max_tokens: int, temperature: float) -> OpenAIChatStream:
        return OpenAIChatStream(self, list(messages), max_tokens=max_tokens, temperature=temperature)

    # --- used by OpenAIChatStream -------------------------------------------------------------------------------
    def _create(self, messages: list[Message], max_tokens: int, temperature: float) -> Any:
        """One streaming request. Falls back once without stream_options (or with max_completion_tokens) when the
        server rejects the request over that parameter."""
        model = self._resolve_model()
        with_options = self._stream_options_ok
        tokens_param = self._max_tokens_param
        while True:
            kwargs: dict[str, Any] = {
                "model": model,
                "messages": messages,
                "temperature": temperature,
                "stream": True,
                tokens_param: max_tokens,
            }
            if with_options:
                kwargs["stream_options"] = {"include_usage": True}
            try:
                sdk_stream = self._endpoint.client.chat.completions.create(**kwargs)
            except openai.APIStatusError as exc:
                if exc.status_code not in (400, 422):
                    raise
                if tokens_param == "max_tokens" and "max_completion_tokens" in server_message(exc):
                    tokens_param = "max_completion_tokens"  # newer OpenAI models refuse max_tokens
                    continue
                if with_options:
                    with_options = False  # retry once without stream_options, which older servers reject
                    continue
                raise
            if with_options != self._stream_options_ok:
                log.info("LLM endpoint %s rejects stream_options; usage will not be reported", self._endpoint.url)
            self._stream_options_ok, self._max_tokens_param = with_options, tokens_param
            return sdk_stream


class OpenAIEmbedder:
    """Embeddings from an OpenAI-compatible /embeddings endpoint. The caller batches; `embed_batch` sends one
    request (with the same retry policy as chat)."""

    def __init__(self, endpoint: _Endpoint, model: str) -> None:
        self._endpoint = endpoint
        self.model = model
        self.name = f"openai:{model}"
        self._dim: int | None = _KNOWN_EMBEDDING_DIMS.get(model)
        self._dim_seen = False  # True once a response told us the size

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        model: str | None = None,
        *,
        attempts: int | None = None,
        max_wait_s: float | None = None,
        wait_multiplier: float = 0.5,
    ) -> OpenAIEmbedder:
        endpoint = _endpoint_from_settings(
            settings, attempts=attempts, max_wait_s=max_wait_s, wait_multiplier=wait_multiplier
        )
        return cls(endpoint, model or settings.embedding_model)

    def __repr__(self) -> str:
        return f"OpenAIEmbedder(model={self.model!r}, base_url={self._endpoint.url!r})"

    @property
    def dim(self) -> int:
        """Vector size: known for OpenAI's models, else learned from the first call (probing once if needed)."""
        if self._dim is None:
            self.embed_batch(["dimension probe"])
        assert self._dim is not None
        return self._dim

    def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        # OpenAI rejects empty strings; a single space embeds as "nothing" just as well
        inputs = [t if t.strip() else " " for t in texts]

        def fetch() -> list[list[float]]:
            response = self._endpoint.client.embeddings.create(model=self.model, input=inputs, encoding_format="float")
            return embedding_vectors(response, len(inputs))

        vectors = self._endpoint.call(fetch, "embeddings")
        dim = len(vectors[0])
        if self._dim_seen and dim != self._dim:
            raise self._endpoint.malformed(f"embeddings changed size from {self._dim} to {dim} dimensions")
        self._dim, self._dim_seen = dim, True
        return vectors


def embed(texts: Sequence[str], model: str, settings: Settings) -> list[list[float]]:
    """One-off embedding call (builds a client each time; keep an OpenAIEmbedder for repeated use)."""
    return OpenAIEmbedder.from_settings(settings, model).embed_batch(texts)
