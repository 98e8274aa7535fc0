"""Cold start: whole-process wall time of `rag search` and `rag ask`, beside `python -c "import numpy"`.

    .venv/bin/python bench/bench_cold.py [--rounds 7] [--home DIR]

On the bundled corpus (indexed once in a temp RAG_HOME), each round runs, in rotating order: the numpy import
(the floor of any Python tool that does numeric work), `rag search QUERY -k 5`, `rag ask QUESTION --llm
extractive`, and `rag --help`. Medians over the rounds, and each command's median ratio to the numpy import
measured in the same rounds. Also records whether chromadb was imported by a search (it should not be below
`exact_search_max_chunks`). `--home DIR` times an existing index instead (e.g. one kept by bench_answer_scale.py
--keep) and writes bench/results/cold-NAME.json, NAME being the directory's name; else bench/results/cold.json.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common

QUERY = "oil wells from satellite imagery"
QUESTION = "How many wells are in the Alberta dataset?"
HEAVY = ("chromadb", "bm25s", "tqdm")  # what a search should not need to import


def _run(cmd: list[str], env: dict[str, str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--home", metavar="DIR", help="an existing index to time (default: index the bundled corpus)")
    args = parser.parse_args()
    common.check_quiet()
    rag = str(common.BIN / "rag")
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "RAG_HOME": args.home or tmp, "ANONYMIZED_TELEMETRY": "False"}
        if not args.home:
            subprocess.run([rag, "index"], env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        commands = {
            "numpy": [sys.executable, "-c", "import numpy"],
            "search": [rag, "search", QUERY, "-k", "5"],
            "ask": [rag, "ask", QUESTION, "--llm", "extractive"],
            "help": [rag, "--help"],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        ratios: dict[str, list[float]] = {name: [] for name in commands if name != "numpy"}
        for i in range(args.rounds):
            names = list(commands)
            names = names[i % len(names) :] + names[: i % len(names)]
            got = {name: _run(commands[name], env) for name in names}
            for name, seconds in got.items():
                times[name].append(seconds)
                if name != "numpy":
                    ratios[name].append(seconds / got["numpy"])
        probe = ("import sys; from rag.settings import load_settings; from rag.factory import open_retriever; "
                 f"open_retriever(load_settings()).search({QUERY!r}, 5); "
                 f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))")  # fmt: skip
        imported = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True).stdout.strip()
    result = {
        "machine": common.machine(),
        "index": args.home or "bundled corpus (19 papers)",
        "rounds": args.rounds,
        "median_s": {name: common.median(v) for name, v in times.items()},
        "median_ratio_to_numpy_import": {name: common.median(v) for name, v in ratios.items()},
        "search_imports_chromadb": "chromadb" in imported.split(","),
        "search_imports_of_" + "_".join(HEAVY): [m for m in imported.split(",") if m],
    }
    common.save(f"cold-{Path(args.home).name}" if args.home else "cold", result)
    rows = [(name, result["median_s"][name], result["median_ratio_to_numpy_import"].get(name, 1.0)) for name in times]
    print(common.table(["command", "median s", "ratio to `import numpy`"], rows))
    print(f"a search imports, of {', '.join(HEAVY)}: {imported or 'none'}")


if __name__ == "__main__":
    main()
