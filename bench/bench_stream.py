"""Peak memory while streaming big corpus files through the readers (issue 16, issue 14 item 10).

Generates, in a temporary directory: a synthetic arXiv metadata snapshot (the Kaggle JSON Lines shape, ~1.3 KB
a line, 20 % cs.LG, dates 2007-2025), a CSV of our records and a JSON array of our records, each of --gb GB.
Each file is then read in a fresh child process through `rag.corpus.iter_papers` (detection, reader, filter,
validation: the indexer's first pass without the chunking), and the child records its peak RSS (VmHWM) when
0.1, 0.5 and 1.0 of the file have been read. The CSV is also read the way the readers did before this change
(whole text, then every row) for the before/after figure.

    .venv/bin/python bench/bench_stream.py            # 1 GB each, ~10 min on 2 cores; bench/results/stream.json
    .venv/bin/python bench/bench_stream.py --gb 0.2   # quicker
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import machine, save, table  # noqa: E402

MARKS = (0.1, 0.5, 1.0)
WORDS = ("radar glacier sounding expert router sparse mixture bed echo survey antarctic network graph recurrent "
         "bus headway forecast soil carbon hyperspectral model variance field sample coral reef drone segment "
         "transformer protein fold stability salt bridge dynamics wheat yield phenology satellite").split()  # fmt: skip
CATEGORIES = ["cs.LG", "cs.CV", "cs.CL", "stat.ML", "math.OC", "physics.geo-ph", "hep-th", "q-bio.BM", "eess.SP"]
MONTHS = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()


def _abstract(rng: random.Random, words: int = 150) -> str:
    text = " ".join(rng.choice(WORDS) for _ in range(words))
    return "  " + "\n".join(text[i : i + 80] for i in range(0, len(text), 80)) + "\n"


def write_arxiv(path: Path, size: int, seed: int = 1) -> int:
    rng = random.Random(seed)
    n = 0
    with path.open("w", encoding="utf-8") as f:
        while f.tell() < size:
            year = rng.randint(2007, 2025)
            cats = " ".join(rng.sample(CATEGORIES, rng.randint(1, 3)))
            if rng.random() < 0.2 and "cs.LG" not in cats:
                cats = "cs.LG " + cats
            last, first = rng.choice(["Lee", "Chen", "Bal\\'azs", "Ruiz"]), rng.choice(["Ann", "Bo", "C."])
            record = {
                "id": f"{n // 1_199_988 + 7:02d}{n // 99_999 % 12 + 1:02d}.{n % 99_999 + 1:05d}",  # unique
                "submitter": f"{first} {last}",
                "authors": f"{first} {last}, D. Otieno and E. Novak", "title": _abstract(rng, 9).strip(),
                "comments": "12 pages, 4 figures", "journal-ref": None, "doi": None, "report-no": None,
                "categories": cats, "license": None, "abstract": _abstract(rng),
                "versions": [{"version": "v1", "created": f"Mon, {rng.randint(1, 28)} {rng.choice(MONTHS)} {year} "
                                                           "10:00:00 GMT"}],
                "update_date": f"{year}-06-01", "authors_parsed": [[last, first, ""], ["Otieno", "D.", ""]],
            }  # fmt: skip
            f.write(json.dumps(record) + "\n")
            n += 1
    return n


def write_csv(path: Path, size: int, seed: int = 2) -> int:
    rng = random.Random(seed)
    n = 0
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "title", "abstract", "authors", "year", "venue"])
        while f.tell() < size:
            writer.writerow([f"p{n}", _abstract(rng, 9).strip(), _abstract(rng).strip(), "Ann Lee; Bo Chen",
                             rng.randint(2000, 2025), "Synthetic Workshop"])  # fmt: skip
            n += 1
    return n


def write_json_array(path: Path, size: int, seed: int = 3) -> int:
    rng = random.Random(seed)
    n = 0
    with path.open("w", encoding="utf-8") as f:
        f.write("[\n")
        while f.tell() < size:
            record = {"id": f"p{n}", "title": _abstract(rng, 9).strip(), "abstract": _abstract(rng).strip(),
                      "authors": ["Ann Lee", "Bo Chen"], "year": rng.randint(2000, 2025)}  # fmt: skip
            f.write(("," if n else "") + json.dumps(record) + "\n")
            n += 1
        f.write("]\n")
    return n


def _hwm_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def child(mode: str, path: Path, where: list[str], since: str | None) -> dict:
    """Runs in its own process: read the file, note the peak RSS at each mark."""
    from rag.corpus import CorpusStats, iter_papers, selection

    base = _hwm_mb()
    size = path.stat().st_size
    marks: dict[str, float] = {}
    todo = list(MARKS)
    started = time.perf_counter()
    count = 0
    if mode == "csv-whole":  # what rag/corpus/csv_table.py did before: the whole text, then a list of rows
        from rag.corpus.paper_fields import build_paper

        text = path.read_bytes().decode("utf-8")
        rows = list(csv.reader(io.StringIO(text, newline="")))
        names = [n.lower() for n in rows[0]]
        for i, row in enumerate(rows[1:], 1):
            build_paper(dict(zip(names, row, strict=True)), path, 100_000)
            count += 1
            while todo and i >= todo[0] * (len(rows) - 1):
                marks[str(todo.pop(0))] = _hwm_mb()
    else:
        def progress(done: int, total: int, papers: int) -> None:
            while todo and done >= todo[0] * total:
                marks[str(todo.pop(0))] = _hwm_mb()

        stats = CorpusStats()
        for _ in iter_papers([path], selection=selection(where, since), progress=progress, stats=stats):
            count += 1
    seconds = time.perf_counter() - started
    return {"mode": mode, "bytes": size, "papers_kept": count, "seconds": round(seconds, 1),
            "mb_per_s": round(size / 1e6 / seconds, 1), "rss_after_imports_mb": round(base, 1),
            "peak_rss_mb_at": {k: round(v, 1) for k, v in marks.items()}}  # fmt: skip


def run_child(mode: str, path: Path, where: list[str] = (), since: str | None = None) -> dict:  # type: ignore[assignment]
    args = [sys.executable, __file__, "--child", mode, str(path), "--since", since or ""]
    for w in where:
        args += ["--where", w]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"{mode} {path.name} failed: {out.stderr.strip()[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gb", type=float, default=1.0)
    parser.add_argument("--child", nargs=2, metavar=("MODE", "FILE"), help=argparse.SUPPRESS)
    parser.add_argument("--where", action="append", default=[], help=argparse.SUPPRESS)
    parser.add_argument("--since", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], Path(args.child[1]), args.where, args.since or None)))
        return
    size = int(args.gb * 1e9)
    result: dict = {"machine": machine(), "gb": args.gb, "runs": []}
    with tempfile.TemporaryDirectory(prefix="bench-stream-") as tmp:
        for name, write, runs in [
            ("arxiv-metadata-oai-snapshot.json", write_arxiv,
             [("arxiv --where categories=cs.LG --since 2024-01-01", ["categories=cs.LG"], "2024-01-01"),
              ("arxiv, no filter", [], None)]),
            ("corpus.csv", write_csv, [("csv", [], None)]),
            ("corpus.json", write_json_array, [("json array", [], None)]),
        ]:  # fmt: skip
            path = Path(tmp) / name
            started = time.perf_counter()
            records = write(path, size)
            print(f"wrote {path.name}: {records:,} records, {path.stat().st_size / 1e9:.2f} GB "
                  f"({time.perf_counter() - started:.0f}s)", flush=True)  # fmt: skip
            for label, where, since in runs:
                run = run_child("stream", path, where, since) | {"label": label, "records": records}
                result["runs"].append(run)
                print(json.dumps(run), flush=True)
            if name == "corpus.csv":
                run = run_child("csv-whole", path) | {"label": "csv, read whole (before)", "records": records}
                result["runs"].append(run)
                print(json.dumps(run), flush=True)
            path.unlink()
    save("stream", result)
    rows = [(r["label"], f"{r['records']:,}", f"{r['papers_kept']:,}", r["rss_after_imports_mb"],
             *(r["peak_rss_mb_at"].get(str(m), "") for m in MARKS), r["mb_per_s"]) for r in result["runs"]]  # fmt: skip
    print(table(["run", "records", "kept", "RSS at start MB", "peak @0.1", "peak @0.5", "peak @1.0", "MB/s"], rows))


if __name__ == "__main__":
    main()
