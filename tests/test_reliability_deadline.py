"""Bounded time (issue 14 item 9): an answer ends by `answer_deadline_s` and within `max_tokens` whatever the LLM
endpoint does (SSE comments forever, a token every 0.3 s, words without end), and a Chroma server that accepts
connections but never answers is a one-line error after `chroma_timeout_s`, not a hang.

Every test here hung (until pytest's timeout) before the fix; none asserts a duration."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag.answer.assistant import Assistant
from rag.errors import StoreUnavailableError
from rag.factory import build_index, make_embedder, open_assistant, open_retriever
from rag.ports import Embedder
from rag.settings import Settings, load_settings
from tests.fault_server import FaultServer
from tests.hang_server import HangProxy
from tests.reliability_helpers import WELLS, assert_clean_failure, run_rag

ANSWER = "Our curated Dataset comprises over 213,000 wells (abandoned, suspended, and active) from Alberta [1]. "


@pytest.fixture(scope="module")
def embedder(bundled_settings: Settings) -> Embedder:
    return make_embedder(bundled_settings)


def _bounded(settings: Settings, server: FaultServer, embedder: Embedder, **changes: object) -> Assistant:
    values = {"llm": "openai", "openai_base_url": server.base_url, "model": "x", "max_retries": 1, "timeout_s": 2,
              "retry_max_wait_s": 0.05, "verify": "offline", "answer_deadline_s": 2, **changes}  # fmt: skip
    s = settings.replace(**values)
    return open_assistant(s, embedder=embedder)


def _wait_for_no_stream_threads() -> list[str]:
    """The stream readers of finished answers end (their connection is closed); polled, never timed."""
    for _ in range(100):
        alive = [t.name for t in threading.enumerate() if t.name == "rag-llm-stream"]
        if not alive:
            return []
        time.sleep(0.1)
    return alive


@pytest.mark.timeout(60)
def test_sse_comments_forever_end_at_the_deadline_with_the_extractive_answer(bundled_settings, embedder) -> None:
    with FaultServer(["sse_comments"]) as server:
        assistant = _bounded(bundled_settings, server, embedder)
        answer = assistant.ask(WELLS)
        assistant.close()
        assert _wait_for_no_stream_threads() == []  # the reader was told to stop and its connection closed
        for _ in range(100):  # the server notices the hang-up at its next writes (one every 0.2 s)
            if server.closed_by_client:
                break
            time.sleep(0.1)
        assert server.closed_by_client == 1
    assert answer.backend == "extractive" and "213,000" in answer.text  # answered from the same sources
    assert any("did not finish within the answer deadline of 2 s (answer_deadline_s)" in n for n in answer.notes)
    assert answer.sources and answer.complete


@pytest.mark.timeout(60)
def test_a_token_every_300_ms_is_cut_at_the_deadline_and_marked_incomplete(bundled_settings, embedder) -> None:
    with FaultServer(["slow_tokens"], reply=ANSWER * 20, token_s=0.3) as server:
        assistant = _bounded(bundled_settings, server, embedder)
        answer = assistant.ask(WELLS)
        assistant.close()
    assert answer.backend == "openai"
    assert not answer.complete and answer.text.startswith("Our curated Dataset")
    assert any("incomplete" in n and "answer deadline of 2 s" in n for n in answer.notes), answer.notes


@pytest.mark.timeout(60)
def test_an_endpoint_that_ignores_max_tokens_is_cut_on_our_side(bundled_settings, embedder) -> None:
    with FaultServer(["endless"], reply=ANSWER * 3) as server:
        assistant = _bounded(bundled_settings, server, embedder, max_tokens=40, answer_deadline_s=60)
        answer = assistant.ask(WELLS)
        assistant.close()
        assert _wait_for_no_stream_threads() == []
    assert not answer.complete
    assert any("kept writing past max_tokens (40)" in n for n in answer.notes), answer.notes
    assert len(answer.text.split()) < 120  # 40 tokens and the slack, not the endless stream


@pytest.mark.timeout(60)
def test_a_10_mb_answer_in_one_piece_keeps_what_fits_in_max_tokens(bundled_settings, embedder) -> None:
    """Issue 24 item 11: a server that sends the whole completion as one delta, 10 MB past max_tokens. The piece
    that crossed the limit was dropped whole, so the answer was empty; now its start (up to the limit, at a word
    boundary) is kept, marked incomplete."""
    with FaultServer(["ok"]) as server:
        server.set_reply(ANSWER + "and then some more " * 550_000, whole=True)
        assert len(server.reply) > 10_000_000
        assistant = _bounded(bundled_settings, server, embedder, max_tokens=100, answer_deadline_s=60)
        answer = assistant.ask(WELLS)
        assistant.close()
    assert not answer.complete
    assert answer.text.startswith("Our curated Dataset comprises over 213,000 wells"), answer.text[:200]
    assert answer.text.split()[-1] in ("and", "then", "some", "more")  # cut at a word boundary
    assert len(answer.text) <= 4 * (100 + 32), len(answer.text)
    assert any("kept writing past max_tokens (100)" in n for n in answer.notes), answer.notes
    assert answer.citations and answer.citations[0].paper_id == "icml2025-00"


@pytest.mark.timeout(60)
def test_the_deadline_covers_the_llm_check_too(bundled_settings, embedder) -> None:
    """verify=llm: the claim check is one more call to the same endpoint, within the same deadline."""
    with FaultServer(["ok"], reply=ANSWER, rules=[("You check an answer written from", "sse_comments")]) as server:
        assistant = _bounded(bundled_settings, server, embedder, verify="llm")
        answer = assistant.ask(WELLS)
        assistant.close()
    assert answer.backend == "openai" and "213,000" in answer.text
    assert any("LLM check failed" in n and "answer deadline" in n for n in answer.notes), answer.notes


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_rag_ask_with_an_endpoint_that_never_finishes_returns(tmp_path: Path, bundled_home: Path) -> None:
    home = shutil.copytree(bundled_home, tmp_path / "home")
    env = {"RAG_ANSWER_DEADLINE_S": "2", "RAG_TIMEOUT_S": "5", "RAG_MAX_RETRIES": "1"}
    with FaultServer(["sse_comments"]) as server:
        proc = run_rag(["ask", WELLS, "--llm", "openai", "--base-url", server.base_url, "--model", "x"], home,
                       env=env, timeout=100)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "213,000" in proc.stdout and "Sources:" in proc.stdout
    assert "did not finish within the answer deadline of 2 s" in proc.stderr


# --- a Chroma server that accepts connections and never answers ---------------------------------------------------
@pytest.mark.timeout(120)
def test_rag_search_against_a_silent_chroma_server_is_one_line(tmp_path: Path) -> None:
    with HangProxy() as silent:
        proc = run_rag(["search", "wells", "--chroma-url", silent.url], tmp_path / "home",
                       env={"RAG_CHROMA_TIMEOUT_S": "1"}, timeout=100)  # fmt: skip
        assert silent.accepted >= 1
    line = assert_clean_failure(proc)
    assert f"the Chroma server at {silent.url} did not answer within 1 s (chroma_timeout_s)" in line


@pytest.fixture
def proxied(chroma_url: str, tmp_path: Path, embedder: Embedder) -> Iterator[tuple[HangProxy, Settings]]:
    host, port = chroma_url.removeprefix("http://").split(":")
    with HangProxy(host, int(port)) as proxy:
        s = load_settings(home=tmp_path / "home", env={}).replace(
            chroma_url=proxy.url, collection="hang-test", chroma_timeout_s=1, exact_search_max_chunks=0
        )
        build_index(s, embedder=embedder)
        yield proxy, s


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_a_chroma_server_that_stops_answering_mid_session_is_a_clear_error(proxied, embedder) -> None:
    proxy, s = proxied
    retriever = open_retriever(s, embedder=embedder)
    assert retriever.search(WELLS, 3)[0].paper.id == "icml2025-00"
    proxy.hang.set()
    for _ in range(2):
        with pytest.raises(StoreUnavailableError) as info:
            retriever.search(WELLS, 3)
        assert f"the vector store at {proxy.url} did not answer within 1 s" in str(info.value)
    proxy.hang.clear()  # the server answers again: the same retriever recovers
    assert retriever.search(WELLS, 3)[0].paper.id == "icml2025-00"
