"""Issue 35: answers from the dev PDFs, abstract-only against --full-text (extractive backend, MiniLM).

Twenty questions written by reading the PDFs (bench/pdf_dev/questions.jsonl): ten answerable from an abstract,
ten only from the body (a hyperparameter, a design constant, a table value, a dataset size; "page" is the page, or
the pages, that state it). An answer is right when every expected value is in
its text and the right paper is cited; for a body question with --full-text, the cited page is checked too.
The PDFs are read from $RAG_PDF_DEV (default /work/cache/pdf_dev); skipped with a reason when absent.

  python bench/bench_pdf_answers.py [--set dev|heldout] [--full-text] [--sentence-pass own|chunk|mixed|auto]
      [--label NAME]
      -> bench/results/pdf_answers[-heldout][-NAME].json
(--full-text: the --full-text index only; --sentence-pass: where the stored sentence vectors come from)
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import PDF_SETS, RESULTS, pdf_set  # noqa: E402


def run(folder: Path, full_text: bool, questions: list[dict], model: object, sentence_pass: str) -> list[dict]:
    from rag.factory import build_index, open_assistant
    from rag.settings import load_settings

    rows = []
    with tempfile.TemporaryDirectory() as home:
        settings = load_settings(home=Path(home), env={}).replace(
            full_text=full_text, llm="extractive", sentence_pass=sentence_pass
        )
        build_index(settings, [folder], embedder=model, on_error="skip", warn=lambda _: None)  # type: ignore[arg-type]
        assistant = open_assistant(settings)
        try:
            for q in questions:
                answer = assistant.ask(q["question"])
                text = answer.text
                found = all(re.search(alt, text, re.IGNORECASE) for alt in q["must_include"])
                cited = [c.paper_id for c in answer.citations]
                pages = [c.page for c in answer.citations if c.paper_id == q["gold"]]
                right = found and q["gold"] in cited
                want = q.get("page")
                want_pages = set(want) if isinstance(want, list) else {want}
                rows.append({"id": q["id"], "where": q["where"], "right": right, "value": found,
                             "cited": cited, "pages": pages, "page_right": bool(want_pages & set(pages)),
                             "abstained": answer.abstained, "answer": text[:300]})  # fmt: skip
                print(("full" if full_text else "abstract"), q["id"], "right" if right else "wrong", cited, pages,
                      text[:120].replace("\n", " "), flush=True)  # fmt: skip
        finally:
            assistant.close()
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--full-text", action="store_true", help="the --full-text index only")
    parser.add_argument("--sentence-pass", default="auto", choices=("auto", "chunk", "mixed", "own"))
    parser.add_argument("--label", default="")
    parser.add_argument("--set", default="dev", choices=PDF_SETS, help="heldout: bench/pdf_heldout, run only to report")
    args = parser.parse_args()
    folder, meta = pdf_set(args.set)
    if not folder.is_dir() or not (meta / "questions.jsonl").exists():
        print(f"skipped: the {args.set} PDFs are not in {folder}; see {meta}/MANIFEST.md")
        return 0
    from rag.factory import make_embedder
    from rag.settings import load_settings

    questions = [json.loads(line) for line in (meta / "questions.jsonl").read_text().splitlines() if line.strip()]
    model = make_embedder(load_settings(env={}))
    started = time.perf_counter()
    result: dict = {}
    result["sentence_pass"] = args.sentence_pass
    result["set"] = args.set
    for full_text in (True,) if args.full_text else (False, True):
        rows = run(folder, full_text, questions, model, args.sentence_pass)
        by = {w: [r for r in rows if r["where"] == w] for w in ("abstract", "body")}
        result["full_text" if full_text else "abstract_only"] = {
            "right": f"{sum(r['right'] for r in rows)}/{len(rows)}",
            "abstract_questions": f"{sum(r['right'] for r in by['abstract'])}/{len(by['abstract'])}",
            "body_questions": f"{sum(r['right'] for r in by['body'])}/{len(by['body'])}",
            "body_page_right": f"{sum(r['right'] and r['page_right'] for r in by['body'])}/{len(by['body'])}",
            "rows": rows,
        }
    result["seconds"] = round(time.perf_counter() - started, 1)
    modes = {k: v for k, v in result.items() if isinstance(v, dict)}
    print(json.dumps({k: {x: y for x, y in v.items() if x != "rows"} for k, v in modes.items()}))
    prefix = "pdf_answers" if args.set == "dev" else f"pdf_answers-{args.set}"
    out = RESULTS / f"{prefix}{'-' + args.label if args.label else ''}.json"
    out.write_text(json.dumps(result, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
