"""The Chroma server goes away mid-session and comes back: a clear one-line StoreUnavailableError meanwhile, and
the SAME Assistant answers again once `chroma run` is restarted on the same port and path (no restart of ours)."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag.adapters.fakes import HashEmbedder
from rag.errors import RagError, StoreUnavailableError
from rag.factory import build_index, open_assistant
from rag.filters import Filters
from rag.settings import Settings, load_settings
from tests.chroma_server import ChromaServer
from tests.reliability_helpers import WELLS, assert_clean_failure, run_rag

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaServer]:
    srv = ChromaServer(tmp_path_factory.mktemp("chroma-outage") / "data").start()  # a fixed free port, a tmp path
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def remote(server: ChromaServer, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    home = tmp_path_factory.mktemp("chroma-outage-home") / "rag-home"
    s = load_settings(home=home, env={}).replace(chroma_url=server.url, llm="extractive")
    build_index(s, embedder=HashEmbedder(64))
    return s


def _stop(server: ChromaServer, how: str) -> None:
    assert server.proc is not None
    if how == "kill":
        server.proc.send_signal(signal.SIGKILL)
        server.proc.wait(10)
    else:
        server.stop()
    assert server.proc.poll() is not None


@pytest.mark.timeout(120)
@pytest.mark.parametrize("how", ["terminate", "kill"])
def test_server_stop_is_a_clear_error_and_the_same_assistant_recovers(
    how: str, server: ChromaServer, remote: Settings, tmp_path: Path
) -> None:
    assistant = open_assistant(remote, embedder=HashEmbedder(64))  # 19 chunks: searched exactly from local copies
    hnsw = open_assistant(remote.replace(exact_search_max_chunks=0), embedder=HashEmbedder(64))
    before = assistant.ask(WELLS)
    assert "213,000" in before.text and before.citations[0].paper_id == "icml2025-00"
    assert hnsw.ask(WELLS).text == before.text

    _stop(server, how)
    # a small index is searched from this process's docstore: an open assistant keeps answering while it is down
    assert assistant.ask(WELLS).text == before.text
    for _ in range(2):  # searches that need the server, twice while still down: the same clear error, no hang
        for ask in (
            lambda: hnsw.ask(WELLS),
            lambda: assistant.retriever.search(WELLS, 3, filters=Filters(year_min=2025)),
        ):
            with pytest.raises(StoreUnavailableError) as info:
                ask()
            message = str(info.value)
            assert isinstance(info.value, RagError)
            assert server.url in message and "unreachable" in message and "\n" not in message
    # the CLI says it in one line, with no traceback
    line = assert_clean_failure(run_rag(["search", "wells", "--chroma-url", server.url], tmp_path / "cli-home"))
    assert server.url in line

    server.start()  # same port, same path
    for recovered in (assistant, hnsw):
        after = recovered.ask(WELLS)
        assert after.text == before.text
        assert [h.paper.id for h in after.sources] == [h.paper.id for h in before.sources]
        assert recovered.retriever.search("continual learning", 3, filters=Filters(year_min=2025))
        recovered.close()
