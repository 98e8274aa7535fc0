"""Extractive answer latency at 10,000 papers, two code versions side by side on the same index.

    .venv/bin/python bench/bench_answer_versions_10k.py build --keep DIR [--embedder minilm|hash]
    .venv/bin/python bench/bench_answer_versions_10k.py run --keep DIR --old WORKTREE [--new WORKTREE]
        [--also NAME=WORKTREE] [--rounds 3] [--embedder minilm|hash] [--out NAME]

`build` writes the synthetic 10,000-paper corpus (bench/common.py: the 19 bundled papers first, then generated
ones) and indexes it into DIR/home-10000 with this checkout's code and the real MiniLM embedder (or, with
`--embedder hash`, the HashEmbedder both versions ship), the layout bench/bench_answer_scale.py uses with
`--keep DIR`, so either script reuses the other's index.

`run` answers from that one index with each code version in its own process (`worker`, with PYTHONPATH and
`--code` at that version's checkout, so `rag` is imported from there), alternating over the rounds (old, new,
then any `--also` version in odd rounds; the reverse in even ones). Each process opens the index, answers one
warm-up question, then the dev questions (eval/sets/icml2025/dev.jsonl, the first `--questions`) and the library
questions (eval/sets/icml2025/dev_library*.jsonl: authors, abbreviations, non-English, lists, the kinds issue 36
added routing for). Every version reads the question files of this checkout. Per round and version: p50/p95
wall time, median CPU time per answer and per phase, and the load averages before and after the process.
Reported: the median over rounds of each figure per version and its ratio to old's. Writes
bench/results/answer_scale_10k_versions.json (or `--out`). `worker --profile FILE` (run by hand) writes a
cProfile of one version's timed answers.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import common

SIZE = 10_000
LIBRARY_SETS = sorted((common.ROOT / "eval" / "sets" / "icml2025").glob("dev_library*.jsonl"))


def _rows(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def question_sets(n_dev: int) -> dict[str, list[str]]:
    return {
        "dev": [r["question"] for r in common.questions()][:n_dev],
        "library": [r["question"] for p in LIBRARY_SETS for r in _rows(p)],
    }


def embedder(kind: str):
    """The real MiniLM, or the deterministic bag-of-words HashEmbedder(384) both versions ship (rag.adapters.fakes):
    a 10k build in minutes instead of an hour on a loaded machine; its query embedding costs ~0 instead of MiniLM's."""
    if kind == "hash":
        from rag.adapters.fakes import HashEmbedder

        return HashEmbedder(384)
    from rag.adapters.embedding import MiniLMEmbedder

    model = MiniLMEmbedder()
    model.embed_batch(["warm up"])
    return model


def build_cmd(args: argparse.Namespace) -> None:
    from rag.factory import build_index
    from rag.settings import load_settings

    root = Path(args.keep)
    home = root / f"home-{SIZE}"
    record = home / "bench_build.json"  # bench_answer_scale.build's record: either script reuses the index
    if record.exists():
        print(f"reusing {home}: {record.read_text()}")
        return
    root.mkdir(parents=True, exist_ok=True)
    corpus = root / f"corpus-{SIZE}.jsonl"
    if not corpus.exists():
        common.write_corpus(root / "corpus-partial.jsonl", SIZE).rename(corpus)
    last = [0.0]

    def progress(done: int, total: int) -> None:
        if time.monotonic() - last[0] >= 60 or done == total:
            last[0] = time.monotonic()
            print(f"{time.strftime('%H:%M:%S')} {done}/{total} papers, load {os.getloadavg()[0]:.2f}", flush=True)

    settings = load_settings(env={}, home=home, llm="extractive")
    load, t = os.getloadavg()[0], time.perf_counter()
    build_index(settings, [corpus], embedder=embedder(args.embedder), progress=progress)
    record.write_text(
        json.dumps({"build_s": time.perf_counter() - t, "load_avg_at_build": load, "embedder": args.embedder})
    )
    print(record.read_text(), flush=True)


