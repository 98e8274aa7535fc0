"""Reading a folder of PDFs with and without read-ahead workers (rag.corpus.read_ahead), side by side.

Rounds alternate the worker counts asked for; each reads every PDF of the folder with `read_papers(...,
full_text=True, workers=N)` in this process. Wall seconds, and CPU seconds of this process and its finished children
(the workers: their start-up imports count). Medians over the rounds, and the papers read (the same in each). The
PDFs are read from $RAG_PDF_DEV (default /work/cache/pdf_dev); skipped with a reason when absent.

  python bench/bench_read_ahead.py [--rounds 3] [--workers 1,2] [--label NAME]
      -> bench/results/read_ahead[-NAME].json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import RESULTS, cpu_seconds, pdf_dev_folder  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", default="1,2", help="worker counts, comma-separated (1: no workers)")
    parser.add_argument("--label", default="")
    args = parser.parse_args()
    folder = pdf_dev_folder()
    if not folder.is_dir():
        print(f"skipped: the dev PDFs are not in {folder}")
        return 0
    from rag.corpus import read_papers

    counts = [int(w) for w in args.workers.split(",") if w]
    runs: dict[str, list[dict[str, float]]] = {f"w{w}": [] for w in counts}
    papers: dict[str, int] = {}
    for round_ in range(args.rounds):
        for w in counts:
            load = os.getloadavg()[0]
            wall, cpu = time.perf_counter(), cpu_seconds()
            read = read_papers(folder, on_error="skip", warn=lambda _: None, full_text=True, workers=w)
            runs[f"w{w}"].append({"wall_s": round(time.perf_counter() - wall, 2),
                                  "cpu_s": round(cpu_seconds() - cpu, 2), "load_1m": round(load, 1)})  # fmt: skip
            papers[f"w{w}"] = len(read)
            print(round_ + 1, f"w{w}", runs[f"w{w}"][-1], flush=True)
    summary = {name: {"median_wall_s": statistics.median(r["wall_s"] for r in rows),
                      "median_cpu_s": statistics.median(r["cpu_s"] for r in rows), "papers": papers[name]}
               for name, rows in runs.items()}  # fmt: skip
    result = {"folder_files": len(list(folder.glob("*.pdf"))), "cores": len(os.sched_getaffinity(0)),
              "rounds": args.rounds, "summary": summary, "runs": runs}  # fmt: skip
    out = RESULTS / f"read_ahead{'-' + args.label if args.label else ''}.json"
    out.write_text(json.dumps(result, indent=1))
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
