"""Issue 35: what `rag index` makes of real research PDFs, scored against what a reader sees on page 1.

For each PDF in bench/pdf_dev/truth.json (the files themselves are not redistributable and are read from
$RAG_PDF_DEV, default /work/cache/pdf_dev; see bench/pdf_dev/MANIFEST.md): is it indexed at all, is the title
right, is the abstract right (starts and ends with the words a reader sees), are the year and arXiv id right.
Then the --full-text read: CPU seconds of extraction, pages/s, sections, chunks (the same chunker `rag index`
uses), and how many bracketed reference markers ("[4]", "[4, 5]") are left in the indexed body text.

Comparison is case- and punctuation-insensitive (ligatures unfolded), so "DIVIDEMIX" matches "DivideMix".

  python bench/bench_pdf_quality.py [--label after]      -> bench/results/pdf_quality-<label>.json
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
import unicodedata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import RESULTS  # noqa: E402
from rag.corpus import read_papers  # noqa: E402
from rag.index.chunking import chunk_paper  # noqa: E402

TRUTH = Path(__file__).resolve().parent / "pdf_dev" / "truth.json"
MARKER = re.compile(r"\[\d{1,3}(?:\s*[,–-]\s*\d{1,3})*\]")


def norm(text: str | None) -> str:
    text = unicodedata.normalize("NFKC", text or "").casefold()
    return re.sub(r"[^a-z0-9]+", "", text)


def score(item: dict, paper: object | None) -> dict:
    if paper is None:
        return {"indexed": False, "title": False, "abstract": False, "year": False, "arxiv_id": False}
    abstract = norm(paper.abstract)  # type: ignore[attr-defined]
    return {
        "indexed": True,
        "title": norm(paper.title) == norm(item["title"]),  # type: ignore[attr-defined]
        "abstract": abstract.startswith(norm(item["abstract_start"])) and abstract.endswith(norm(item["abstract_end"])),
        "year": item["year"] is not None and paper.year == item["year"],  # type: ignore[attr-defined]
        "arxiv_id": item["arxiv_id"] is not None and paper.arxiv_id == item["arxiv_id"],  # type: ignore[attr-defined]
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--label", default="after")
    parser.add_argument("--folder", default=os.environ.get("RAG_PDF_DEV", "/work/cache/pdf_dev"))
    parser.add_argument("--no-full-text", action="store_true", help="metadata only")
    args = parser.parse_args()
    folder = Path(args.folder)
    truth = json.loads(TRUTH.read_text())
    missing = [t["file"] for t in truth if not (folder / t["file"]).exists()]
    if missing:
        names = ", ".join(missing[:3])
        print(f"skipped: {len(missing)} dev PDFs not in {folder} ({names} ...); see {TRUTH.parent}/MANIFEST.md")
        return 0
    rows = []
    for item in truth:
        warnings: list[str] = []
        papers = read_papers([folder / item["file"]], on_error="skip", warn=warnings.append)
        row = {"file": item["file"], **score(item, papers[0] if papers else None)}
        if papers:
            p = papers[0]
            row["got"] = {"title": p.title, "year": p.year, "arxiv_id": p.arxiv_id, "doi": p.doi,
                          "abstract": p.abstract[:80] + " ... " + p.abstract[-60:]}  # fmt: skip
        else:
            row["got"] = {"warning": warnings[:1]}
        rows.append(row)
    with_year = sum(t["year"] is not None for t in truth)
    with_arxiv = sum(t["arxiv_id"] is not None for t in truth)
    n = len(truth)
    summary = {
        "indexed": f"{sum(r['indexed'] for r in rows)}/{n}",
        "titles": f"{sum(r['title'] for r in rows)}/{n}",
        "abstracts": f"{sum(r['abstract'] for r in rows)}/{n}",
        "years": f"{sum(r['year'] for r in rows)}/{with_year}",
        "arxiv_ids": f"{sum(r['arxiv_id'] for r in rows)}/{with_arxiv}",
    }
    for r in rows:
        wrong = [k for k in ("indexed", "title", "abstract", "year", "arxiv_id") if not r[k]]
        print(f"{r['file']:22} wrong: {', '.join(wrong) or '-':40} {json.dumps(r['got'], ensure_ascii=False)[:200]}")
    full: dict = {}
    if not args.no_full_text:
        start = time.process_time()
        papers = read_papers([folder / t["file"] for t in truth], on_error="skip", warn=lambda _: None, full_text=True)
        read_cpu = time.process_time() - start
        start = time.process_time()
        chunks = [c for p in papers for c in chunk_paper(p)]
        chunk_cpu = time.process_time() - start
        pages = sum(max((s.page for s in p.body), default=0) for p in papers)
        body = " ".join(s.text for p in papers for s in p.body)
        full = {
            "papers": len(papers), "pages": pages, "sections": sum(len(p.body) for p in papers),
            "chunks": len(chunks), "extract_cpu_s": round(read_cpu, 1), "pages_per_cpu_s": round(pages / read_cpu, 1),
            "chunk_cpu_s": round(chunk_cpu, 1), "bracket_markers_in_body": len(MARKER.findall(body)),
        }  # fmt: skip
    print(json.dumps({"summary": summary, "full_text": full}, indent=1))
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"pdf_quality-{args.label}.json"
    out.write_text(json.dumps({"summary": summary, "full_text": full, "rows": rows}, indent=1, ensure_ascii=False))
    print(f"-> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
