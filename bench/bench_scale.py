"""Query latency, memory and disk at scale: 1k, 10k, 100k papers (embedded Chroma; one size also on a server).

    .venv/bin/python bench/bench_scale.py [--sizes 1000 10000 100000] [--server-size 10000] [--profile-build N]

Index vectors are rag.fakes.HashEmbedder(384) vectors (MiniLM would need hours at 100k on 2 cores). The real
query-embedding cost is measured in the same process on the same queries (MiniLM, one query at a time) and
added: "p50/p95 total" = MiniLM query embedding + hybrid Retriever.search(q, 10) with the hash vector.
Per size: build time and peak RSS (a fresh subprocess running build_index), disk size of RAG_HOME, then in
a fresh subprocess: cold start (process start -> first result: imports, open the Retriever, load MiniLM,
embed, search), latency over ~100 queries (dev questions + keyword variants) and peak RSS.
Writes bench/results/scale.json and bench/results/scale.png.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common

GOALS = {"p50_ms": 60.0, "p95_ms": 150.0, "rss_mb": 1536.0, "cold_s": 3.0}


def _settings(home: str, chroma_url: str | None):
    from rag.settings import load_settings

    return load_settings(env={}, home=home, chroma_url=chroma_url, llm="extractive")


def child_build(args: argparse.Namespace) -> dict:
    from rag.adapters.fakes import HashEmbedder
    from rag.factory import build_index

    settings = _settings(args.home, args.chroma_url)
    t = time.perf_counter()
    if args.profile:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        report = prof.runcall(build_index, settings, [args.corpus], embedder=HashEmbedder(384))
        with open(args.profile, "w") as f:
            pstats.Stats(prof, stream=f).sort_stats("cumulative").print_stats(40)
    else:
        report = build_index(settings, [args.corpus], embedder=HashEmbedder(384))
    return {
        "build_s": time.perf_counter() - t,
        "chunks": report.chunks,
        "build_rss_mb": common.peak_rss_of(os.getpid()) / 2**20,
    }


def child_query(args: argparse.Namespace) -> dict:
    from rag.adapters.embedding import MiniLMEmbedder
    from rag.adapters.fakes import HashEmbedder
    from rag.factory import open_retriever

    queries = common.query_set(args.queries)
    t_import = time.monotonic() - args.t0
    retriever = open_retriever(_settings(args.home, args.chroma_url), embedder=HashEmbedder(384))
    t_open = time.monotonic() - args.t0
    minilm = MiniLMEmbedder()  # what `rag search` loads on its first search
    minilm.embed_batch([queries[0]])
    hits = retriever.search(queries[0], 10)
    cold = time.monotonic() - args.t0
    assert hits, "the first search found nothing"
    embed_ms, search_ms = [], []
    for q in queries:
        t = time.perf_counter()
        minilm.embed_batch([q])
        t2 = time.perf_counter()
        retriever.search(q, 10)
        embed_ms.append(1000 * (t2 - t))
        search_ms.append(1000 * (time.perf_counter() - t2))
    total = [a + b for a, b in zip(embed_ms, search_ms, strict=True)]
    return {
        "cold_start_s": cold,
        "cold_imports_s": t_import,
        "cold_open_retriever_s": t_open - t_import,
        "p50_ms": common.pct(total, 50),
        "p95_ms": common.pct(total, 95),
        "search_only_p50_ms": common.pct(search_ms, 50),
        "search_only_p95_ms": common.pct(search_ms, 95),
        "minilm_query_p50_ms": common.pct(embed_ms, 50),
        "minilm_query_p95_ms": common.pct(embed_ms, 95),
        "queries": len(queries),
        "query_rss_mb": common.peak_rss_of(os.getpid()) / 2**20,
    }


def _child(kind: str, **kw: object) -> dict:
    cmd = [sys.executable, __file__, "--child", kind]
    for k, v in kw.items():
        if v is not None:
            cmd += [f"--{k.replace('_', '-')}", str(v)]
    cmd += ["--t0", str(time.monotonic())]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"{kind} child failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _server(path: str) -> tuple[subprocess.Popen, str]:
    port = common.free_port()
    log = open(Path(path).parent / "chroma.log", "w")  # noqa: SIM115 (closed with the process)
    cmd = [str(common.BIN / "chroma"), "run", "--path", path, "--host", "127.0.0.1", "--port", str(port)]
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    common.wait_http(f"{url}/api/v2/heartbeat")
    return proc, url


def measure(n: int, corpus: Path, tmp: Path, args: argparse.Namespace, server: bool = False) -> dict:
    home = tmp / f"home-{n}{'-server' if server else ''}"
    row: dict = {"size": n, "store": "chroma server" if server else "embedded"}
    proc = url = None
    if server:
        proc, url = _server(str(tmp / f"chroma-{n}"))
    try:
        profiled = n == args.profile_build and not server
        profile = str(common.RESULTS / f"scale_build_profile_{n}.txt") if profiled else None
        row |= _child("build", corpus=corpus, home=home, chroma_url=url, profile=profile)
        row["disk_mb"] = common.dir_size(home) / 2**20
        if server:
            row["disk_mb"] += common.dir_size(tmp / f"chroma-{n}") / 2**20
        row["load_avg_before_query"] = os.getloadavg()[0]
        row |= _child("query", home=home, chroma_url=url, queries=args.queries)
        if proc:
            row["server_rss_mb"] = common.peak_rss_of(proc.pid) / 2**20
    finally:
        if proc:
            common.stop(proc)
    print(f"  {n:>7} {row['store']}: build {row['build_s']:.1f}s, p50 {row['p50_ms']:.1f} ms", file=sys.stderr)
    return row


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    emb = [r for r in rows if r["store"] == "embedded"]
    srv = [r for r in rows if r["store"] != "embedded"]
    x = [r["size"] for r in emb]
    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    panels = [
        (axes[0][0], "query latency (ms), MiniLM query embedding included", [("p50_ms", "p50"), ("p95_ms", "p95")]),
        (axes[0][1], "peak RSS (MB)", [("query_rss_mb", "query process"), ("build_rss_mb", "build process")]),
        (axes[1][0], "disk size of RAG_HOME (MB)", [("disk_mb", "disk")]),
        (axes[1][1], "build time (s), hash vectors", [("build_s", "build")]),
    ]
    goal = {"p50_ms": GOALS["p50_ms"], "p95_ms": GOALS["p95_ms"], "query_rss_mb": GOALS["rss_mb"]}
    for ax, title, series in panels:
        for key, label in series:
            line = ax.plot(x, [r[key] for r in emb], marker="o", label=label)[0]
            if srv:
                ax.plot(
                    [r["size"] for r in srv],
                    [r[key] for r in srv],
                    marker="s",
                    ls="",
                    color=line.get_color(),
                    mfc="none",
                    ms=9,
                    label=f"{label} (chroma server)",
                )
            if key in goal:
                ax.axhline(goal[key], ls=":", color=line.get_color(), lw=1, label=f"goal {label}")
        ax.set_xscale("log")
        if key in ("disk_mb", "build_s"):
            ax.set_yscale("log")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("papers")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("rag-papers at scale (2 cores): hybrid search, k=10", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--server-size", type=int, default=10000, help="also run this size on `chroma run` (0: no)")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--profile-build", type=int, default=0, metavar="N", help="cProfile the build of size N")
    parser.add_argument("--keep", metavar="DIR", help="build in DIR (must be empty) and keep it")
    parser.add_argument("--replot", action="store_true", help="redraw scale.png from scale.json and exit")
    parser.add_argument("--child", choices=["build", "query"], help=argparse.SUPPRESS)
    for hidden in ("--corpus", "--home", "--chroma-url", "--profile"):
        parser.add_argument(hidden, help=argparse.SUPPRESS)
    parser.add_argument("--t0", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.replot:
        plot(json.loads((common.RESULTS / "scale.json").read_text())["rows"], common.RESULTS / "scale.png")
        return
    if args.child:
        print(json.dumps(child_build(args) if args.child == "build" else child_query(args)))
        return
    common.check_quiet()
    result: dict = {"machine": common.machine(), "vectors": "HashEmbedder(384) index vectors", "goals": GOALS}
    rows = []
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(args.keep or tmpdir)
        tmp.mkdir(parents=True, exist_ok=True)
        full = common.write_corpus(tmp / "corpus.jsonl", max(args.sizes), args.seed)
        for n in sorted(args.sizes):
            corpus = common.write_prefix(full, tmp / f"corpus-{n}.jsonl", n)  # streamed: keep this process small
            rows.append(measure(n, corpus, tmp, args))
            if n == args.server_size:
                rows.append(measure(n, corpus, tmp, args, server=True))
    top = max(r["size"] for r in rows)
    at_top = next(r for r in rows if r["size"] == top and r["store"] == "embedded")
    result["rows"] = rows
    result["goals_met"] = {
        f"p50<={GOALS['p50_ms']:.0f}ms@{top}": at_top["p50_ms"] <= GOALS["p50_ms"],
        f"p95<={GOALS['p95_ms']:.0f}ms@{top}": at_top["p95_ms"] <= GOALS["p95_ms"],
        f"query_rss<={GOALS['rss_mb']:.0f}MB@{top}": at_top["query_rss_mb"] <= GOALS["rss_mb"],
        "cold_start<=3s_all_sizes": all(r["cold_start_s"] <= GOALS["cold_s"] for r in rows),
    }
    common.save("scale", result)
    plot(rows, common.RESULTS / "scale.png")
    cols = [
        "size",
        "store",
        "build_s",
        "build_rss_mb",
        "disk_mb",
        "cold_start_s",
        "p50_ms",
        "p95_ms",
        "search_only_p50_ms",
        "search_only_p95_ms",
        "minilm_query_p50_ms",
        "query_rss_mb",
    ]
    print(common.table(cols, [[r[c] for c in cols] for r in rows]))
    print(f"\ngoals met: {result['goals_met']}")


if __name__ == "__main__":
    main()
