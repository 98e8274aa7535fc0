"""Concurrency: a re-index of an updated corpus (same process, same settings) while 8 threads keep asking through
one Assistant; and 20 UI sessions at once, with a slow scripted LLM, none of which sees another's history."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from rag.adapters.fakes import ScriptedChatModel
from rag.answer.citations import REFUSAL
from rag.factory import build_index, make_embedder, open_assistant, open_store
from rag.index.indexer import IndexReport
from rag.ports import Embedder, Message
from rag.settings import BUNDLED_CORPUS, Settings, load_settings
from rag.types import Answer
from tests.chroma_server import free_port
from tests.reliability_helpers import WELLS, synthetic_papers, write_jsonl

pytestmark = pytest.mark.slow

QUESTIONS = [
    WELLS,
    "Which paper evaluates AI agents replicating ICML papers?",
    "Summarize the continual learning papers",
    "Who are the authors of PaperBench?",
    "Which papers study coral reef bleaching with underwater photogrammetry?",  # only in the updated corpus
    "What is the stability-plasticity dilemma?",
]


def _bundled() -> list[dict[str, Any]]:
    import json

    return [json.loads(line) for line in BUNDLED_CORPUS.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def embedder(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    return make_embedder(load_settings(home=tmp_path_factory.mktemp("emb"), env={}))


def _valid(answer: Answer, known_ids: set[str]) -> None:
    ids = [h.paper.id for h in answer.sources]
    assert answer.sources and set(ids) <= known_ids, ids
    assert len(ids) == len(set(ids))  # one hit per paper, even while chunks change underneath
    assert answer.text.strip()
    if answer.abstained:
        assert answer.text == REFUSAL and answer.citations == ()
    else:
        assert answer.citations
        for c in answer.citations:
            assert 1 <= c.n <= len(answer.sources) and answer.sources[c.n - 1].paper.id == c.paper_id
    assert answer.unsupported == ()  # the extractive backend quotes its sources


@pytest.mark.timeout(300)
def test_reindex_while_eight_threads_ask_through_one_assistant(tmp_path: Path, embedder: Embedder) -> None:
    settings = load_settings(home=tmp_path / "rag-home", env={}).replace(llm="extractive", embed_batch_size=4)
    build_index(settings, embedder=embedder)
    assistant = open_assistant(settings, embedder=embedder)

    papers = _bundled()
    for p in papers[:6]:
        p["abstract"] = str(p["abstract"]) + " We release all code and data to support reproducibility."
    removed = {str(p["id"]) for p in papers[-2:]}
    updated = papers[:-2] + synthetic_papers(30)
    corpus = write_jsonl(tmp_path / "updated.jsonl", updated)
    known = {str(p["id"]) for p in _bundled()} | {str(p["id"]) for p in updated}

    done = threading.Event()
    report: list[IndexReport] = []
    errors: list[BaseException] = []
    answers: list[Answer] = []
    lock = threading.Lock()

    def reindex() -> None:
        try:
            time.sleep(0.3)  # let the askers get going first
            report.append(build_index(settings, [corpus]))  # its own embedder, as `rag index` would
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            done.set()

    def ask_loop(worker: int) -> int:
        n = 0
        while not done.is_set() or n < 4:
            question = QUESTIONS[(worker + n) % len(QUESTIONS)]
            try:
                answer = assistant.ask(question)
                _valid(answer, known)
            except BaseException as exc:  # noqa: BLE001 - reported below
                with lock:
                    errors.append(exc)
                return n
            with lock:
                answers.append(answer)
            n += 1
        return n

    indexer = threading.Thread(target=reindex)
    with ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(ask_loop, w) for w in range(8)]
        indexer.start()
        indexer.join(240)
        counts = [f.result(timeout=120) for f in futures]
    assert not errors, [f"{type(e).__name__}: {e}" for e in errors]
    assert report and (report[0].embedded, report[0].removed) == (36, 2)
    print(f"{sum(counts)} answers from 8 threads during a re-index of {report[0].seconds:.1f} s")
    assert all(c >= 4 for c in counts)

    # afterwards the index is exactly the updated corpus, and the same Assistant keeps answering
    ids = {str(m.get("paper_id")) for _, m in open_store(settings).open().iter_metadata()}
    assert ids == {str(p["id"]) for p in updated} and not ids & removed
    coral = "Which papers study coral reef bleaching with underwater photogrammetry?"
    _valid(assistant.ask(coral), known)
    # its BM25 catches up with the re-index (checked every 30 s while serving; forced here), in the background
    retriever = assistant.retriever
    wanted = retriever.store.fresh_info().get("lexical_fingerprint")
    retriever.refresh_if_reindexed(every_s=0)
    deadline = time.monotonic() + 60
    while retriever.lexical.fingerprint != wanted and time.monotonic() < deadline:
        time.sleep(0.1)
    assert retriever.lexical.fingerprint == wanted
    assert not {cid.split(":")[0] for cid in retriever.lexical.ids} & removed
    answer = assistant.ask(coral)
    _valid(answer, known)
    assert answer.sources[0].paper.id.startswith("syn-")
    assistant.close()


# --- 20 UI sessions at once, each with its own history -------------------------------------------------------
TAG = re.compile(r"\(ref s(\d\d)\)")
FIRST = [
    (WELLS, "icml2025-00"),
    ("Which paper evaluates AI agents replicating ICML papers?", "icml2025-03"),
    ("Which paper proposes a segment quadtree geographical embedding?", "icml2025-09"),
    ("Which paper studies mixed-curvature decision trees?", "icml2025-04"),
]


def _slow_reply(messages: Sequence[Message]) -> str:
    """The scripted LLM: for a follow-up, the standalone question is the session's first question (read from the
    conversation it was given) plus the follow-up; for an answer, a sentence about source [1]."""
    content = messages[-1]["content"]
    if "Standalone question:" in content:
        users = [line[len("user: "):] for line in content.splitlines() if line.startswith("user: ")]
        last = re.search(r"Last question: (.*)", content)
        return f"{users[0] if users else ''} {last.group(1) if last else ''}".strip()
    title = re.search(r"^\[1\] (.+?)(?: \(|$)", content, re.MULTILINE)
    return f"{title.group(1) if title else 'The first source'} is the most relevant source [1]."


@pytest.fixture(scope="module")
def ui(bundled_settings: Settings) -> Iterator[tuple[str, ScriptedChatModel]]:
    from ui.app import build_app

    fake = ScriptedChatModel(_slow_reply, delay_s=0.02)
    assistant = open_assistant(bundled_settings.replace(llm="auto"), chat_model=fake)
    demo = build_app(assistant, bundled_settings)
    port = free_port()
    demo.queue(default_concurrency_limit=8).launch(
        server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, show_error=False
    )
    try:
        yield f"http://127.0.0.1:{port}", fake
    finally:
        demo.close()
        assistant.close()


@pytest.mark.timeout(300)
def test_twenty_ui_sessions_never_see_each_others_history(ui: tuple[str, ScriptedChatModel]) -> None:
    from gradio_client import Client

    url, fake = ui

    def session(i: int) -> tuple[str, str, str]:
        client = Client(url, verbose=False)
        question, _ = FIRST[i % len(FIRST)]
        client.predict(message=f"{question} (ref s{i:02d})", api_name="/respond")
        answer, sources = client.predict(message=f"And who are its authors? (ref s{i:02d})", api_name="/respond")
        return question, str(answer), str(sources)

    started = time.perf_counter()
    with ThreadPoolExecutor(20) as pool:
        results = list(pool.map(session, range(20)))
    print(f"20 concurrent two-turn sessions in {time.perf_counter() - started:.1f} s")

    for i, (question, answer, sources) in enumerate(results):
        expected = FIRST[i % len(FIRST)][1]
        assert "answered by" in answer, answer[:300]
        assert f'data-paper-id="{expected}"' in sources, (i, question)  # the follow-up used this session's topic

    # every condensing call saw exactly one session's conversation: its own tag, never another's
    condense = [m[-1]["content"] for m in fake.calls if "Standalone question:" in m[-1]["content"]]
    assert len(condense) == 20
    for content in condense:
        tags = set(TAG.findall(content))
        assert len(tags) == 1, tags
        transcript = content.split("Conversation:", 1)[1].split("Last question:", 1)[0]
        assert transcript.count("user: ") == 1  # only the session's own first question
