"""Search latency of this checkout against an earlier version of the code, side by side on the same index.

    .venv/bin/python bench/bench_retrieval_speed.py --before DIR [--papers 10000] [--rounds 6] [--home DIR]

DIR is a source tree of the earlier version (e.g. `git archive <commit> | tar -x -C DIR`). The synthetic corpus of
bench/common.py is indexed once by the earlier code (rag.adapters.fakes.HashEmbedder vectors, sentence vectors
on, as bench_scale.py does); a copy is opened by this checkout, which rebuilds BM25 to its own recipe from the
docstore (that one-off upgrade is timed too). Then child processes alternate, before / after / before / ...,
each opening its retriever, warming up, and timing over the same ~100 queries (dev questions and keyword
variants) what `rag search` does per query: the MiniLM query embedding, then `Retriever.search(q, 10)` (with the
index's hash vector). Both are timed in one loop, so a search that slows the next embedding (OpenBLAS threads left
spinning after a `@` product did) shows in "p50 total".

Each search's CPU time (its thread's) is recorded beside its wall time: on a shared machine the wall time mostly
measures the neighbours, the CPU time much less. Writes bench/results/retrieval_speed.json. Run it nice'd on a
quiet machine; compare the ratio, not the times.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import common


def child(args: argparse.Namespace) -> None:
    """Runs inside one version's source tree: build, or time searches; prints one JSON line."""
    sys.path.insert(0, os.environ["RAG_BENCH_SOURCE"])  # before common.py's own checkout
    import rag
    from rag.adapters.fakes import HashEmbedder
    from rag.factory import build_index, open_retriever
    from rag.settings import load_settings

    settings = load_settings(env={}, home=args.home, llm="extractive")
    if args.child == "build":
        build_index(settings, [args.corpus], embedder=HashEmbedder(384))
        print(json.dumps({"source": str(Path(rag.__file__).parent)}))
        return
    from rag.adapters.embedding import MiniLMEmbedder

    t = time.perf_counter()
    retriever = open_retriever(settings, embedder=HashEmbedder(384))
    retriever.search("warm up the index", 10)
    opened = time.perf_counter() - t
    minilm = MiniLMEmbedder()  # what `rag search` runs before each search; timed in the same loop, so any effect
    queries = common.query_set(args.queries)  # of the search on the next embedding (threads left spinning) shows
    for q in queries[:10]:
        minilm.embed_batch([q])
        retriever.search(q, 10)
    times, cpu, total = [], [], []
    for q in queries:
        start = time.perf_counter()
        minilm.embed_batch([q])
        t, c = time.perf_counter(), time.thread_time()
        retriever.search(q, 10)
        cpu.append(1000 * (time.thread_time() - c))
        times.append(1000 * (time.perf_counter() - t))
        total.append(1000 * (time.perf_counter() - start))
    print(json.dumps({"source": str(Path(rag.__file__).parent), "open_s": opened, "p50_ms": common.pct(times, 50),
                      "p95_ms": common.pct(times, 95), "cpu_p50_ms": common.pct(cpu, 50),
                      "total_p50_ms": common.pct(total, 50), "queries": len(times)}))  # fmt: skip


def run(source: Path, kind: str, home: Path, corpus: Path | None, queries: int) -> dict:
    env = {**os.environ, "RAG_BENCH_SOURCE": str(source)}
    cmd = [sys.executable, __file__, "--child", kind, "--home", str(home), "--queries", str(queries)]
    if corpus is not None:
        cmd += ["--corpus", str(corpus)]
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    if Path(result["source"]).resolve() != (source / "rag").resolve():
        raise SystemExit(f"the child imported rag from {result['source']}, not from {source}")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, help="source tree of the earlier version")
    parser.add_argument("--papers", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--home", type=Path, default=Path("/tmp/rag-bench-retrieval-speed"))
    parser.add_argument("--child", choices=["build", "query"])
    parser.add_argument("--corpus", type=Path)
    args = parser.parse_args()
    if args.child:
        args.home = str(args.home)
        child(args)
        return
    if args.before is None or not (args.before / "rag").is_dir():
        parser.error("--before must be a source tree of the earlier version (it holds rag/)")
    before_home, after_home = args.home / f"before-{args.papers}", args.home / f"after-{args.papers}"
    if not (before_home / "index").is_dir():
        corpus = common.write_corpus(args.home / f"corpus-{args.papers}.jsonl", args.papers)
        t = time.perf_counter()
        run(args.before, "build", before_home, corpus, args.queries)
        print(f"built {args.papers:,} papers with the earlier code in {time.perf_counter() - t:.0f} s", flush=True)
    shutil.rmtree(after_home, ignore_errors=True)
    shutil.copytree(before_home, after_home)
    upgrade = run(common.ROOT, "query", after_home, None, args.queries)["open_s"]  # rebuilds BM25 once
    rounds: dict[str, list[dict]] = {"before": [], "after": []}
    for i in range(args.rounds):
        for name, source, home in (("before", args.before, before_home), ("after", common.ROOT, after_home)):
            rounds[name].append(run(source, "query", home, None, args.queries))
            last = rounds[name][-1]
            print(f"round {i + 1} {name}: search p50 {last['p50_ms']:.2f} ms (CPU {last['cpu_p50_ms']:.2f} ms), "
                  f"embedding + search p50 {last['total_p50_ms']:.2f} ms", flush=True)
    summary = {}
    for name, rows in rounds.items():
        summary[name] = {"search_p50_ms": statistics.median(r["p50_ms"] for r in rows),
                         "search_p95_ms": statistics.median(r["p95_ms"] for r in rows),
                         "search_cpu_p50_ms": statistics.median(r["cpu_p50_ms"] for r in rows),
                         "p50_total_ms": statistics.median(r["total_p50_ms"] for r in rows),
                         "per_round_total_p50_ms": [r["total_p50_ms"] for r in rows]}  # fmt: skip
    result = {
        "papers": args.papers,
        "rounds": args.rounds,
        "queries": args.queries,
        "before_source": str(args.before),
        "upgrade_open_s": upgrade,
        **summary,
        "ratio_p50_total": summary["after"]["p50_total_ms"] / summary["before"]["p50_total_ms"],
        "ratio_search_p50": summary["after"]["search_p50_ms"] / summary["before"]["search_p50_ms"],
        "ratio_search_cpu_p50": summary["after"]["search_cpu_p50_ms"] / summary["before"]["search_cpu_p50_ms"],
        "machine": common.machine(),
    }
    print(json.dumps({k: v for k, v in result.items() if k != "machine"}, indent=1))
    common.save("retrieval_speed", result)


if __name__ == "__main__":
    main()
