"""Bundled-corpus benchmark: cold start of `rag search`, index and re-index time, query and answer latency.

    .venv/bin/python bench/bench_index_search.py [--runs 5]

Prints a table and writes bench/results/index_search.json. Numbers are medians of side-by-side runs in one
process tree on this machine; the machine is noisy, so compare ratios rather than absolute times.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEV_QUESTIONS = ROOT / "eval" / "sets" / "icml2025" / "dev.jsonl"
RAG = str(Path(sys.executable).parent / "rag")


def _run(args: list[str], home: str) -> float:
    env = {**os.environ, "RAG_HOME": home}
    t = time.perf_counter()
    subprocess.run([RAG, *args], env=env, check=True, capture_output=True)
    return time.perf_counter() - t


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    i = (len(values) - 1) * p / 100
    lo, hi = int(i), min(int(i) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (i - lo)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    questions = [json.loads(x)["question"] for x in DEV_QUESTIONS.read_text().splitlines() if x]

    index_s, reindex_s, cold_s = [], [], []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as home:
            index_s.append(_run(["index"], home))
            reindex_s.append(_run(["index"], home))
            cold_s.append(_run(["search", "which paper replicates ICML papers with agents", "--json"], home))

    sys.path.insert(0, str(ROOT))
    from rag.factory import build_index, open_assistant
    from rag.settings import load_settings

    with tempfile.TemporaryDirectory() as home:
        settings = load_settings(home=home, env={}, llm="extractive")
        build_index(settings)
        assistant = open_assistant(settings)
        assistant.retriever.search("warm up", 5)
        search_ms = []
        for q in questions:
            t = time.perf_counter()
            assistant.retriever.search(q, 10)
            search_ms.append(1000 * (time.perf_counter() - t))
        assistant.ask(questions[0])
        answer_ms = []
        for q in questions:
            t = time.perf_counter()
            assistant.ask(q)
            answer_ms.append(1000 * (time.perf_counter() - t))
        assistant.close()

    result = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "runs": args.runs,
        "cold_start_search_s_median": statistics.median(cold_s),
        "index_19_papers_s_median": statistics.median(index_s),
        "reindex_unchanged_s_median": statistics.median(reindex_s),
        "search_ms_p50": pct(search_ms, 50),
        "search_ms_p95": pct(search_ms, 95),
        "extractive_answer_ms_p50": pct(answer_ms, 50),
        "extractive_answer_ms_p95": pct(answer_ms, 95),
        "questions": len(questions),
    }
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "index_search.json").write_text(json.dumps(result, indent=2) + "\n")
    for k, v in result.items():
        print(f"{k:32} {v:.3f}" if isinstance(v, float) else f"{k:32} {v}")


if __name__ == "__main__":
    main()
