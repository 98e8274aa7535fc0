"""Issue 35: which PDF text extractor, measured on the dev PDFs rather than chosen by habit.

For each extractor that is installed (pypdf layout mode, pypdf plain mode, pypdf as rag reads it (layout, plain
where layout is empty, then its column reader rag.corpus.pdf_layout.reading_order), pdfminer.six's layout
analysis, pypdfium2), on the 16 dev PDFs of bench/pdf_dev:
  page1_text   page 1 gives text at all (a Form XObject page gives none in pypdf's layout mode)
  abstract     the abstract's first and last words appear on page 1, in that order, with no more than 1.5x the
               abstract's usual length between them (a two-column page read row by row breaks this)
  stamp        arXiv's rotated side stamp is in page 1's text (where the PDF has one)
  cpu_s        CPU seconds to extract every page of the 16 files
The extractors other than pypdf are not project dependencies: install them in a scratch environment
(`pip install pdfminer.six pypdfium2`) and put its site-packages after the checkout on PYTHONPATH when running
this with the product's python; missing ones are skipped.
All three are permissively licensed (pypdf BSD-3, pdfminer.six MIT, pypdfium2 Apache-2.0/BSD-3); PyMuPDF is
AGPL and left out.

  python bench/compare_pdf_extractors.py     -> bench/results/pdf_extractors.json
"""

from __future__ import annotations

import json
import re
import sys
import time
import unicodedata
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.common import pdf_dev_folder  # noqa: E402

TRUTH = ROOT / "bench" / "pdf_dev" / "truth.json"
Pages = Callable[[Path], list[str]]


def norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", unicodedata.normalize("NFKC", text).casefold())


def pypdf_mode(mode: str) -> Pages:
    import pypdf

    def pages(path: Path) -> list[str]:
        out = []
        for page in pypdf.PdfReader(path).pages:
            if mode == "rag":  # rag.corpus.pdf: layout text, columns read apart, plain text where layout is empty
                from rag.corpus.pdf_layout import reading_order

                text = page.extract_text(extraction_mode="layout")
                text = text if len(text.split()) > 3 else page.extract_text()
                out.append("\n".join(reading_order(text)))
            else:
                out.append(page.extract_text(extraction_mode=mode))
        return out

    return pages


def pdfminer_pages(path: Path) -> list[str]:
    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LTTextContainer

    return ["\n".join(e.get_text() for e in page if isinstance(e, LTTextContainer)) for page in extract_pages(path)]


def pdfium_pages(path: Path) -> list[str]:
    import pypdfium2

    doc = pypdfium2.PdfDocument(path)
    return [doc[i].get_textpage().get_text_range() for i in range(len(doc))]


def extractors() -> dict[str, Pages]:
    found: dict[str, Pages] = {}
    for name, module, make in (
        ("pypdf layout", "pypdf", lambda: pypdf_mode("layout")),
        ("pypdf plain", "pypdf", lambda: pypdf_mode("plain")),
        ("pypdf as rag reads it", "pypdf", lambda: pypdf_mode("rag")),
        ("pdfminer.six", "pdfminer", lambda: pdfminer_pages),
        ("pypdfium2", "pypdfium2", lambda: pdfium_pages),
    ):
        try:
            __import__(module)
        except ImportError:
            print(f"skipped {name}: {module} is not installed")
            continue
        found[name] = make()
    return found


def main() -> int:
    folder = pdf_dev_folder()
    truth = json.loads(TRUTH.read_text())
    if not all((folder / t["file"]).exists() for t in truth):
        print(f"skipped: the dev PDFs are not in {folder}; see {TRUTH.parent}/MANIFEST.md")
        return 0
    results = {}
    for name, pages in extractors().items():
        row = {"page1_text": 0, "abstract": 0, "stamp": 0, "stamps_expected": 0, "cpu_s": 0.0}
        for item in truth:
            start = time.process_time()
            try:
                texts = pages(folder / item["file"])
            except Exception as e:  # an extractor that fails on a file scores nothing for it
                print(f"{name}: {item['file']}: {type(e).__name__}")
                continue
            row["cpu_s"] += time.process_time() - start
            first = texts[0] if texts else ""
            flat = norm(first)
            row["page1_text"] += len(flat) > 200
            a, b = flat.find(norm(item["abstract_start"])), flat.find(norm(item["abstract_end"]))
            row["abstract"] += 0 <= a < b and b - a < 1.5 * 1500
            if item["arxiv_id"]:
                row["stamps_expected"] += 1
                row["stamp"] += item["arxiv_id"] in first
        row["cpu_s"] = round(row["cpu_s"], 1)
        results[name] = row
        print(f"{name:24} {json.dumps(row)}", flush=True)
    out = ROOT / "bench" / "results" / "pdf_extractors.json"
    out.write_text(json.dumps({"files": len(truth), "extractors": results}, indent=1))
    print(f"-> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
