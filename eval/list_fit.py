"""Fit the list model (rag.answer.list_keep) on the dev list questions of both corpora and report how it holds up.

    python -m eval.list_fit [--home DIR] [--rows FILE] [--write]

Every "which papers ..." question of the dev files in SOURCES is asked the way the extractive answer asks it (route,
retrieve, score sentences); each retrieved paper becomes one row: its FEATURES and whether it is gold. The rows are
cached in --rows (re-fitting then needs no model). Reported, with denominators: leave-one-question-out and
cross-corpus (fit on one library's questions, score the other's) recall and precision of the gold papers named, for
the logistic model and for the former hand-set rule on the same rows, and how many gold papers retrieval never
brought in (at LIST_K and deeper). --write stores the model fitted on every row, with its threshold, the data
manifest (files, SHA-256, counts) and these figures, in rag/models/list_keep.json. Held-out files are never read.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from eval.questions import load_questions
from eval.suites import CORPORA, SETS
from rag.answer.list_keep import FEATURES, MODEL

# (corpus, dev file under eval/sets): every list question of these is a training question
SOURCES = (
    ("icml2025", "icml2025/dev_kinds.jsonl"),
    ("icml2025", "icml2025/dev_library3.jsonl"),
    ("icml2025", "icml2025/dev_lists.jsonl"),
    ("icml2025", "icml2025/dev_retrieval.jsonl"),
    ("arxiv", "arxiv/dev_lists.jsonl"),
)
SEED = 0  # nothing is random (Newton's method from zero); kept in the manifest for the record
L2 = 1.0  # ridge penalty on the standardised weights
BETA = 2.0  # F-beta of the threshold: recall counts twice as much as precision
DEEP = 30  # how deep retrieval is looked at for gold papers LIST_K misses

Row = dict[str, Any]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def collect(home: Path, list_k: int | None = None) -> list[Row]:
    """One row per retrieved paper of every dev list question (the answer path's own features); `list_k`: try
    another retrieval depth for list questions than rag.answer.assistant.LIST_K."""
    from rag.answer import assistant as assistant_module
    from rag.answer.library import restricted
    from rag.answer.list_keep import features
    from rag.answer.paper_lines import candidates
    from rag.factory import build_index, lazy_embedder, open_assistant
    from rag.settings import load_settings

    if list_k is not None:
        assistant_module.LIST_K = list_k
    rows: list[Row] = []
    base = load_settings(home=str(home), llm="extractive")
    embedder = lazy_embedder(base)
    for corpus in dict.fromkeys(c for c, _ in SOURCES):
        settings = base.replace(collection=f"fit-{corpus}")
        build_index(settings, [CORPORA[corpus]], embedder=embedder)
        a = open_assistant(settings, embedder=embedder)
        floor = a.floors().relevance
        for file in (f for c, f in SOURCES if c == corpus):
            for q in (q for q in load_questions(SETS / file) if q.type == "list" and q.gold):
                route = a.route(q.question, (), llm="extractive", model=None, summary=None)
                hits = a.retrieve(route, None, None)
                deep = {h.paper.id for h in a.retriever.search(route.standalone, DEEP)}
                question = route.analysed
                scored = a.extractive._scored(question, hits, contribution=True)
                mine = restricted(question, hits)
                scored = [c for c in scored if c.n in mine] or scored if mine else scored
                best, papers = candidates(scored, hits)
                ids = [hits[n - 1].paper.id for n in best]
                gold = set(q.gold or ())
                meta = {"corpus": corpus, "file": file, "qid": q.id, "list": question.wants("list"),
                        "gold_total": len(gold), "gold_missed": sorted(gold - {h.paper.id for h in hits}),
                        "gold_missed_deep": sorted(gold - deep), "list_k": assistant_module.LIST_K}  # fmt: skip
                for pid, p, feats in zip(ids, papers, features(question.text, papers, floor), strict=True):
                    rows.append({**meta, "paper": pid, "gold": pid in gold, "cosine": p.cosine, "floor": floor,
                                 "features": feats})  # fmt: skip
                if not ids:
                    rows.append({**meta, "paper": None, "gold": False, "features": None})
        a.close()
    return rows


# -- the model -----------------------------------------------------------------------------------------------------
def fit(x: np.ndarray, y: np.ndarray, l2: float = L2) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Standardised L2 logistic regression by Newton's method (`l2`: ridge penalty): (mean, scale, weights, bias)."""
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    w = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], l2)
    penalty[-1] = 0.0  # the bias is not shrunk
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-z @ w))
        grad = z.T @ (p - y) + penalty * w
        hess = (z.T * (p * (1 - p))) @ z + np.diag(penalty)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return mean, scale, w[:-1], float(w[-1])


