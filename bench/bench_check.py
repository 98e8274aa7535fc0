"""`rag check` on a 50-sentence Markdown draft over the bundled corpus: wall time and what it found.

    .venv/bin/python bench/bench_check.py [--runs 3] [--sentences 50]

The draft is built from the 19 bundled abstracts (fixed seed): their own sentences, each cited to its paper, except
every fifth (left uncited) and every third of the rest (cited to a random other paper, so the right label is
`wrong paper`). These sentences are the sources' own words, so this measures speed and plumbing (every way a label
is reached), not the check's quality on real claims (that is `rag eval`'s claims report). The index is built once in
a temp RAG_HOME; each run is a fresh `rag check --json` process (model load included). Writes bench/results/check.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import common


def make_draft(n: int) -> tuple[str, dict[str, int]]:
    from rag.text import split_sentences

    rng = random.Random(7)
    papers = common.bundled()
    pool = [(p["id"], s) for p in papers for s in split_sentences(p["abstract"]) if 8 <= len(s.split()) <= 40]
    rng.shuffle(pool)
    ids = [p["id"] for p in papers]
    lines, planted = ["# A draft", ""], {"cited right": 0, "cited wrong": 0, "uncited": 0}
    for i, (pid, sentence) in enumerate(pool[:n]):
        sentence = sentence.rstrip(".")
        if i % 5 == 4:
            lines.append(sentence + ".")
            planted["uncited"] += 1
        elif i % 3 == 2:
            lines.append(f"{sentence} [@{rng.choice([x for x in ids if x != pid])}].")
            planted["cited wrong"] += 1
        else:
            lines.append(f"{sentence} [@{pid}].")
            planted["cited right"] += 1
    return "\n".join(lines) + "\n", planted


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sentences", type=int, default=50)
    args = ap.parse_args()
    text, planted = make_draft(args.sentences)
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "RAG_HOME": str(Path(tmp) / "home")}
        subprocess.run([str(common.BIN / "rag"), "index"], env=env, check=True, capture_output=True)
        draft = Path(tmp) / "draft.md"
        draft.write_text(text, encoding="utf-8")
        runs = []
        for _ in range(args.runs):
            started = time.perf_counter()
            done = subprocess.run([str(common.BIN / "rag"), "check", str(draft), "--json"], env=env,
                                  capture_output=True, text=True)  # fmt: skip
            wall = time.perf_counter() - started
            record = json.loads(done.stdout)
            runs.append({"wall_s": round(wall, 2), "check_s": record["seconds"], "exit_code": done.returncode,
                         "labels": record["summary"]["labels"],
                         "suggested": record["summary"]["suggested_citations"]})  # fmt: skip
    load = os.getloadavg()[0]
    result = {"sentences": args.sentences, "planted": planted, "runs": runs, "load_average_1min": round(load, 2),
              "median_wall_s": statistics.median(r["wall_s"] for r in runs),
              "median_check_s": statistics.median(r["check_s"] for r in runs)}  # fmt: skip
    common.RESULTS.mkdir(parents=True, exist_ok=True)
    (common.RESULTS / "check.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
