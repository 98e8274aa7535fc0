"""rag.ports.ChatModel over an OpenAI-compatible chat.completions endpoint (streaming)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

import openai

from rag.adapters.openai.client import Endpoint, endpoint_from_settings
from rag.adapters.openai.responses import server_message
from rag.adapters.openai.stream import OpenAIChatStream, StreamCalls
from rag.errors import ConfigError
from rag.ports import Message
from rag.redact import OPENAI_DEFAULT_URL
from rag.settings import EndpointSettings

log = logging.getLogger(__name__)

DEFAULT_OPENAI_MODEL = "gpt-4o-mini"


class OpenAIChatModel:
    """rag.ports.ChatModel over an OpenAI-compatible chat.completions endpoint."""

    def __init__(
        self,
        endpoint: Endpoint,
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
        settings: EndpointSettings,
        model: str | None = None,
        *,
        backend: str = "openai",
        attempts: int | None = None,
        max_wait_s: float | None = None,
        wait_multiplier: float = 0.5,
        diagnose: Callable[[], str | None] | None = None,
        count_tokens: Callable[[str], int] | None = None,
    ) -> OpenAIChatModel:
        """Build from the endpoint settings. `attempts` (default settings.max_retries) and the wait knobs exist for
        fast tests; `diagnose` may explain a connection failure (LocalServer passes one that reports a crashed
        server); `count_tokens` estimates usage when the stream reports none.

        With no model name: OpenAI's own endpoint gets gpt-4o-mini; another endpoint is asked for its model list
        at the first request.
        """
        endpoint = endpoint_from_settings(
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
        copied = list(messages)
        endpoint = self._endpoint
        calls = StreamCalls(
            create=lambda: self._create(copied, max_tokens, temperature),
            call=endpoint.call,
            sdk_error=endpoint.sdk_error,
            malformed=endpoint.malformed,
            interrupted=endpoint.interrupted,
            count_tokens=self._count_tokens,
        )
        return OpenAIChatStream(calls, copied)

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
