"""LLM endpoint faults end to end: Assistant (and `rag ask`) against the fault-injecting OpenAI-compatible server,
over the bundled index. Every fault ends in an Answer, never an exception: it still carries the retrieved
sources, a note names the failure, and a stream that broke off is marked incomplete. tests/test_llm.py covers
the adapter itself."""

from __future__ import annotations

import time

import pytest

from rag.answer.assistant import Assistant
from rag.factory import make_embedder, open_assistant
from rag.ports import Embedder
from rag.settings import Settings
from rag.types import Answer, AnswerEvent, SourcesEvent
from tests.chroma_server import free_port
from tests.fault_server import FaultServer
from tests.reliability_helpers import WELLS, run_rag


@pytest.fixture(scope="module")
def embedder(bundled_settings: Settings) -> Embedder:
    return make_embedder(bundled_settings)  # the ONNX model loaded once for the module


@pytest.fixture(scope="module")
def expected_sources(assistant: Assistant) -> list[str]:
    """What retrieval finds for the question, whatever the answer backend does."""
    return [h.paper.id for h in assistant.ask(WELLS).sources]


def _faulty(settings: Settings, base_url: str, embedder: Embedder) -> Assistant:
    return open_assistant(
        settings.replace(
            llm="openai", openai_base_url=base_url, model="x", max_retries=2, timeout_s=1, retry_max_wait_s=0.05
        ),
        embedder=embedder,
    )


def _check_sources(answer: Answer, expected: list[str]) -> None:
    assert [h.paper.id for h in answer.sources] == expected
    ids = {h.paper.id for h in answer.sources}
    assert all(c.paper_id in ids for c in answer.citations)


# (script, words the note must contain, requests the server must have seen: retried or not)
FALLBACK_FAULTS: dict[str, tuple[list[str], tuple[str, ...], int]] = {
    "429_retry_after": (["429", "429"], ("failed after 2 attempts", "rate limited (429)"), 2),
    "500": (["500", "500"], ("failed after 2 attempts", "server error (500)"), 2),
    "503": (["503", "503"], ("failed after 2 attempts", "server error (503)"), 2),
    "hang": (["hang", "hang"], ("failed after 2 attempts", "timed out after 1 s"), 2),
    "malformed_body": (["malformed"], ("malformed response",), 1),
    "malformed_json": (["bad_json"], ("malformed response", "JSONDecodeError"), 1),
    "empty_choices": (["empty_choices"], ("malformed response", "no choices"), 1),
    "401": (["401"], ("authentication failed (401)",), 1),
    "quota": (["quota"], ("out of quota",), 1),
}


@pytest.mark.timeout(30)
@pytest.mark.parametrize("fault", list(FALLBACK_FAULTS))
def test_endpoint_failure_answers_from_the_sources_with_a_note(
    fault: str, bundled_settings: Settings, embedder: Embedder, expected_sources: list[str]
) -> None:
    script, words, requests = FALLBACK_FAULTS[fault]
    with FaultServer(script, hang_s=3) as server:
        a = _faulty(bundled_settings, server.base_url, embedder)
        started = time.perf_counter()
        answer = a.ask(WELLS)
        elapsed = time.perf_counter() - started
        a.close()
    assert server.count == requests  # retried only where waiting can help
    _check_sources(answer, expected_sources)
    assert answer.backend == "extractive" and "213,000" in answer.text and answer.citations
    assert answer.complete and not answer.unsupported
    note = next(n for n in answer.notes if "LLM endpoint" in n)
    assert all(w in note for w in words), answer.notes
    assert "showing the extractive answer instead" in note and "\n" not in note
    assert elapsed < 15, f"{fault} took {elapsed:.1f} s"


@pytest.mark.timeout(30)
def test_rate_limit_then_success_is_retried_transparently(
    bundled_settings: Settings, embedder: Embedder, expected_sources: list[str]
) -> None:
    with FaultServer(["429", "ok"]) as server:
        answer = _faulty(bundled_settings, server.base_url, embedder).ask(WELLS)
    assert server.count == 2
    _check_sources(answer, expected_sources)
    assert not any("failed after" in n for n in answer.notes)  # the retry worked: no failure to report


@pytest.mark.timeout(30)
def test_connection_refused_answers_from_the_sources(
    bundled_settings: Settings, embedder: Embedder, expected_sources: list[str]
) -> None:
    answer = _faulty(bundled_settings, f"http://127.0.0.1:{free_port()}/v1", embedder).ask(WELLS)
    _check_sources(answer, expected_sources)
    assert answer.backend == "extractive" and "213,000" in answer.text
    assert any("failed after 2 attempts: connection failed" in n for n in answer.notes), answer.notes


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("behaviour", "reason"),
    [
        ("drop_midstream", "connection failed"),
        ("stall_midstream", "timed out after 1 s"),
        ("no_finish", "ended without a finish reason"),
    ],
)
def test_half_streamed_answer_is_marked_incomplete(
    behaviour: str, reason: str, bundled_settings: Settings, embedder: Embedder, expected_sources: list[str]
) -> None:
    with FaultServer([behaviour], hang_s=3) as server:
        events = list(_faulty(bundled_settings, server.base_url, embedder).ask_stream(WELLS))
    assert server.count == 1  # text already reached the reader: never retried
    assert isinstance(events[0], SourcesEvent) and [h.paper.id for h in events[0].hits] == expected_sources
    answer = events[-1].answer if isinstance(events[-1], AnswerEvent) else None
    assert answer is not None
    _check_sources(answer, expected_sources)
    assert answer.complete is False and answer.backend == "openai"
    assert answer.text.startswith("Hello from")
    note = next(n for n in answer.notes if n.startswith("incomplete:"))
    assert reason in note and "broke off the answer" in note


@pytest.mark.timeout(60)
@pytest.mark.parametrize("script", [["500", "500"], ["drop_midstream"]], ids=["500", "drop_midstream"])
def test_rag_ask_cli_survives_endpoint_faults(script: list[str], bundled_settings: Settings) -> None:
    with FaultServer(script) as server:
        proc = run_rag(
            ["ask", WELLS, "--llm", "openai", "--base-url", server.base_url, "--model", "x"],
            bundled_settings.home,
            env={"RAG_MAX_RETRIES": "2", "RAG_TIMEOUT_S": "1", "RAG_RETRY_MAX_WAIT_S": "0.05"},
        )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout
    assert "Alberta Wells Dataset: Pinpointing Oil and Gas Wells" in proc.stdout  # the sources are listed
    assert "https://arxiv.org/abs/2410.09032" in proc.stdout
    if script[0] == "500":
        assert "213,000" in proc.stdout and "\nSources:\n" in proc.stdout
        assert "note: LLM endpoint" in proc.stderr and "server error (500)" in proc.stderr
    else:
        assert "[incomplete: the model's answer was cut off]" in proc.stdout
        assert "Retrieved papers (none cited):" in proc.stdout
        assert "note: incomplete:" in proc.stderr
