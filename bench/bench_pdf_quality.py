"""Issue 35: what `rag index` makes of real research PDFs, scored against what a reader sees on page 1.

For each PDF in bench/pdf_dev/truth.json (the files themselves are not redistributable and are read from
$RAG_PDF_DEV, default /work/cache/pdf_dev; see bench/pdf_dev/MANIFEST.md): is it indexed at all, is the title
right, is the abstract right (starts and ends with the words a reader sees), are the year and arXiv id right.
Then the --full-text read: CPU seconds of extraction, pages/s, sections, chunks (the same chunker `rag index`
uses), how many bracketed reference markers ("[4]", "[4, 5]") are left in the body text and in the chunks indexed,
and how many conference running headers sit in the body text.

Comparison is case- and punctuation-insensitive (ligatures unfolded), so "DIVIDEMIX" matches "DivideMix".

With --build, also `rag index FOLDER --full-text` (MiniLM, fresh data directory) against the encoder alone on
exactly the texts it embeds (issue 35: at most 1.15x), with pages/s and chunks/s.

  python bench/bench_pdf_quality.py [--set dev|heldout] [--label after] [--build]
      -> bench/results/pdf_quality[-heldout]-<label>.json
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

import pypdf

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import PDF_SETS, RESULTS, pdf_set  # noqa: E402
from rag.corpus import read_papers  # noqa: E402
from rag.index.chunking import chunk_paper  # noqa: E402

MARKER = re.compile(r"\[\d{1,3}(?:\s*[,–-]\s*\d{1,3})*\]")
_OPENING_LABEL = re.compile(r"\s*(Background|Objectives?|Purpose|Aims?|Context|Introduction)\s*[.:]", re.IGNORECASE)
RUNNING = re.compile(r"(?:Published as|Under review as) a conference paper", re.IGNORECASE)


def norm(text: str | None) -> str:
    text = unicodedata.normalize("NFKC", text or "").casefold()
    return re.sub(r"[^a-z0-9]+", "", text)


def score(item: dict, paper: object | None) -> dict:
    if paper is None:
        return {"indexed": False, "title": False, "abstract": False, "year": False, "arxiv_id": False, "doi": False,
                "year_unprinted": None}
    abstract = norm(paper.abstract)  # type: ignore[attr-defined]
    # a structured abstract's first label ("Background:") is part of what a reader sees, and a truth may leave it out
    # (bench/pdf_heldout's notes): either is right
    start = norm(item["abstract_start"])
    opening = _OPENING_LABEL.match(paper.abstract or "")  # type: ignore[attr-defined]
    if opening and not start.startswith(norm(opening.group(1))):
        abstract = abstract[len(norm(opening.group(1))):]
    # a structured abstract's labels ("Background:", "Methods:") read once: a part read twice is not right
    labels = re.findall(r"\b(Background|Objectives?|Methods|Results|Conclusions?|Discussion)\b[.:]?", paper.abstract)  # type: ignore[attr-defined]
    return {
        "indexed": True,
        "title": norm(paper.title) == norm(item["title"]),  # type: ignore[attr-defined]
        "abstract": abstract.startswith(start) and abstract.endswith(norm(item["abstract_end"]))
        and len(labels) == len(set(labels)),
        "year": None if item["year"] is None else paper.year == item["year"],  # type: ignore[attr-defined]
        # a year given for a PDF whose first page prints none (what a year cue took from elsewhere on the page)
        "year_unprinted": None if item["year"] is not None else paper.year is not None,  # type: ignore[attr-defined]
        "arxiv_id": None if item["arxiv_id"] is None else paper.arxiv_id == item["arxiv_id"],  # type: ignore[attr-defined]
        "doi": None if not item.get("doi") else (paper.doi or "").lower() == item["doi"].lower(),  # type: ignore[attr-defined]
    }


def build(folder: Path, files: list[Path]) -> dict:
    """`rag index FOLDER --full-text` (the real indexer, MiniLM, a fresh data directory) against the encoder alone
    on exactly the texts it embeds; wall and CPU seconds of this process."""
    from rag.factory import build_index, make_embedder
    from rag.index.chunking import embed_text
    from rag.ports import embed_in_batches
    from rag.settings import load_settings

    with tempfile.TemporaryDirectory() as home:
        settings = load_settings(home=Path(home), env={}).replace(full_text=True)
        model = make_embedder(settings)
        model.embed_batch(["warm up the session"])
        papers = read_papers(files, on_error="skip", warn=lambda _: None, full_text=True)
        texts = [embed_text(p, c.text, c.section) for p in papers
                 for c in chunk_paper(p, settings.index.chunk_tokens, settings.index.chunk_overlap)]  # fmt: skip
        wall, cpu = time.perf_counter(), time.process_time()
        embed_in_batches(model, texts, settings.index.embed_batch_size)
        encoder = {"seconds": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu}
        wall, cpu = time.perf_counter(), time.process_time()
        report = build_index(settings, [folder], embedder=model, on_error="skip", warn=lambda _: None)
        index = {"seconds": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu}
    pages = sum(len(pypdf.PdfReader(f).pages) for f in files)
    return {
        "chunks": report.chunks, "encoder_texts": len(texts), "pdf_pages": pages,
        "encoder_s": round(encoder["seconds"], 1), "encoder_cpu_s": round(encoder["cpu_s"], 1),
        "index_s": round(index["seconds"], 1), "index_cpu_s": round(index["cpu_s"], 1),
        "ratio_wall": round(index["seconds"] / encoder["seconds"], 2),
        "ratio_cpu": round(index["cpu_s"] / encoder["cpu_s"], 2),
        "pages_per_s": round(pages / index["seconds"], 2), "chunks_per_s": round(report.chunks / index["seconds"], 2),
        "load_avg_1m": round(os.getloadavg()[0], 1),
    }  # fmt: skip


def _summary(rows: list[dict]) -> dict:
    """Right / counted for each field; year, arXiv id and DOI count only where the truth has one."""
    n = len(rows)
    out = {"indexed": f"{sum(r['indexed'] for r in rows)}/{n}", "titles": f"{sum(r['title'] for r in rows)}/{n}",
           "abstracts": f"{sum(r['abstract'] for r in rows)}/{n}"}  # fmt: skip
    for key, name in (("year", "years"), ("arxiv_id", "arxiv_ids"), ("doi", "dois"),
                      ("year_unprinted", "years_given_where_none_printed")):
        out[name] = f"{sum(r[key] is True for r in rows)}/{sum(r[key] is not None for r in rows)}"
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--label", default="after")
    parser.add_argument("--set", default="dev", choices=PDF_SETS, help="heldout: bench/pdf_heldout, run only to report")
    parser.add_argument("--folder", default="", help="the PDFs (default: the set's folder)")
    parser.add_argument("--no-full-text", action="store_true", help="metadata only")
    parser.add_argument("--build", action="store_true", help="also time `rag index --full-text` against the encoder")
    args = parser.parse_args()
    default_folder, meta = pdf_set(args.set)
    folder = Path(args.folder) if args.folder else default_folder
    truth = json.loads((meta / "truth.json").read_text())
    missing = [t["file"] for t in truth if not (folder / t["file"]).exists()]
    if missing:
        names = ", ".join(missing[:3])
        print(f"skipped: {len(missing)} {args.set} PDFs not in {folder} ({names} ...); see {meta}/MANIFEST.md")
        return 0
    rows = []
    for item in truth:
        warnings: list[str] = []
        papers = read_papers([folder / item["file"]], on_error="skip", warn=warnings.append)
        row = {"file": item["file"], "group": item.get("group", "ml"), **score(item, papers[0] if papers else None)}
        if papers:
            p = papers[0]
            row["got"] = {"title": p.title, "year": p.year, "arxiv_id": p.arxiv_id, "doi": p.doi,
                          "abstract": p.abstract[:80] + " ... " + p.abstract[-60:]}  # fmt: skip
        else:
            row["got"] = {"warning": warnings[:1]}
        rows.append(row)
    groups = sorted({r["group"] for r in rows})
    summary = {group: _summary([r for r in rows if r["group"] == group]) for group in groups}
    summary["all"] = _summary(rows)
    for r in rows:
        wrong = [k for k in ("indexed", "title", "abstract", "year", "arxiv_id", "doi") if r[k] is False]
        print(f"{r['file']:22} wrong: {', '.join(wrong) or '-':40} {json.dumps(r['got'], ensure_ascii=False)[:200]}")
    full: dict = {}
    if not args.no_full_text:
        start = time.process_time()
        papers = read_papers([folder / t["file"] for t in truth], on_error="skip", warn=lambda _: None, full_text=True)
        read_cpu = time.process_time() - start
        start = time.process_time()
        chunks = [c for p in papers for c in chunk_paper(p)]
        chunk_cpu = time.process_time() - start
        pages = sum(len(pypdf.PdfReader(folder / t["file"]).pages) for t in truth)  # every page is read
        body = " ".join(s.text for p in papers for s in p.body)
        full = {
            "papers": len(papers), "pages": pages, "sections": sum(len(p.body) for p in papers),
            "chunks": len(chunks), "extract_cpu_s": round(read_cpu, 1), "pages_per_cpu_s": round(pages / read_cpu, 1),
            "chunk_cpu_s": round(chunk_cpu, 1), "bracket_markers_in_body": len(MARKER.findall(body)),
            "bracket_markers_in_chunks": sum(len(MARKER.findall(c.text)) for c in chunks if c.section or c.page),
            "running_headers_in_body": len(RUNNING.findall(body)),
        }  # fmt: skip
    if args.build and not args.no_full_text:
        full["build"] = build(folder, [folder / t["file"] for t in truth])
    print(json.dumps({"summary": summary, "full_text": full}, indent=1))
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"pdf_quality{'' if args.set == 'dev' else '-' + args.set}-{args.label}.json"
    out.write_text(json.dumps({"summary": summary, "full_text": full, "rows": rows}, indent=1, ensure_ascii=False))
    print(f"-> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
