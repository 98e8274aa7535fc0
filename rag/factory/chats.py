"""The chat models the answer backends and the LLM check use: an OpenAI-compatible endpoint, or the local
llama.cpp server started once and stopped on close (rag.answer.backends.ChatProvider)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from rag.errors import ConfigError
from rag.ports import ChatModel
from rag.settings import Settings


class Chats:
    """rag.answer.backends.ChatProvider: `openai` is any OpenAI-compatible endpoint; `local` starts llama.cpp's
    server with the configured GGUF once (two sessions choosing it at once start one) and stops it on close."""

    def __init__(self, settings: Settings, override: ChatModel | None = None) -> None:
        self.settings = settings
        self.override = override
        self._local: ChatModel | None = None
        self._stop_local: Callable[[], None] | None = None
        self._lock = threading.Lock()

    def configured(self) -> bool:
        endpoint = self.settings.endpoint
        return self.override is not None or bool(endpoint.openai_base_url or endpoint.openai_api_key)

    def chat(self, backend: str, model: str | None) -> ChatModel:
        if self.override is not None:
            return self.override
        if backend == "local":
            with self._lock:
                if self._local is None:
                    from rag.adapters.llamacpp import LocalServer

                    server = LocalServer.from_settings(self.settings.endpoint, log_dir=self.settings.home).start()
                    self._local, self._stop_local = server.chat_model(self.settings.endpoint), server.stop
                return self._local
        if backend == "openai":
            from rag.adapters.openai.chat import OpenAIChatModel

            return OpenAIChatModel.from_settings(self.settings.endpoint, model=model)
        raise ConfigError(f"unknown answer backend '{backend}'")

    def unavailable(self, backend: str) -> str | None:
        """Why `backend` cannot answer on this machine, in one line; None when it can (the UI offers only those)."""
        if backend == "openai" and not self.configured():
            return "no OpenAI-compatible endpoint is configured (OPENAI_BASE_URL or RAG_PRESET)"
        if backend == "local" and self.override is None:
            from rag.adapters.llamacpp import local_model_path, require_llama_cpp

            try:
                require_llama_cpp()
                local_model_path(self.settings.endpoint)
            except ConfigError as exc:
                return str(exc).split(":")[0]  # "llama-cpp-python is not installed"
        return None

    def capable(self, chat: ChatModel) -> bool:
        if chat.backend == "fake":  # a scripted test double replays text; it cannot judge claims
            return False
        return chat.backend != "local" or bool(self.settings.endpoint.local_model_path)

    def close(self) -> None:
        with self._lock:
            stop, self._stop_local, self._local = self._stop_local, None, None
        if stop is not None:
            stop()