def predict(model: tuple[np.ndarray, np.ndarray, np.ndarray, float], x: np.ndarray) -> np.ndarray:
    mean, scale, w, b = model
    return 1.0 / (1.0 + np.exp(-(((x - mean) / scale) @ w + b)))


def matrix(rows: Sequence[Row]) -> tuple[np.ndarray, np.ndarray]:
    x = np.array([[r["features"][f] for f in FEATURES] for r in rows], dtype=float)
    return x, np.array([float(r["gold"]) for r in rows])


def old_rule(r: Row) -> bool:
    """The former hand-set rule (0.6 of the best sentence, 0.5 of the best cosine and the floor, 0.6 of the fused)."""
    f = r["features"]
    top = r["cosine"] / f["cos_rel"] if f["cos_rel"] else r["cosine"]
    least = max(min(r["floor"], top), 0.5 * top)
    near = f["fused_rel"] >= 0.6 or f["sentence_rel"] >= 1.0
    return f["sentence_rel"] >= 0.6 and r["cosine"] >= least - 1e-12 and near


# -- scoring: per question, with the answer's fallback (nothing kept: the best sentence's paper) ----------------------
def questions(rows: Sequence[Row]) -> dict[str, list[Row]]:
    out: dict[str, list[Row]] = {}
    for r in rows:
        out.setdefault(f"{r['corpus']}/{r['qid']}", []).append(r)
    return out


def named(group: Sequence[Row], chosen: Sequence[bool]) -> list[Row]:
    papers = [r for r in group if r["paper"] is not None]
    kept = [r for r, c in zip(papers, chosen, strict=True) if c]
    if not kept and papers:
        above = [r for r in papers if r["features"]["above_floor"] >= 0 or r["features"]["cos_rel"] >= 1]
        kept = sorted(above, key=lambda r: -r["features"]["sentence_rel"])[:1]
    return kept


def score(groups: dict[str, list[Row]], decide: dict[str, list[bool]]) -> dict[str, Any]:
    """Mean per-question recall of the gold papers (over all gold, retrieved or not), pooled precision, F2."""
    recalls, hit, listed, gold = [], 0, 0, 0
    for key, group in groups.items():
        kept = named(group, decide[key])
        good = sum(r["gold"] for r in kept)
        total = group[0]["gold_total"]
        recalls.append(good / total if total else 0.0)
        hit, listed, gold = hit + good, listed + len(kept), gold + total
    rec = float(np.mean(recalls)) if recalls else 0.0
    prec = hit / listed if listed else 0.0
    f = (1 + BETA**2) * prec * rec / (BETA**2 * prec + rec) if prec + rec else 0.0
    return {"questions": len(groups), "gold_named": hit, "gold_total": gold, "named": listed,
            "recall": round(rec, 3), "precision": round(prec, 3), "f2": round(f, 3)}  # fmt: skip


def loqo(groups: dict[str, list[Row]]) -> dict[str, np.ndarray]:
    """Each question's probabilities from a model fitted on every other question."""
    out = {}
    for key, group in groups.items():
        train = [r for k, g in groups.items() if k != key for r in g if r["paper"] is not None]
        papers = [r for r in group if r["paper"] is not None]
        out[key] = predict(fit(*matrix(train)), matrix(papers)[0]) if papers else np.zeros(0)
    return out


def best_threshold(groups: dict[str, list[Row]], probs: dict[str, np.ndarray]) -> float:
    grid = [round(t, 2) for t in np.arange(0.05, 0.8, 0.01)]
    return max(grid, key=lambda t: (score(groups, {k: list(p >= t) for k, p in probs.items()})["f2"], -t))


