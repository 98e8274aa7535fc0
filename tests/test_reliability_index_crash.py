"""`kill -9` of a `rag index` run midway (real MiniLM embedder, embedded Chroma): the previous index keeps answering
in a new process; re-running completes; afterwards the store holds exactly one chunk per expected chunk id (no
duplicates, no orphans) and the BM25 ids are the store's ids."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from rag.corpus import read_papers
from rag.factory import build_index, layout_of, open_store
from rag.index.chunking import chunk_paper
from rag.index.lexical import LexicalIndex
from rag.settings import Settings, load_settings
from tests.reliability_helpers import ROOT, WELLS, cli_env, run_rag, synthetic_papers, write_jsonl

pytestmark = pytest.mark.slow
PROGRESS = re.compile(r"(?<!file )\b(\d+)/(\d+)")  # the embedding bar's count, not the reading bar's "file 1/1"


def _expected_ids(settings: Settings, corpus: Path) -> list[str]:
    return [
        c.id
        for p in read_papers([corpus])
        for c in chunk_paper(p, settings.index.chunk_tokens, settings.index.chunk_overlap)
    ]


def _store_ids(settings: Settings) -> list[str]:
    return [cid for cid, _ in open_store(settings).open().iter_metadata()]


def _index_and_kill(corpus: Path, home: Path, chunks: int, after_chunks: int) -> tuple[int, int, str]:
    """Start `rag index corpus`, read tqdm's progress on stderr, SIGKILL it once `after_chunks` of its `chunks` are
    done. The bar counts papers (chunks spread evenly over them) or chunks: both are converted to chunks.
    Returns (progress seen done, its total, stderr)."""
    env = cli_env(home, {"RAG_EMBED_BATCH_SIZE": "8", "RAG_PROGRESS": "1"})
    proc = subprocess.Popen(
        [sys.executable, "-m", "rag.cli", "index", str(corpus)], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    assert proc.stderr is not None
    seen = {"done": 0, "total": 0}
    captured: list[bytes] = []
    reached = threading.Event()

    def read() -> None:
        assert proc.stderr is not None
        buffer = b""
        while chunk := proc.stderr.read1(4096):  # type: ignore[attr-defined]
            captured.append(chunk)
            buffer = (buffer + chunk)[-400:]
            for done, total in PROGRESS.findall(buffer.decode("utf-8", "replace")):
                seen["done"], seen["total"] = max(seen["done"], int(done)), int(total)
            if seen["total"] and seen["done"] * chunks / seen["total"] >= after_chunks:
                reached.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert reached.wait(180), f"no progress to {after_chunks} chunks: {b''.join(captured)[-2000:]!r}"
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
    reader.join(10)
    assert proc.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    return seen["done"], seen["total"], b"".join(captured).decode("utf-8", "replace")


@pytest.mark.timeout(600)
def test_kill_9_midway_keeps_the_previous_index_and_a_rerun_completes_exactly(tmp_path: Path) -> None:
    home = tmp_path / "rag-home"
    settings = load_settings(home=home, env={})
    first = build_index(settings)  # the previous index: the bundled 19 papers, real embedder
    assert first.chunks == 19
    records = [*synthetic_papers(60, sentences=5), *synthetic_papers(20, prefix="long", sentences=14)]
    corpus = write_jsonl(tmp_path / "synthetic.jsonl", records)
    expected = _expected_ids(settings, corpus)
    assert len(expected) >= 100 and any(cid.endswith(":1") for cid in expected)  # some papers have 2+ chunks

    done, total, stderr = _index_and_kill(corpus, home, len(expected), after_chunks=16)
    assert total in (80, len(expected)) and done * len(expected) / total >= 16 and done < total, (done, total)
    assert "Traceback" not in stderr

    # the previous index still answers, in a new process
    assert layout_of(settings).dirty_marker.exists()
    proc = run_rag(["ask", WELLS, "--json", "--llm", "extractive"], home)
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert "213,000" in answer["answer"] and answer["citations"][0]["paper_id"] == "icml2025-00"
    search = run_rag(["search", "stability plasticity continual learning", "--json", "-k", "3"], home)
    assert search.returncode == 0, search.stderr
    assert json.loads(search.stdout)["hits"][0]["paper_id"] in {"icml2025-01", "icml2025-18"}
    partial = _store_ids(settings)
    assert len(partial) == len(set(partial))
    assert {f"icml2025-{i:02d}:0" for i in range(19)} <= set(partial)  # nothing of the old index was removed yet
    assert len(set(partial) & set(expected)) >= 16  # the finished batches were written

    # re-running completes, without redoing the finished batches
    rerun = run_rag(["index", str(corpus)], home, timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    report = re.search(
        r"indexed (\d+) papers: (\d+) chunks, (\d+) embedded, (\d+) unchanged, (\d+) removed", rerun.stdout
    )
    assert report, rerun.stdout
    papers, chunks, embedded, unchanged, removed = map(int, report.groups())
    assert (papers, chunks, removed) == (80, len(expected), 19)
    assert unchanged >= 16 and embedded + unchanged == len(expected)
    assert not layout_of(settings).dirty_marker.exists()

    # exactly one chunk per expected id: no duplicates, no orphans; BM25 agrees with the store
    ids = _store_ids(settings)
    assert len(ids) == len(set(ids)) == open_store(settings).open().count() == len(expected)
    assert set(ids) == set(expected)
    lexical = LexicalIndex.load(layout_of(settings).lexical_dir)
    assert lexical is not None
    assert len(lexical.ids) == len(set(lexical.ids)) and set(lexical.ids) == set(ids)

    final = run_rag(["search", "coral reef bleaching underwater photogrammetry", "--json", "-k", "3"], home)
    assert final.returncode == 0 and json.loads(final.stdout)["hits"][0]["paper_id"].startswith(("syn-", "long-"))
