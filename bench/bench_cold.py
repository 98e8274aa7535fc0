"""Cold start: whole-process wall time of `rag search` and `rag ask`, beside `python -c "import numpy"`.

    .venv/bin/python bench/bench_cold.py [--rounds 7]

On the bundled corpus (indexed once in a temp RAG_HOME), each round runs, in rotating order: the numpy import
(the floor of any Python tool that does numeric work), `rag search QUERY -k 5`, `rag ask QUESTION --llm
extractive`, and `rag --help`. Medians over the rounds, and each command's median ratio to the numpy import
measured in the same rounds. Also records whether chromadb was imported by a search (it should not be for a
local index of this size). Writes bench/results/cold.json.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import common

QUERY = "oil wells from satellite imagery"
QUESTION = "How many wells are in the Alberta dataset?"


def _run(cmd: list[str], env: dict[str, str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    common.check_quiet()
    rag = str(common.BIN / "rag")
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "RAG_HOME": tmp, "ANONYMIZED_TELEMETRY": "False"}
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
                 f"open_retriever(load_settings()).search({QUERY!r}, 5); print('chromadb' in sys.modules)")  # fmt: skip
        imported = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True).stdout.strip()
    result = {
        "machine": common.machine(),
        "rounds": args.rounds,
        "median_s": {name: common.median(v) for name, v in times.items()},
        "median_ratio_to_numpy_import": {name: common.median(v) for name, v in ratios.items()},
        "search_imports_chromadb": imported == "True",
    }
    common.save("cold", result)
    rows = [(name, result["median_s"][name], result["median_ratio_to_numpy_import"].get(name, 1.0)) for name in times]
    print(common.table(["command", "median s", "ratio to `import numpy`"], rows))
    print(f"search imports chromadb: {result['search_imports_chromadb']}")


if __name__ == "__main__":
    main()