def report(rows: list[Row]) -> dict[str, Any]:
    groups = questions(rows)
    corpora = dict.fromkeys(r["corpus"] for r in rows)
    by_corpus = {c: {k: g for k, g in groups.items() if g[0]["corpus"] == c} for c in corpora}
    old = {k: [old_rule(r) for r in g if r["paper"] is not None] for k, g in groups.items()}
    probs = loqo(groups)
    threshold = best_threshold(groups, probs)
    out: dict[str, Any] = {"threshold (chosen on pooled leave-one-question-out, F2)": threshold}
    for name, part in {"all": groups, **by_corpus}.items():
        new = {k: list(probs[k] >= threshold) for k in part}
        out[f"leave-one-question-out {name}"] = {"old rule": score(part, {k: old[k] for k in part}),
                                                 "model": score(part, new)}  # fmt: skip
    for train_c, test_c in [(a, b) for a in by_corpus for b in by_corpus if a != b]:
        train_groups = by_corpus[train_c]
        model = fit(*matrix([r for g in train_groups.values() for r in g if r["paper"] is not None]))
        inner = best_threshold(train_groups, loqo(train_groups))  # the threshold from the training corpus alone
        test = by_corpus[test_c]
        p = {k: predict(model, matrix([r for r in g if r["paper"] is not None])[0]) for k, g in test.items()}
        out[f"fit on {train_c}, scored on {test_c}"] = {
            "threshold": inner, "old rule": score(test, {k: old[k] for k in test}),
            "model": score(test, {k: list(v >= inner) for k, v in p.items()})}  # fmt: skip
    firsts = [g[0] for g in groups.values()]
    out["retrieval"] = {"gold papers": sum(r["gold_total"] for r in firsts),
                        f"not retrieved at LIST_K={firsts[0]['list_k']}": sum(len(r["gold_missed"]) for r in firsts),
                        f"not in the top {DEEP}": sum(len(r["gold_missed_deep"]) for r in firsts),
                        "not read as a list question": sum(not r["list"] for r in firsts)}  # fmt: skip
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.list_fit", description=__doc__.split("\n")[0])
    parser.add_argument("--home", default="/tmp/rag-list-fit", help="data directory for the fit's two indexes")
    parser.add_argument("--rows", default="/tmp/rag-list-fit/rows.json", help="cache of the per-paper rows")
    parser.add_argument("--refresh", action="store_true", help="ask the questions again even when --rows exists")
    parser.add_argument("--list-k", type=int, help="retrieval depth of list questions to try (default: LIST_K)")
    parser.add_argument("--write", action="store_true", help=f"store the model in {MODEL}")
    args = parser.parse_args(argv)
    cache = Path(args.rows)
    if cache.exists() and not args.refresh:
        rows = json.loads(cache.read_text())
    else:
        rows = collect(Path(args.home), args.list_k)
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(rows))
    figures = report(rows)
    print(json.dumps(figures, indent=1))
    if args.write:
        train = [r for r in rows if r["paper"] is not None]
        mean, scale, w, b = fit(*matrix(train))
        groups = questions(rows)
        manifest = [{"file": f"eval/sets/{f}", "sha256": sha256(SETS / f),
                     "list_questions": sum(1 for k in groups if k.split("/", 1)[1] in
                                           {q.id for q in load_questions(SETS / f)} and k.startswith(c))}
                    for c, f in SOURCES]  # fmt: skip
        MODEL.write_text(json.dumps({
            "what": "a retrieved paper is named in a 'which papers ...' list when P(gold) >= threshold",
            "features": list(FEATURES), "mean": mean.round(6).tolist(), "scale": scale.round(6).tolist(),
            "weights": w.round(6).tolist(), "bias": round(b, 6),
            "threshold": figures["threshold (chosen on pooled leave-one-question-out, F2)"],
            "fit": {"method": "L2 logistic regression, Newton", "l2": L2, "seed": SEED, "rows": len(train),
                    "gold_rows": int(sum(r["gold"] for r in train)), "data": manifest,
                    "command": "python -m eval.list_fit --write"},
            "figures": figures,
        }, indent=1) + "\n")  # fmt: skip
        print(f"wrote {MODEL}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