def _commit(code: Path) -> str:
    out = subprocess.run(["git", "-C", str(code), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return out.stdout.strip()


# nested: retrieve holds search, search holds query_vector (the query's embedding) and _rank (BM25 + vector scan)
PHASES = (("Assistant", "route"), ("Assistant", "retrieve"), ("Retriever", "search"), ("Retriever", "query_vector"),
          ("Retriever", "_rank"), ("ExtractiveBackend", "write"), ("Assistant", "verify"))  # fmt: skip


def _time_phases(classes: dict[str, type]) -> dict[str, float]:
    """Wrap the methods in PHASES (present in both versions) so each adds its CPU time to the returned dict."""
    spent: dict[str, float] = {}

    def timed(name: str, method):
        def wrapper(*a, **kw):
            c = time.process_time()
            try:
                return method(*a, **kw)
            finally:
                spent[name] = spent.get(name, 0.0) + time.process_time() - c

        return wrapper

    for owner, method in PHASES:
        cls = classes[owner]
        setattr(cls, method, timed(f"{owner}.{method}", getattr(cls, method)))
    return spent


def worker_cmd(args: argparse.Namespace) -> None:
    """One version's process: `rag` from `--code`, timings as one JSON line on stdout."""
    code = Path(args.code).resolve()
    sys.path.insert(0, str(code))
    import rag
    from rag.answer.assistant import Assistant
    from rag.answer.extractive import ExtractiveBackend
    from rag.factory import open_assistant
    from rag.retrieve.retriever import Retriever
    from rag.settings import load_settings

    if not Path(rag.__file__).resolve().is_relative_to(code):
        sys.exit(f"error: rag was imported from {rag.__file__}, not from {code}")
    t = time.perf_counter()
    settings = load_settings(env={}, home=Path(args.home), llm="extractive")
    assistant = open_assistant(settings, embedder=embedder(args.embedder))
    sets = question_sets(args.questions)
    assistant.ask(sets["dev"][0])  # the first answer loads what is lazy
    out: dict = {"open_and_warm_s": time.perf_counter() - t, "rag": str(Path(rag.__file__).parent)}
    profiler = cProfile.Profile() if args.profile else None
    if profiler is not None:
        profiler.enable()
    spent = _time_phases({"Assistant": Assistant, "Retriever": Retriever, "ExtractiveBackend": ExtractiveBackend})
    for name, questions in sets.items():
        wall, cpu, phases = [], [], []
        for q in questions:
            spent.clear()
            t, c = time.perf_counter(), time.process_time()
            assistant.ask(q)
            wall.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
            phases.append(dict(spent))
        out[name] = {"n": len(questions), "wall_s": wall, "cpu_s": cpu, "phases_cpu_s": phases}
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(args.profile)
    print(json.dumps(out))


def _summary(values: list[float]) -> dict:
    return {"p50_ms": 1000 * common.pct(values, 50), "p95_ms": 1000 * common.pct(values, 95)}


def _one(version: str, code: Path, args: argparse.Namespace) -> dict:
    before = os.getloadavg()
    env = {**os.environ, "PYTHONPATH": str(code)}
    cmd = [sys.executable, __file__, "worker", "--code", str(code), "--home", str(Path(args.keep) / f"home-{SIZE}"),
           "--questions", str(args.questions), "--embedder", args.embedder]  # fmt: skip
    t = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"error: the {version} worker failed:\n{done.stderr[-3000:]}")
    raw = json.loads(done.stdout.strip().splitlines()[-1])
    row: dict = {"version": version, "commit": _commit(code), "rag": raw["rag"], "process_s": time.perf_counter() - t}
    row.update(open_and_warm_s=raw["open_and_warm_s"], load_before=before, load_after=os.getloadavg())
    for name in ("dev", "library"):
        r = raw[name]
        row[name] = {"n": r["n"], **_summary(r["wall_s"]), "cpu_ms_median": 1000 * common.median(r["cpu_s"])}
        row[name]["phase_cpu_ms_median"] = {
            f"{owner}.{method}": 1000 * common.median(p.get(f"{owner}.{method}", 0.0) for p in r["phases_cpu_s"])
            for owner, method in PHASES
        }
    return row


def run_cmd(args: argparse.Namespace) -> None:
    if not (Path(args.keep) / f"home-{SIZE}" / "bench_build.json").exists():
        sys.exit(f"error: no built index in {args.keep}/home-{SIZE}: run `build --keep {args.keep}` first")
    codes = {"old": Path(args.old).resolve(), "new": Path(args.new).resolve()}
    for extra in args.also:
        name, _, path = extra.partition("=")
        if not path or name in codes:
            sys.exit(f"error: --also wants NAME=WORKTREE with a new name, got {extra!r}")
        codes[name] = Path(path).resolve()
    common.check_quiet()
    rounds = []
    for i in range(args.rounds):
        order = list(codes) if i % 2 == 0 else list(reversed(codes))
        for version in order:
            row = {"round": i + 1, **_one(version, codes[version], args)}
            rounds.append(row)
            print(f"round {row['round']} {version}: dev p50 {row['dev']['p50_ms']:.1f} ms, library p50 "
                  f"{row['library']['p50_ms']:.1f} ms, load {row['load_before'][0]:.2f}", flush=True)  # fmt: skip
    result: dict = {"machine": common.machine(), "size": SIZE, "embedder": args.embedder, "rounds": rounds,
                    "summary": {}}  # fmt: skip
    result["build"] = json.loads((Path(args.keep) / f"home-{SIZE}" / "bench_build.json").read_text())
    table = []
    for name in ("dev", "library"):
        summary: dict = {}
        for version in codes:
            mine = [r[name] for r in rounds if r["version"] == version]
            summary[version] = {
                "n_questions": mine[0]["n"],
                "rounds": len(mine),
                "p50_ms_median_of_rounds": common.median(m["p50_ms"] for m in mine),
                "p95_ms_median_of_rounds": common.median(m["p95_ms"] for m in mine),
                "cpu_ms_median_of_rounds": common.median(m["cpu_ms_median"] for m in mine),
            }
        old = summary["old"]
        for version in list(codes)[1:]:
            mine = summary[version]
            for key in ("p50", "p95", "cpu"):
                median = f"{key}_ms_median_of_rounds"
                mine[f"ratio_{key}_over_old"] = mine[median] / old[median]
            table.append([name, version, old["n_questions"], old["p50_ms_median_of_rounds"],
                          mine["p50_ms_median_of_rounds"], mine["ratio_p50_over_old"], old["p95_ms_median_of_rounds"],
                          mine["p95_ms_median_of_rounds"], mine["ratio_p95_over_old"], old["cpu_ms_median_of_rounds"],
                          mine["cpu_ms_median_of_rounds"], mine["ratio_cpu_over_old"]])  # fmt: skip
        result["summary"][name] = summary
    common.save(args.out, result)
    cols = ["set", "version", "n", "old p50 ms", "p50 ms", "/old", "old p95 ms", "p95 ms", "/old", "old CPU ms",
            "CPU ms", "/old"]  # fmt: skip
    print(common.table(cols, table))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="write the corpus and build the 10,000-paper index with this checkout")
    b.add_argument("--keep", metavar="DIR", required=True)
    b.add_argument("--embedder", choices=("minilm", "hash"), default="minilm")
    r = sub.add_parser("run", help="answer from the index with both versions, alternating")
    r.add_argument("--keep", metavar="DIR", required=True)
    r.add_argument("--old", metavar="WORKTREE", required=True, help="checkout of the old code")
    r.add_argument("--new", metavar="WORKTREE", default=str(common.ROOT), help="checkout of the new code")
    r.add_argument("--also", metavar="NAME=WORKTREE", action="append", default=[],
                   help="a further version, timed in the same rounds and compared with old")  # fmt: skip
    r.add_argument("--rounds", type=int, default=3)
    r.add_argument("--questions", type=int, default=60, help="dev questions per round")
    r.add_argument("--embedder", choices=("minilm", "hash"), default="minilm", help="the one the index was built with")
    r.add_argument("--out", default="answer_scale_10k_versions", help="results name under bench/results/")
    w = sub.add_parser("worker", help="(internal) one version's timings")
    w.add_argument("--code", required=True)
    w.add_argument("--home", required=True)
    w.add_argument("--questions", type=int, default=60)
    w.add_argument("--embedder", choices=("minilm", "hash"), default="minilm")
    w.add_argument("--profile", metavar="FILE", help="write a cProfile of the timed answers to FILE (pstats)")
    args = parser.parse_args()
    {"build": build_cmd, "run": run_cmd, "worker": worker_cmd}[args.command](args)


if __name__ == "__main__":
    main()
