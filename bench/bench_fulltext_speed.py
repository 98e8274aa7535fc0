"""Issue 35 item 6: a full-text PDF build against the encoder alone on the same chunks, by sentence pass.

Rounds alternate, in one process with MiniLM loaded: the encoder alone on exactly the texts the build embeds (the
chunks as embedded, batches of `embed_batch_size`), then `build_index` in a fresh data directory with each sentence
pass asked for ("own": every sentence encoded again on its own, what "auto" gave a 16-PDF library before; "chunk":
sentence vectors pooled from the chunk's own pass; "mixed": the abstract's sentences on their own, body windows
pooled, what "auto" gives a full-text library below 150 papers since BENCHMARKS.md section 11d). Wall and CPU
seconds of this process and its finished children (the PDF read-ahead workers, `--read-workers`), and the 1-minute
load average at the start of each timing. Medians over the rounds, and of the per-round ratios. The PDFs are read
from $RAG_PDF_DEV (default /work/cache/pdf_dev); skipped with a reason when absent.

  python bench/bench_fulltext_speed.py [--rounds 3] [--passes own,chunk,mixed] [--read-workers 1,0] [--label NAME]
      -> bench/results/fulltext_speed[-NAME].json (rewritten after every round)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import RESULTS, cpu_seconds, pdf_dev_folder  # noqa: E402


def _timed(work: object) -> dict:
    load = os.getloadavg()[0]
    wall, cpu = time.perf_counter(), cpu_seconds()
    out = work()  # type: ignore[operator]
    return {"wall_s": round(time.perf_counter() - wall, 1), "cpu_s": round(cpu_seconds() - cpu, 1),
            "load_1m": round(load, 1), "out": out}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--passes", default="own,chunk", help="sentence passes to build with, comma-separated")
    parser.add_argument("--label", default="")
    parser.add_argument("--read-workers", default="0", help="read_workers values to build with, comma-separated "
                        "(0: one per core, 1: read in the indexing process); each pass is built with each")
    args = parser.parse_args()
    folder = pdf_dev_folder()
    if not folder.is_dir():
        print(f"skipped: the dev PDFs are not in {folder}")
        return 0
    import pypdf

    from rag.corpus import read_papers
    from rag.factory import build_index, make_embedder
    from rag.index.chunking import chunk_paper, embed_text
    from rag.ports import embed_in_batches
    from rag.settings import load_settings

    files = sorted(folder.glob("*.pdf"))
    base = load_settings(env={}).replace(full_text=True)
    model = make_embedder(base)
    model.embed_batch(["warm up the session"])
    papers = read_papers(files, on_error="skip", warn=lambda _: None, full_text=True)
    texts = [embed_text(p, c.text, c.section) for p in papers
             for c in chunk_paper(p, base.index.chunk_tokens, base.index.chunk_overlap)]  # fmt: skip
    pages = sum(len(pypdf.PdfReader(f).pages) for f in files)
    workers = [int(w) for w in args.read_workers.split(",") if w]
    passes = [f"{p}/w{w}" for p in args.passes.split(",") if p for w in workers]
    runs: dict[str, list[dict]] = {"encoder": [], **{p: [] for p in passes}}
    out_file = RESULTS / f"fulltext_speed{'-' + args.label if args.label else ''}.json"
    for round_ in range(args.rounds):
        runs["encoder"].append(_timed(lambda: len(embed_in_batches(model, texts, base.index.embed_batch_size))))
        for name in passes:
            with tempfile.TemporaryDirectory() as home:
                sentence_pass, w = name.split("/w")
                settings = load_settings(home=Path(home), env={}).replace(full_text=True, sentence_pass=sentence_pass,
                                                                          read_workers=int(w))  # fmt: skip
                run = _timed(lambda s=settings: build_index(s, [folder], embedder=model, on_error="skip",
                                                            warn=lambda _: None).chunks)  # fmt: skip
                runs[name].append(run)
        for name, rows in runs.items():
            print(round_ + 1, name, rows[-1], flush=True)
        enc = statistics.median(r["wall_s"] for r in runs["encoder"])
        enc_cpu = statistics.median(r["cpu_s"] for r in runs["encoder"])
        summary = {"encoder": {"median_wall_s": enc, "median_cpu_s": enc_cpu}}
        for name in passes:
            wall = statistics.median(r["wall_s"] for r in runs[name])
            cpu = statistics.median(r["cpu_s"] for r in runs[name])
            chunks = runs[name][-1]["out"]
            per_round = [(r["wall_s"] / e["wall_s"], r["cpu_s"] / e["cpu_s"])
                         for r, e in zip(runs[name], runs["encoder"], strict=True)]  # fmt: skip
            summary[name] = {"median_wall_s": wall, "median_cpu_s": cpu, "ratio_wall": round(wall / enc, 2),
                             "ratio_cpu": round(cpu / enc_cpu, 2), "pages_per_s": round(pages / wall, 2),
                             "chunks_per_s": round(chunks / wall, 2),
                             "median_round_ratio_wall": round(statistics.median(w for w, _ in per_round), 2),
                             "median_round_ratio_cpu": round(statistics.median(c for _, c in per_round), 2),
                             }  # fmt: skip
        result = {"folder_files": len(files), "papers": len(papers), "pdf_pages": pages, "encoder_texts": len(texts),
                  "rounds": round_ + 1, "summary": summary, "runs": runs}  # fmt: skip
        out_file.write_text(json.dumps(result, indent=1))
        print(json.dumps(summary), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
