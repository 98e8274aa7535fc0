"""One configured OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, LM Studio, llama.cpp's server): the SDK
client, the retry policy and the wording of its errors. The chat model (chat.py) and the embedder
(embeddings.py) are built on it; the SDK-free parts live beside it: stream.py (reading a chat stream),
responses.py and retry_policy.py.

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
from collections.abc import Callable
from typing import ClassVar, TypeVar

import openai
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt, wait_random_exponential

from rag.adapters.openai.responses import Malformed, model_ids, server_message
from rag.adapters.openai.retry_policy import out_of_quota, retry_after_s, retryable_status, status_reason
from rag.errors import ConfigError, LLMError, StreamInterrupted
from rag.redact import PLACEHOLDER_KEY, display_url, mask_url, mask_urls_in_logs, redact
from rag.settings import EndpointSettings

log = logging.getLogger(__name__)
mask_urls_in_logs()  # the SDK's HTTP client logs every request URL, credentials included

T = TypeVar("T")


def _is_retryable(exc: BaseException) -> bool:
    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(exc, openai.APIStatusError):
        return retryable_status(exc.status_code, getattr(exc, "code", None))
    return False


class Endpoint:
    """One configured OpenAI-compatible endpoint: the SDK client, the retry policy and error wording."""

    sdk_error: ClassVar[type[Exception]] = openai.OpenAIError  # what the SDK raises, for stream.py

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
        return f"Endpoint(url={self.url!r})"

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


def endpoint_from_settings(
    settings: EndpointSettings,
    *,
    attempts: int | None = None,
    max_wait_s: float | None = None,
    wait_multiplier: float = 0.5,
) -> Endpoint:
    """The endpoint the settings name. `attempts` (default settings.max_retries) and the wait knobs exist for
    fast tests."""
    base_url = settings.openai_base_url or None
    api_key = settings.openai_api_key or None
    if base_url is None and api_key is None:
        raise ConfigError(
            "no LLM endpoint configured: set OPENAI_API_KEY for OpenAI, or OPENAI_BASE_URL / RAG_PRESET "
            "(ollama, vllm, llamacpp, lmstudio) for a local server"
        )
    if base_url is not None and not base_url.startswith(("http://", "https://")):
        raise ConfigError(f"openai_base_url must start with http:// or https://; got '{mask_url(base_url)}'")
    return Endpoint(
        base_url=base_url,
        api_key=api_key or PLACEHOLDER_KEY,
        timeout_s=settings.timeout_s,
        attempts=settings.max_retries if attempts is None else attempts,
        max_wait_s=settings.retry_max_wait_s if max_wait_s is None else max_wait_s,
        wait_multiplier=wait_multiplier,
    )
