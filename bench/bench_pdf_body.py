"""Issue 35 items 1 and 6: the body pages of a --full-text read from PDFium against pypdf, side by side.

For each PDF of a set (bench/pdf_dev or bench/pdf_heldout), `read_papers(..., full_text=True)` twice in one
process, alternating: as rag reads it (pages 1-2 with pypdf, the body pages with PDFium: rag.corpus.pdf_pdfium)
and with PDFium hidden (every page with pypdf, as before). Per reader:
  cpu_s           CPU seconds to read the whole folder (median of --rounds)
  sections, chars body sections and characters of body text
  glued           run-together tokens in the body (a lower-case run of 16+ letters: "readorwritechunkdata")
  table_rows      body sentences that are table rows ("ResNet-50 | 76.1 | 25.6.")
  body_values     body questions (questions.jsonl, where = body) whose expected value is in the gold paper's body,
                  (a value split by a sentence break or a soup of cells is not), and on the page the question names
Metadata (title, abstract, year, ids) is read from pages 1-2 with pypdf either way: bench_pdf_quality.py.

  python bench/bench_pdf_body.py [--set dev|heldout] [--rounds 3]  -> bench/results/pdf_body[-heldout].json
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import PDF_SETS, RESULTS, pdf_set  # noqa: E402

GLUED = re.compile(r"\b[a-z]{16,}\b")


def _read(files: list[Path], pdfium: bool) -> tuple[float, list]:
    from rag.corpus import read_papers

    saved = sys.modules.get("pypdfium2")
    if not pdfium:
        sys.modules["pypdfium2"] = None  # type: ignore[assignment]
    try:
        start = time.process_time()
        papers = read_papers(files, on_error="skip", warn=lambda _: None, full_text=True)
        return time.process_time() - start, papers
    finally:
        if saved is not None:
            sys.modules["pypdfium2"] = saved
        else:
            sys.modules.pop("pypdfium2", None)


def _figures(papers: list, questions: list[dict]) -> dict:
    by_id = {p.id: p for p in papers}
    body = [s for p in papers for s in p.body]
    text = " ".join(s.text for s in body)
    found, on_page = 0, 0
    asked = [q for q in questions if q["where"] == "body"]
    for q in asked:
        paper = by_id.get(q["gold"])
        if paper is None:
            continue
        pages = q["page"] if isinstance(q["page"], list) else [q["page"]]
        hits = [s for s in paper.body if all(re.search(v, s.text) for v in q["must_include"])]
        found += bool(hits)
        on_page += any(s.page in pages for s in hits)  # a section is one section's text on one page
    return {"papers": len(papers), "sections": len(body), "chars": len(text), "glued": len(GLUED.findall(text)),
            "table_rows": text.count(" | "), "body_values": f"{found}/{len(asked)}",
            "body_values_on_page": f"{on_page}/{len(asked)}"}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", default="dev", choices=PDF_SETS)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    folder, meta = pdf_set(args.set)
    if not folder.is_dir():
        print(f"skipped: the {args.set} PDFs are not in {folder}")
        return 0
    files = sorted(folder.glob("*.pdf"))
    questions = [json.loads(x) for x in (meta / "questions.jsonl").read_text().splitlines() if x.strip()]
    cpu: dict[str, list[float]] = {"pdfium": [], "pypdf": []}
    figures: dict[str, dict] = {}
    for _ in range(args.rounds):
        for name in cpu:
            spent, papers = _read(files, pdfium=name == "pdfium")
            cpu[name].append(round(spent, 2))
            figures[name] = _figures(papers, questions)
    result = {"set": args.set, "files": len(files), "rounds": args.rounds, "cpu_s": cpu,
              "median_cpu_s": {k: statistics.median(v) for k, v in cpu.items()}, "figures": figures}  # fmt: skip
    out = RESULTS / f"pdf_body{'-' + args.set if args.set != 'dev' else ''}.json"
    out.write_text(json.dumps(result, indent=1))
    print(json.dumps({k: v for k, v in result.items() if k != "cpu_s"}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
