"""Extractive answer latency of this checkout beside another version of the code, on one index, side by side.

    git archive main | tar -x -C /tmp/main-src
    .venv/bin/python bench/bench_answer_versions.py --home DIR --baseline /tmp/main-src [--rounds 3] [--questions 60]

`--home DIR`: a kept index (bench_answer_scale.py --keep builds `DIR/home-<n>`). Each round answers the same dev
questions once with each version, in a fresh subprocess each (the baseline's `rag` package first on sys.path),
alternating which goes first; start-up and the first answer are outside the timings (as bench_answer_scale.py's
`stored` mode: sentence vectors from the docstore). Reports p50/p95 per version over all rounds and the ratio of
the p50s. A newer version may first update the index in place (`rag index` re-reads only metadata); the older one
reads what it knows of it. Writes bench/results/answer_versions.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import common

HERE = Path(__file__).resolve().parent


def worker(home: str, questions: int) -> None:
    """Answer the questions; print the seconds each answer took (one JSON list)."""
    from rag.adapters.embedding import MiniLMEmbedder
    from rag.factory import open_assistant
    from rag.settings import load_settings

    model = MiniLMEmbedder()
    assistant = open_assistant(load_settings(env={}, home=Path(home), llm="extractive"), embedder=model)
    asked = [r["question"] for r in common.questions()][:questions]
    assistant.ask(asked[0])  # what is lazy loads here
    times = []
    for q in asked:
        t = time.perf_counter()
        assistant.ask(q)
        times.append(time.perf_counter() - t)
    print(json.dumps(times))


def run(src: Path, home: Path, questions: int) -> list[float]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(src), str(HERE)])}
    cmd = [sys.executable, str(Path(__file__)), "--worker", "--home", str(home), "--questions", str(questions)]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return [float(x) for x in json.loads(out.stdout.strip().splitlines()[-1])]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", required=True)
    parser.add_argument("--baseline", help="source directory of the other version (its `rag` package)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.home, args.questions)
    versions = {"this": HERE.parent, "baseline": Path(args.baseline)}
    times: dict[str, list[float]] = {name: [] for name in versions}
    load = os.getloadavg()[0]
    for r in range(args.rounds):
        for name in (list(versions) if r % 2 == 0 else list(reversed(versions))):
            times[name] += run(versions[name], Path(args.home), args.questions)
    result: dict = {"machine": common.machine(), "load_avg_at_start": load, "load_avg_at_end": os.getloadavg()[0],
                    "home": args.home, "rounds": args.rounds, "questions": args.questions,
                    "baseline_src": str(args.baseline), "versions": {}}  # fmt: skip
    for name, values in times.items():
        result["versions"][name] = {"p50_ms": 1000 * common.pct(values, 50), "p95_ms": 1000 * common.pct(values, 95),
                                    "answers": len(values)}  # fmt: skip
    p50 = {name: v["p50_ms"] for name, v in result["versions"].items()}
    result["ratio_p50_this_over_baseline"] = p50["this"] / p50["baseline"]
    common.save("answer_versions", result)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
