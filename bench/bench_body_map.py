"""Issue 35 item 3: the sentence map of a full-text library's "mixed" pass, fitted on 2 sentences per paper (what the
chunk pass fits on) against sentences spread over the body windows (300, as rag.index.sentence_map.body_pairs
picks them, and 600), judged on the body sentences none of the fits used.

The dev PDFs ($RAG_PDF_DEV) are read with their full text and chunked as `rag index --full-text` does; every body
window is encoded once (`late_pass`) and every body sentence on its own. "Alignment": how often a sentence's own
encoding finds its stored (mapped) vector first among its window's sentences, what the sentence check relies on;
"cosine": the mean cosine between the two.

  python bench/bench_body_map.py [--label NAME]   -> bench/results/body_map[-NAME].json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import RESULTS, pdf_dev_folder  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--label", default="")
    args = parser.parse_args()
    folder = pdf_dev_folder()
    if not folder.is_dir():
        print(f"skipped: the dev PDFs are not in {folder}")
        return 0
    from rag.corpus import read_papers
    from rag.factory import make_embedder
    from rag.index.calibration import MIN_WORDS, picked
    from rag.index.chunking import chunk_paper, embed_text
    from rag.index.late_chunking import is_abstract, late_pass
    from rag.index.sentence_map import RIDGE, fit_map
    from rag.ports import embed_in_batches
    from rag.settings import load_settings
    from rag.text import split_sentences

    settings = load_settings(env={}).replace(full_text=True)
    model = make_embedder(settings)
    papers = read_papers(sorted(folder.glob("*.pdf")), on_error="skip", warn=lambda _: None, full_text=True)
    rows: list[tuple[int, int, int, str]] = []  # (paper, window, sentence index, text) of body sentences
    pooled: list[np.ndarray] = []
    per_paper: list[list[str]] = []  # each paper's distinct sentences, abstract first (the calibration's order)
    windows = 0
    for k, paper in enumerate(papers):
        chunks = chunk_paper(paper, settings.index.chunk_tokens, settings.index.chunk_overlap)
        texts = []
        for chunk in chunks:
            texts += [s for s in split_sentences(chunk.text) if s not in texts]
        per_paper.append(texts)
        body = [c for c in chunks if not is_abstract(c)]
        for start in range(0, len(body), 8):
            batch = body[start : start + 8]
            _, found = late_pass(model, [embed_text(paper, c.text, c.section) for c in batch], batch)
            for chunk, vectors in zip(batch, found, strict=True):
                for i, (sentence, vector) in enumerate(zip(split_sentences(chunk.text), vectors, strict=True)):
                    rows.append((k, windows, i, sentence))
                    pooled.append(np.asarray(vector, dtype=np.float32))
                windows += 1
    own = np.asarray(embed_in_batches(model, [r[3] for r in rows], 32), dtype=np.float32)
    pool = np.stack(pooled)
    abstract_own = {}  # 2-per-paper picks that are abstract sentences fit as identity pairs (own vectors stored)

    def two_per_paper() -> list[int | str]:
        out: list[int | str] = []
        first = {}
        for r, (k, _, _, text) in enumerate(rows):
            first.setdefault((k, text), r)
        for k, texts in enumerate(per_paper):
            for i in picked(texts, 2):
                out.append(first.get((k, texts[i]), texts[i]))
        return out

    def spread(wanted: int) -> list[int]:
        by_window: dict[int, list[int]] = {}
        for r, (_, w, _, text) in enumerate(rows):
            if len(text.split()) >= MIN_WORDS:
                by_window.setdefault(w, []).append(r)
        per = -(-wanted // max(1, windows))
        step = max(1, windows // wanted)
        out = []
        for w in range(0, windows, step):
            usable = by_window.get(w, [])
            out += usable[:: max(1, len(usable) // per)][:per]
        return out[:wanted]

    fits = {"2 per paper": two_per_paper(), "300 body sentences": spread(300), "600 body sentences": spread(600)}
    used = {r for chosen in fits.values() for r in chosen if isinstance(r, int)}
    judged = [r for r in range(len(rows)) if r not in used]
    results: dict[str, dict] = {}
    for name, chosen in [("unmapped", []), *fits.items()]:
        if chosen:
            idx = [r for r in chosen if isinstance(r, int)]
            extra = [r for r in chosen if isinstance(r, str)]
            if extra:
                abstract_own[name] = len(extra)
                ident = np.asarray(model.embed_batch(extra), dtype=np.float32)
                x, y = np.vstack([pool[idx], ident]), np.vstack([own[idx], ident])
            else:
                x, y = pool[idx], own[idx]
            matrix = fit_map(x, y, RIDGE)
            mapped = pool @ matrix
            mapped /= np.linalg.norm(mapped, axis=1, keepdims=True)
        else:
            mapped = pool
        window_of = np.asarray([r[1] for r in rows])
        hits, cosines = 0, []
        for r in judged:
            same = np.flatnonzero(window_of == window_of[r])
            scores = mapped[same] @ own[r]
            hits += int(same[int(np.argmax(scores))] == r)
            cosines.append(float(mapped[r] @ own[r]))
        results[name] = {"pairs": len(chosen), "abstract_pairs": abstract_own.get(name, 0),
                         "alignment": f"{hits}/{len(judged)}", "alignment_pct": round(100 * hits / len(judged), 1),
                         "mean_cosine": round(float(np.mean(cosines)), 4)}  # fmt: skip
        print(name, results[name], flush=True)
    out = RESULTS / f"body_map{'-' + args.label if args.label else ''}.json"
    out.write_text(json.dumps({"papers": len(papers), "body_windows": windows, "body_sentences": len(rows),
                               "judged": len(judged), "results": results}, indent=1))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
