"""Where a large build spends its time and memory: build_index on N synthetic papers with hash vectors.

    .venv/bin/python bench/profile_build.py [--n 100000] [--cprofile]

Wraps (monkeypatches, in this process only) the indexer's stages: reading, chunking, the embedder, the
store writes, the BM25 build and save, and samples this process's RSS every 0.1 s, attributing the peak to the
stage that was running. --cprofile adds a cProfile of the whole build (slower; top functions saved to
bench/results/profile_build_<n>.txt). Writes bench/results/profile_build_<n>.json.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import threading
import time
from pathlib import Path

import common

stage = ["setup"]
spent: dict[str, float] = {}
overlapped: dict[str, float] = {}
peak: dict[str, int] = {}


def _rss() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS"):
            return int(line.split()[1]) * 1024
    return 0


def _sampler(stop: threading.Event) -> None:
    while not stop.wait(0.1):
        name = stage[-1]
        peak[name] = max(peak.get(name, 0), _rss())


def staged(name: str, fn):
    def wrapper(*args, **kwargs):
        stage.append(name)
        t = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[name] = spent.get(name, 0.0) + time.perf_counter() - t
            stage.pop()

    return wrapper


def staged_iter(name: str, fn):
    """Time each step of an iterator (the indexer streams papers from the files)."""

    def wrapper(*args, **kwargs):
        it = fn(*args, **kwargs)
        while True:
            stage.append(name)
            t = time.perf_counter()
            try:
                item = next(it)
            except StopIteration:
                return
            finally:
                spent[name] = spent.get(name, 0.0) + time.perf_counter() - t
                stage.pop()
            yield item

    return wrapper


def background(name: str, fn):
    """Time calls made on another thread: reported, but not part of the stage sum (they overlap)."""

    def wrapper(*args, **kwargs):
        t = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            overlapped[name] = overlapped.get(name, 0.0) + time.perf_counter() - t

    return wrapper


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=100000)
    parser.add_argument("--cprofile", action="store_true")
    args = parser.parse_args()
    common.check_quiet()

    from rag import factory
    from rag.adapters.chroma_store import ChromaStore
    from rag.adapters.fakes import HashEmbedder
    from rag.index import indexer
    from rag.index import writer as index_writer
    from rag.index.docstore import DocStoreBuilder
    from rag.index.lexical import LexicalBuilder, LexicalIndex
    from rag.settings import load_settings

    indexer.iter_papers = staged_iter("read", indexer.iter_papers)
    indexer.chunk_paper = staged("chunk", indexer.chunk_paper)
    ChromaStore.upsert = background("store writes (background thread)", ChromaStore.upsert)
    index_writer.EmbedWriter.barrier = staged("waiting for store writes", index_writer.EmbedWriter.barrier)
    LexicalBuilder.add = staged("bm25 tokenize", LexicalBuilder.add)
    LexicalBuilder.finish = staged("bm25 build", LexicalBuilder.finish)
    LexicalIndex.save = staged("bm25 save", LexicalIndex.save)
    DocStoreBuilder.add = staged("docstore", DocStoreBuilder.add)
    DocStoreBuilder.set_vector = staged("docstore", DocStoreBuilder.set_vector)
    DocStoreBuilder.finish = staged("docstore", DocStoreBuilder.finish)
    embedder = HashEmbedder(384)
    embedder.embed_batch = staged("embed (hash)", embedder.embed_batch)  # type: ignore[method-assign]

    stop = threading.Event()
    thread = threading.Thread(target=_sampler, args=(stop,), daemon=True)
    with tempfile.TemporaryDirectory() as tmp:
        corpus = common.write_corpus(Path(tmp) / "corpus.jsonl", args.n)
        settings = load_settings(env={}, home=str(Path(tmp) / "home"))
        thread.start()
        stage.append("build (other)")
        t = time.perf_counter()
        if args.cprofile:
            import cProfile
            import pstats

            prof = cProfile.Profile()
            report = prof.runcall(factory.build_index, settings, [corpus], embedder=embedder)
            with open(common.RESULTS / f"profile_build_{args.n}.txt", "w") as f:
                pstats.Stats(prof, stream=f).sort_stats("cumulative").print_stats(40)
        else:
            report = factory.build_index(settings, [corpus], embedder=embedder)
        total = time.perf_counter() - t
        stop.set()
        thread.join()
    spent["build (other)"] = total - sum(spent.values())
    peak_total = common.peak_rss_of(os.getpid())
    result = {
        "machine": common.machine(),
        "n": args.n,
        "report": report.line(),
        "total_s": total,
        "cprofile": args.cprofile,
        "peak_rss_mb": peak_total / 2**20,
        "stages": {k: {"s": spent.get(k, 0.0), "peak_rss_mb": peak.get(k, 0) / 2**20} for k in spent},
        "overlapped_s": overlapped,
    }
    common.save(f"profile_build_{args.n}", result)
    rows = sorted(result["stages"].items(), key=lambda kv: -kv[1]["s"])
    print(common.table(["stage", "seconds", "share", "peak RSS MB"], [
        (k, v["s"], f"{100 * v['s'] / total:.1f}%", v["peak_rss_mb"]) for k, v in rows
    ]))  # fmt: skip
    print(f"\n{report.line()}; total {total:.1f}s, process peak RSS {result['peak_rss_mb']:.0f} MB")
    print(f"on the background thread, overlapping the stages: {overlapped}")


if __name__ == "__main__":
    main()
