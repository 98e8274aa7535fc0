"""Extractive answer latency as the corpus grows: with the sentence vectors stored at index time, and without.

    .venv/bin/python bench/bench_answer_scale.py [--sizes 1000,10000] [--questions 60] [--keep DIR]

For each size, a synthetic corpus (bench/common.py: the 19 bundled papers first, then generated ones) is indexed
with the real MiniLM embedder (sentence vectors on, the default). Then the same Assistant answers the dev
questions, twice per question and interleaved: `stored` (the answer uses the docstore's sentence vectors and the
query vector the search computed: it embeds nothing more) and `on demand` (the sentence vectors are ignored and
the cache is emptied before each question, as an index without them, or a first visit to those papers, would
behave). Start-up and the first answer are outside the timings. Reports p50/p95 and the CPU time per answer
(process time, both cores count), and the build time with and without sentence vectors at the smallest size.
Writes bench/results/answer_scale.json. `--keep DIR` keeps the indexes for a rerun, which reuses them and reports
the build time (and load average) recorded when each was built.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import common


def _ask(assistant, question: str, stored: bool) -> tuple[float, float, int]:
    vectors = assistant.vectors
    if not stored:
        with vectors._lock:
            vectors._cache.clear()
    before = vectors.embedded
    real = assistant.retriever.sentence_vectors
    if not stored:
        assistant.retriever.sentence_vectors = lambda chunk_id: None  # as if the docstore had none
    try:
        t, c = time.perf_counter(), time.process_time()
        assistant.ask(question)
        return time.perf_counter() - t, time.process_time() - c, vectors.embedded - before
    finally:
        assistant.retriever.sentence_vectors = real


def build(home: Path, corpus: Path, model, sentence_vectors: bool = True) -> dict:
    """Index `corpus` into `home`: its build time and the load average when it started. A home kept by an
    earlier `--keep` run is reused, and reports the figures recorded when it was built."""
    from rag.factory import build_index
    from rag.settings import load_settings

    record = home / "bench_build.json"
    if record.exists():
        return {**json.loads(record.read_text()), "reused": True}
    settings = load_settings(env={}, home=home, llm="extractive", sentence_vectors=sentence_vectors)
    load, t = os.getloadavg()[0], time.perf_counter()
    build_index(settings, [corpus], embedder=model)
    out = {"build_s": time.perf_counter() - t, "load_avg_at_build": load}
    record.write_text(json.dumps(out))
    return out


def measure(home: Path, model, questions: list[str]) -> dict:
    from rag.factory import open_assistant
    from rag.settings import load_settings

    assistant = open_assistant(load_settings(env={}, home=home, llm="extractive"), embedder=model)
    _ask(assistant, questions[0], True)  # the first answer loads what is lazy
    rows: dict[str, list[tuple[float, float, int]]] = {"stored": [], "on_demand": []}
    for i, q in enumerate(questions):
        for mode in (("stored", "on_demand") if i % 2 == 0 else ("on_demand", "stored")):
            rows[mode].append(_ask(assistant, q, mode == "stored"))
    out: dict = {}
    for mode, values in rows.items():
        out[mode] = {
            "p50_ms": 1000 * common.pct([v[0] for v in values], 50),
            "p95_ms": 1000 * common.pct([v[0] for v in values], 95),
            "cpu_ms_median": 1000 * common.median(v[1] for v in values),
            "embedded_per_answer_median": common.median(v[2] for v in values),
        }
    out["ratio_p50_stored_over_on_demand"] = out["stored"]["p50_ms"] / out["on_demand"]["p50_ms"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--keep", metavar="DIR", help="keep (and reuse) the indexes in DIR")
    parser.add_argument("--no-build-ratio", action="store_true",
                        help="skip the two extra builds (with and without sentence vectors) at the smallest size; "
                        "sizes not measured keep their earlier rows in the results file")  # fmt: skip
    args = parser.parse_args()
    common.check_quiet()
    from rag.adapters.embedding import MiniLMEmbedder

    model = MiniLMEmbedder()
    model.embed_batch(["warm up"])
    questions = [r["question"] for r in common.questions()][: args.questions]
    sizes = [int(s) for s in args.sizes.split(",")]
    result: dict = {"machine": common.machine(), "questions": len(questions), "sizes": {}}
    with tempfile.TemporaryDirectory() as tmpdir:
        root = Path(args.keep) if args.keep else Path(tmpdir)
        root.mkdir(parents=True, exist_ok=True)
        full = common.write_corpus(root / f"corpus-{max(sizes)}.jsonl", max(sizes))
        for n in sizes:
            corpus = full if n == max(sizes) else common.write_prefix(full, root / f"corpus-{n}.jsonl", n)
            home = root / f"home-{n}"
            built = build(home, corpus, model)
            row = {**built, **measure(home, model, questions)}
            row["measured_at"] = result["machine"].get("date")
            # what the sentence vectors cost at index time, side by side
            if n == min(sizes) and not args.no_build_ratio:
                plain = build(root / f"plain-{n}", corpus, model, sentence_vectors=False)["build_s"]
                again = build(root / f"again-{n}", corpus, model)["build_s"]
                row["build_without_sentence_vectors_s"] = plain
                row["build_with_sentence_vectors_s"] = again
                row["build_ratio_with_over_without"] = again / plain
            result["sizes"][str(n)] = row
            print(f"{n} papers: {row}")
    if args.no_build_ratio and (earlier := common.RESULTS / "answer_scale.json").exists():
        old = json.loads(earlier.read_text())
        for n, row in old.get("sizes", {}).items():
            result["sizes"].setdefault(n, {**row, "measured_at": row.get("measured_at", old["machine"].get("date"))})
        result["sizes"] = dict(sorted(result["sizes"].items(), key=lambda kv: int(kv[0])))
    common.save("answer_scale", result)
    rows = [(n, r["stored"]["p50_ms"], r["stored"]["p95_ms"], r["on_demand"]["p50_ms"], r["on_demand"]["p95_ms"],
             r["ratio_p50_stored_over_on_demand"], r["stored"]["embedded_per_answer_median"],
             r["on_demand"]["embedded_per_answer_median"]) for n, r in result["sizes"].items()]  # fmt: skip
    cols = ["papers", "stored p50 ms", "p95", "on demand p50 ms", "p95", "ratio", "embedded (stored)", "(on demand)"]
    print(common.table(cols, rows))


if __name__ == "__main__":
    main()
