"""Retrieval quality on a question set: nDCG@10 and recall per search mode, and the first places fusion loses.

    .venv/bin/python bench/bench_retrieval_quality.py --questions FILE --home DIR [--corpus CORPUS.jsonl]
        [--format rag|scifact] [--name NAME] [--modes hybrid dense lexical] [--settings KEY=VALUE ...]

`--format rag`: a `rag eval` question file (`question`, `gold` paper ids). `--format scifact`: SciFact's own claim
files (`id`, `claim`, `cited_doc_ids`), e.g. the official dev claims that are BEIR's SciFact test set; the cited
documents are the relevant ones (BEIR's qrels) and map to this project's SciFact corpus ids (`sf-<doc id>`, see
../shared/external/README.md). Given `--corpus`, a home without an index is indexed first with the default
settings (`rag index CORPUS`); an existing index is reused as it is.

Per mode (default settings otherwise, `Retriever.search(question, 10, mode=...)`):
- ndcg@10 (binary relevance), recall@10 and recall@5 (share of the relevant papers found, BEIR's definition),
  hit@10 (share of questions with a relevant paper in the top 10), MRR;
- for hybrid: "first places lost", the questions where dense or BM25 alone ranks a relevant paper first and the
  hybrid top 10 does not hold it, and "confident first places lost", the same for any first place (relevant or
  not) that leads its retriever's second place by the fusion's confidence margin (rag.retrieve.fusion).

`--without-sentence-vectors` searches as over an index built with `sentence_vectors = false` (or a worker whose
docstore is missing): the evidence stage is skipped. RAG_BENCH_SOURCE=DIR runs another version's code (a source
tree, e.g. `git archive <commit>`) instead of this checkout's. Writes bench/results/retrieval_quality-NAME.json.
Nothing here is tuned: it measures what `rag search` does.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

import common

if os.environ.get("RAG_BENCH_SOURCE"):  # measure another version's code (a source tree) on the same questions
    sys.path.insert(0, os.environ["RAG_BENCH_SOURCE"])


def load_questions(path: Path, fmt: str) -> list[tuple[str, str, set[str], str]]:
    """(id, question, relevant paper ids, type) of every question with relevant papers."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        if fmt == "scifact":
            gold = {f"sf-{d}" for d in row.get("cited_doc_ids") or []}
            out.append((str(row["id"]), row["claim"], gold, "claim"))
        elif row.get("gold"):
            out.append((str(row["id"]), row["question"], set(row["gold"]), str(row.get("type") or "")))
    return [q for q in out if q[2]]


def scores(ranked: list[str], gold: set[str]) -> dict[str, float]:
    dcg = sum(1 / math.log2(i + 2) for i, p in enumerate(ranked[:10]) if p in gold)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(10, len(gold))))
    first = next((i for i, p in enumerate(ranked) if p in gold), None)
    return {
        "ndcg@10": dcg / ideal,
        "recall@10": len(gold & set(ranked[:10])) / len(gold),
        "recall@5": len(gold & set(ranked[:5])) / len(gold),
        "hit@10": float(bool(gold & set(ranked[:10]))),
        "mrr": 0.0 if first is None else 1 / (first + 1),
    }


def _means(rows: list[dict[str, float]]) -> dict:
    return {"n": len(rows), **{key: round(statistics.fmean(r[key] for r in rows), 4) for key in rows[0]}}


def confident(hits: list) -> bool:
    """Whether a single retriever's first place leads its second by the fusion's confidence margin."""
    from rag.retrieve import fusion

    lead = getattr(fusion, "CONFIDENT_LEAD", 0.25)  # code from before the rule: the same margin, for comparison
    return len(hits) == 1 or (len(hits) > 1 and hits[0].score - hits[1].score >= lead)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=Path, required=True)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--corpus", type=Path, help="indexed into --home first when it holds no index")
    parser.add_argument("--format", choices=["rag", "scifact"], default="rag")
    parser.add_argument("--name", help="results file suffix (default: the question file's stem)")
    parser.add_argument("--modes", nargs="+", default=["hybrid", "dense", "lexical"])
    parser.add_argument("--settings", nargs="*", default=[], metavar="KEY=VALUE", help="e.g. candidates=100")
    parser.add_argument("--without-sentence-vectors", action="store_true",
                        help="search as over an index built with sentence_vectors = false (no evidence stage)")
    args = parser.parse_args()

    from rag.factory import build_index, open_retriever
    from rag.settings import load_settings

    overrides = dict(item.split("=", 1) for item in args.settings)
    settings = load_settings(home=args.home, env={}, **overrides)  # type: ignore[arg-type]
    if args.corpus is not None and not (args.home / "index").is_dir():
        t = time.perf_counter()
        build_index(settings, [str(args.corpus)])
        print(f"indexed {args.corpus} in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    retriever = open_retriever(settings)
    if args.without_sentence_vectors:  # what the retriever sees when the docstore holds none
        retriever._best_sentences = lambda chunk_ids, qvec: None  # type: ignore[method-assign]
    questions = load_questions(args.questions, args.format)
    runs: dict[str, list[list]] = {}
    for mode in args.modes:
        t = time.perf_counter()
        runs[mode] = [retriever.search(" ".join(q.split()), 10, mode=mode) for _, q, _, _ in questions]
        print(f"{mode}: {len(questions)} questions in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    result: dict = {"questions": str(args.questions), "n": len(questions),
                    "relevant": sum(len(q[2]) for q in questions)}  # fmt: skip
    kinds = sorted({q[3] for q in questions})
    for mode, hits in runs.items():
        rows = [scores([h.paper.id for h in hs], q[2]) for hs, q in zip(hits, questions, strict=True)]
        result[mode] = _means(rows)
        if len(kinds) > 1:
            result[mode]["by_type"] = {kind: _means([r for r, q in zip(rows, questions, strict=True) if q[3] == kind])
                                       for kind in kinds}  # fmt: skip
    if "hybrid" in runs:
        lost, confident_lost, firsts, confident_firsts = [], [], 0, 0
        for i, (qid, _, gold, _) in enumerate(questions):
            top = {h.paper.id for h in runs["hybrid"][i]}
            for mode in set(runs) & {"dense", "lexical"}:
                single = runs[mode][i]
                if not single:
                    continue
                first = single[0].paper.id
                if first in gold:
                    firsts += 1
                    if first not in top:
                        lost.append(f"{qid}:{mode}")
                if confident(single):
                    confident_firsts += 1
                    if first not in top:
                        confident_lost.append(f"{qid}:{mode}")
        result["fusion"] = {"relevant_first_places": firsts, "relevant_first_places_lost": len(lost),
                            "confident_first_places": confident_firsts, "confident_first_places_lost":
                            len(confident_lost)}  # fmt: skip
        # which questions: on stderr only (SciFact's ids are not to be copied into the repository)
        print(f"first places lost: {lost}; confident ones lost: {confident_lost}", file=sys.stderr)
    import rag

    result["code"] = str(Path(rag.__file__).resolve().parent.parent)
    result["settings"] = overrides
    result["without_sentence_vectors"] = args.without_sentence_vectors
    result["machine"] = common.machine()
    name = args.name or args.questions.stem
    print(json.dumps({k: v for k, v in result.items() if k not in ("machine",)}, indent=1))
    print(f"wrote {common.save(f'retrieval_quality-{name}', result)}", file=sys.stderr)


if __name__ == "__main__":
    main()
