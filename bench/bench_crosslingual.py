"""Issue 36 item 6: questions not in English, with and without the multilingual reading (rag.retrieve.crosslingual).

The dev non-English questions (eval/sets/icml2025/dev_non_english.jsonl and the non_english ones of
dev_library2.jsonl) over the bundled corpus, extractive backend, MiniLM: right answers (every must_include present
and a gold paper cited), refusals, and answer latency, each question asked by both assistants alternately (which
goes first alternates), in one process after a warm-up of each. Also the English dev questions' latency
(eval/sets/icml2025/dev.jsonl, first 30), where nothing should change.

  python bench/bench_crosslingual.py [--home DIR]     -> bench/results/crosslingual.json
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import RESULTS, ROOT  # noqa: E402


def _rows(name: str) -> list[dict]:
    path = ROOT / "eval" / "sets" / "icml2025" / name
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--home", default="", help="an index of the bundled corpus (default: build one)")
    args = parser.parse_args()
    from rag.factory import build_index, open_assistant
    from rag.settings import load_settings

    foreign = [r for r in _rows("dev_non_english.jsonl") + _rows("dev_library2.jsonl") if r["type"] == "non_english"]
    english = [r for r in _rows("dev.jsonl") if r.get("must_include")][:30]
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(home=Path(args.home or tmp), env={}).replace(llm="extractive")
        if not args.home:
            build_index(settings)
        assistants = {on: open_assistant(settings.replace(crosslingual=on)) for on in (False, True)}
        for a in assistants.values():
            a.ask("¿Cuántos pozos hay en el conjunto de datos de Alberta?")  # loads both models
        out: dict = {}
        for name, rows in (("non_english", foreign), ("english", english)):
            stats = {on: {"right": 0, "refused": 0, "seconds": []} for on in (False, True)}
            for i, row in enumerate(rows):
                for on in (False, True) if i % 2 == 0 else (True, False):
                    started = time.perf_counter()
                    answer = assistants[on].ask(row["question"])
                    stats[on]["seconds"].append(time.perf_counter() - started)
                    found = all(re.search(m, answer.text, re.IGNORECASE) for m in row["must_include"])
                    stats[on]["right"] += found and bool({c.paper_id for c in answer.citations} & set(row["gold"]))
                    stats[on]["refused"] += answer.abstained
            out[name] = {("crosslingual" if on else "names_only"): {
                "right": f"{s['right']}/{len(rows)}", "refused": f"{s['refused']}/{len(rows)}",
                "p50_ms": round(1000 * statistics.median(s["seconds"]), 1)} for on, s in stats.items()}  # fmt: skip
            print(name, json.dumps(out[name]), flush=True)
        for a in assistants.values():
            a.close()
    (RESULTS / "crosslingual.json").write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
