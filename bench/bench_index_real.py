"""`rag index` on real abstracts against the encoder alone (issue 23): PubMedQA (MIT, bundled in eval/sets) and
SciFact (CC BY-NC: read from ../shared/external/scifact at run time, never copied into the repository; the
prefix read goes to a temporary folder only).

Per corpus and round, interleaved in this order so a noisy shared machine hits every mode alike:
  encoder  the encoder alone on exactly the chunks `rag index` embeds (title + chunk, batches of
           embed_batch_size, sorted by length): the limit
  plain    `rag index` with sentence_vectors = false
  own      `rag index` with sentence vectors encoded on their own (a second encoder pass)
  chunk    `rag index` with sentence vectors pooled from the chunk's own pass (late chunking)
All runs share one process and one loaded model (no start-up in the clock), each into a fresh data directory;
peak RSS is the whole process's (the largest of the modes). Medians over rounds (the order of the modes rotates from
round to round); the relevance-floor calibration a build ends with is timed inside it. Ratios are of medians, of wall
time and of CPU time (every thread of the process; on a shared machine the steadier of the two).

  python bench/bench_index_real.py [--papers 150] [--rounds 3]     -> bench/results/index_real.json
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, machine, median, save  # noqa: E402

PUBMEDQA = ROOT / "eval" / "sets" / "pubmedqa" / "corpus.jsonl"
_EXTERNAL = [Path(os.environ["RAG_EVAL_EXTERNAL"])] if os.environ.get("RAG_EVAL_EXTERNAL") else []  # as eval/suites
# else beside the checkout; a git worktree sits one level deeper than the checkout
_EXTERNAL += [ROOT.parent / "shared" / "external", ROOT.parent.parent / "shared" / "external"]
SCIFACT = next((e / "scifact" / "corpus.jsonl" for e in _EXTERNAL if (e / "scifact").exists()),
               _EXTERNAL[0] / "scifact" / "corpus.jsonl")  # fmt: skip
MODES = ("encoder", "plain", "own", "chunk")


def _prefix(src: Path, dst: Path, n: int) -> Path:
    with src.open(encoding="utf-8") as f, dst.open("w", encoding="utf-8") as out:
        for i, line in enumerate(f):
            if i >= n:
                break
            record = json.loads(line)
            out.write(json.dumps({k: record[k] for k in ("id", "title", "abstract", "year") if k in record}) + "\n")
    return dst


def _once(mode: str, corpus: Path, home: Path, model: object) -> dict:
    """One timed run of `mode` over `corpus`."""
    from rag.corpus import read_papers
    from rag.factory import build_index
    from rag.index.chunking import chunk_paper, embed_text
    from rag.ports import embed_in_batches
    from rag.settings import load_settings

    settings = load_settings(home=home, env={})
    if mode == "encoder":
        texts = [embed_text(p, c.text, c.section) for p in read_papers([corpus])
                 for c in chunk_paper(p, settings.index.chunk_tokens, settings.index.chunk_overlap)]  # fmt: skip
        started, cpu = time.perf_counter(), time.process_time()  # reading and chunking are not the encoder's work
        embed_in_batches(model, texts, settings.index.embed_batch_size)  # type: ignore[arg-type]
        return {"seconds": time.perf_counter() - started, "cpu_s": time.process_time() - cpu, "chunks": len(texts)}
    s = settings.replace(sentence_vectors=mode != "plain", sentence_pass="chunk" if mode == "chunk" else "own")
    spent: dict[str, float] = {}
    started, cpu = time.perf_counter(), time.process_time()
    with _timed_calibration(spent):
        report = build_index(s, [corpus], embedder=model)  # type: ignore[arg-type]
    return {"seconds": time.perf_counter() - started, "cpu_s": time.process_time() - cpu, "chunks": report.chunks,
            "calibration_s": spent.get("seconds", 0.0), "calibration_cpu_s": spent.get("cpu_s", 0.0),
            "calibration_questions": report.calibration.questions if report.calibration else 0}  # fmt: skip


@contextmanager
def _timed_calibration(spent: dict[str, float]) -> Iterator[None]:
    """Time the relevance-floor calibration the build ends with (rag.index.calibration.ensure), inside the build."""
    from rag.index import indexer

    original = indexer.calibrate_floors

    def timed(*args: Any, **kwargs: Any) -> Any:
        started, cpu = time.perf_counter(), time.process_time()
        try:
            return original(*args, **kwargs)
        finally:
            spent["seconds"] = time.perf_counter() - started
            spent["cpu_s"] = time.process_time() - cpu

    indexer.calibrate_floors = timed  # type: ignore[assignment]
    try:
        yield
    finally:
        indexer.calibrate_floors = original  # type: ignore[assignment]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--papers", type=int, default=150)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default="index_real", help="results name: bench/results/OUT.json")
    ap.add_argument("--corpora", default="pubmedqa,scifact", help="which corpora, comma-separated")
    ap.add_argument("--modes", default=",".join(MODES), help="which modes, comma-separated (encoder and plain needed)")
    args = ap.parse_args()
    from rag.factory import make_embedder
    from rag.settings import load_settings

    model = make_embedder(load_settings(env={}))
    model.embed_batch(["warm up the session"])
    result: dict = {"machine": machine(), "papers": args.papers, "rounds": args.rounds, "corpora": {}}
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        wanted = args.corpora.split(",")
        corpora = {"pubmedqa": _prefix(PUBMEDQA, tmp / "pubmedqa.jsonl", args.papers)} if "pubmedqa" in wanted else {}
        if SCIFACT.exists() and "scifact" in wanted:
            corpora["scifact"] = _prefix(SCIFACT, tmp / "scifact.jsonl", args.papers)
        modes = tuple(m for m in MODES if m in args.modes.split(","))
        runs: dict[str, dict[str, list[dict]]] = {name: {m: [] for m in modes} for name in corpora}
        loads = [os.getloadavg()[0]]
        for r in range(args.rounds):
            for name, corpus in corpora.items():
                for mode in modes[r % len(modes) :] + modes[: r % len(modes)]:  # each mode first in turn
                    runs[name][mode].append(_once(mode, corpus, Path(tempfile.mkdtemp(dir=tmp)), model))
                    loads.append(os.getloadavg()[0])
                    print(name, r, mode, runs[name][mode][-1], f"load {loads[-1]:.1f}", flush=True)
        for name, by_mode in runs.items():
            chunks = by_mode["plain"][0]["chunks"]
            row: dict = {m: {"seconds_median": median(x["seconds"] for x in rs), "seconds": [x["seconds"] for x in rs],
                             "cpu_s_median": median(x["cpu_s"] for x in rs),
                             "calibration_s_median": median(x.get("calibration_s", 0.0) for x in rs),
                             "calibration_cpu_s_median": median(x.get("calibration_cpu_s", 0.0) for x in rs),
                             "calibration_questions": rs[0].get("calibration_questions", 0)}
                         for m, rs in by_mode.items()}  # fmt: skip
            for m in modes:
                row[m]["papers_per_s"] = args.papers / row[m]["seconds_median"]
                row[m]["chunks_per_s"] = chunks / row[m]["seconds_median"]
                row[m]["projected_100k_h"] = 100_000 / row[m]["papers_per_s"] / 3600
            enc, plain = row["encoder"]["seconds_median"], row["plain"]["seconds_median"]
            built = [m for m in ("plain", "own", "chunk") if m in modes]
            with_vectors = [m for m in ("own", "chunk") if m in modes]
            row["ratios"] = {f"{m}/plain": row[m]["seconds_median"] / plain for m in with_vectors}
            row["ratios"].update({f"{m}/encoder": row[m]["seconds_median"] / enc for m in built})
            # CPU seconds (all threads of the process): far less sensitive than wall time to other jobs on the cores
            cpu_plain = row["plain"]["cpu_s_median"]
            row["cpu_ratios"] = {f"{m}/plain": row[m]["cpu_s_median"] / cpu_plain for m in with_vectors}
            row["cpu_ratios"].update({f"{m}/encoder": row[m]["cpu_s_median"] / row["encoder"]["cpu_s_median"]
                                      for m in built})  # fmt: skip
            # the calibration's share: what each mode costs over the encoder with and without that fixed step
            row["calibration_share"] = {m: row[m]["calibration_s_median"] / row[m]["seconds_median"] for m in built}
            row["ratios_without_calibration"] = {
                f"{m}/encoder": (row[m]["seconds_median"] - row[m]["calibration_s_median"]) / enc for m in built
            }
            row["chunks"] = chunks
            result["corpora"][name] = row
        result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        result["load_1min"] = {"min": min(loads), "median": median(loads), "max": max(loads)}
    print(json.dumps({k: (v["ratios"], v["cpu_ratios"]) for k, v in result["corpora"].items()}, indent=1))
    save(args.out, result)


if __name__ == "__main__":
    main()
