"""Fit the list model (rag.answer.list_keep) on the dev list questions of both corpora and report how it holds up.

    python -m eval.list_fit [--home DIR] [--rows FILE] [--write]

Every "which papers ..." question of the dev files in SOURCES is asked the way the extractive answer asks it (route,
retrieve, score sentences): the lists with their gold papers, and those no paper answers (gold []). Each retrieved
paper becomes one row: its FEATURES and whether it is gold; each question keeps whether retrieval refused it before
any list and its `coverage` (rag.answer.list_keep). The rows are cached in --rows (re-fitting then needs no model).

Two things are fitted: the paper model, on the papers of the list questions of SOURCES (L2 logistic regression), and the
off-topic cut on `coverage`, the highest that refuses at most MAX_FALSE_REFUSAL of the answerable questions; the
frame words left out of `coverage` are learned from the dev questions of both corpora (eval.list_frame). Reported, with
denominators: leave-one-question-out and cross-corpus (fit on one library's questions, score the other's) recall and
precision of the gold papers named and the no-answer questions refused, for the model with and without the cut and
for the former hand-set rule; the cut calibrated leaving each file out; how many gold papers retrieval never brought
in (at LIST_K and deeper). --write stores the model fitted on every row, with its threshold, cut, frame words, the
data manifest (files, SHA-256, counts) and these figures, in rag/models/list_keep.json. Held-out files are never read.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from eval.list_frame import FRAME_RULE, frame_files, frame_words
from eval.questions import load_questions
from eval.suites import CORPORA, SETS
from rag.answer.list_keep import FEATURES, MODEL

# (corpus, dev file under eval/sets): every list question of these (type "list", with its gold papers) trains the paper
# model. The off-topic cut is calibrated on every question the list answer sees: those, and any question of any dev
# file of both corpora (frame_files) that the answer reads as a list ("is there research on ...", "which papers ...
# that no paper answers", gold [])
SOURCES = (
    ("icml2025", "icml2025/dev_kinds.jsonl"),
    ("icml2025", "icml2025/dev_library3.jsonl"),
    ("icml2025", "icml2025/dev_lists.jsonl"),
    ("icml2025", "icml2025/dev_retrieval.jsonl"),
    ("arxiv", "arxiv/dev_lists.jsonl"),
    ("icml2025", "icml2025/dev_lists2.jsonl"),
    ("arxiv", "arxiv/dev_lists2.jsonl"),
)
SEED = 0  # nothing is random (Newton's method from zero); kept in the manifest for the record
L2 = 1.0  # ridge penalty on the standardised weights
BETA = 2.0  # F-beta of the threshold: recall counts twice as much as precision
MAX_FALSE_REFUSAL = 0.05  # the off-topic cut may refuse at most this share of the answerable list questions
DEEP = 30  # how deep retrieval is looked at for gold papers LIST_K misses

Row = dict[str, Any]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def all_files() -> list[tuple[str, str]]:
    """(corpus, file) of every dev file the fit asks questions of: SOURCES, then the other dev files of both corpora."""
    return list(dict.fromkeys([*SOURCES, *frame_files()]))


def collect(home: Path, list_k: int | None = None, frame: Sequence[str] = ()) -> list[Row]:
    """One row per retrieved paper of every dev list question (the answer path's own features, the question's
    `coverage` without the `frame` words); `list_k`: try another retrieval depth for list questions than
    rag.answer.assistant.LIST_K."""
    from rag.answer import assistant as assistant_module
    from rag.answer.abstain import retrieval_refusal
    from rag.answer.library import restricted
    from rag.answer.list_keep import GRAMMAR_WORDS, coverage, features
    from rag.answer.paper_lines import candidates
    from rag.factory import build_index, lazy_embedder, open_assistant
    from rag.settings import load_settings

    if list_k is not None:
        assistant_module.LIST_K = list_k
    rows: list[Row] = []
    framing = GRAMMAR_WORDS | frozenset(frame)
    base = load_settings(home=str(home), llm="extractive")
    embedder = lazy_embedder(base)
    files = all_files()
    for corpus in dict.fromkeys(c for c, _ in files):
        settings = base.replace(collection=f"fit-{corpus}")
        build_index(settings, [CORPORA[corpus]], embedder=embedder)
        a = open_assistant(settings, embedder=embedder)
        floor = a.floors().relevance
        for file in (f for c, f in files if c == corpus):
            for q in load_questions(SETS / file):
                route = a.route(q.question, (), llm="extractive", model=None, summary=None)
                typed = q.type == "list" and bool(q.gold) and (corpus, file) in SOURCES
                if not (typed or route.analysed.wants("list") and (q.gold or q.type == "unanswerable")):
                    continue
                hits = a.retrieve(route, None, None)
                agree = partial(a.retrievers_agree, route.standalone, None)
                refused = retrieval_refusal(route.analysed, hits, a.floors(), agree) is not None
                deep = {h.paper.id for h in a.retriever.search(route.standalone, DEEP)}
                question = route.analysed
                scored = a.extractive._scored(question, hits, contribution=True)
                mine = restricted(question, hits)
                scored = [c for c in scored if c.n in mine] or scored if mine else scored
                best, papers = candidates(scored, hits)
                ids = [hits[n - 1].paper.id for n in best]
                gold = set(q.gold or ())
                meta = {"corpus": corpus, "file": file, "qid": q.id, "list": question.wants("list"), "refused": refused,
                        "typed": typed, "restricted": bool(mine),
                        "coverage": coverage(question.text, papers, framing),
                        "gold_total": len(gold), "gold_missed": sorted(gold - {h.paper.id for h in hits}),
                        "gold_missed_deep": sorted(gold - deep), "list_k": assistant_module.LIST_K}  # fmt: skip
                if refused or not ids:  # refused before any list is made, or nothing to list: the question alone
                    rows.append({**meta, "paper": None, "gold": False, "features": None})
                    continue
                for pid, p, feats in zip(ids, papers, features(question.text, papers, floor), strict=True):
                    rows.append({**meta, "paper": pid, "gold": pid in gold, "cosine": p.cosine, "floor": floor,
                                 "features": feats})  # fmt: skip
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


def probabilities(model: tuple[np.ndarray, np.ndarray, np.ndarray, float], group: Sequence[Row]) -> np.ndarray:
    """The model's probability for each paper of one question (none when it was refused before any list)."""
    papers = [r for r in group if r["paper"] is not None]
    return predict(model, matrix(papers)[0]) if papers else np.zeros(0)


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
FALLBACK = "floor"  # nothing kept: "best" names the best sentence's paper at or above the floor or the best cosine,
# "floor" only at or above the floor (an off-topic question that passed retrieval is refused), "none" never


def questions(rows: Sequence[Row]) -> dict[str, list[Row]]:
    out: dict[str, list[Row]] = {}
    for r in rows:
        out.setdefault(f"{r['corpus']}/{r['qid']}", []).append(r)
    return out


def question_coverage(group: Sequence[Row]) -> float:
    """The question's coverage (rag.answer.list_keep.coverage); 1 where the cut never refuses: a question whose
    author, year or venue already chose the papers, or without a topic word."""
    covered = group[0].get("coverage")
    return 1.0 if group[0].get("restricted") or covered is None else float(covered)


def coverage_cut(groups: dict[str, list[Row]]) -> float:
    """The highest cut (0.00, 0.01, ...) on `coverage` below which a list question is refused as off-topic that
    refuses at most MAX_FALSE_REFUSAL of the answerable list questions that reach the list (not refused before)."""
    reached = [question_coverage(g) for g in groups.values() if g[0]["gold_total"] and g[0]["paper"] is not None]
    grid = [round(t, 2) for t in np.arange(0.0, 0.6, 0.01)]
    return max(t for t in grid if sum(c < t for c in reached) <= MAX_FALSE_REFUSAL * len(reached))


def named(group: Sequence[Row], chosen: Sequence[bool], fallback: str | None = None, cut: float = 0.0) -> list[Row]:
    fallback = fallback or FALLBACK
    papers = [r for r in group if r["paper"] is not None]
    if papers and question_coverage(group) < cut:  # no paper holds enough of the question's words: refused as off-topic
        return []
    kept = [r for r, c in zip(papers, chosen, strict=True) if c]
    if not kept and papers and fallback != "none":
        top = lambda r: fallback == "best" and r["features"]["cos_rel"] >= 1  # noqa: E731
        above = [r for r in papers if r["features"]["above_floor"] >= 0 or top(r)]
        kept = sorted(above, key=lambda r: -r["features"]["sentence_rel"])[:1]
    return kept


def score(
    groups: dict[str, list[Row]], decide: dict[str, list[bool]], fallback: str | None = None, cut: float = 0.0
) -> dict[str, Any]:
    """Over the answerable questions: mean per-question recall of the gold papers (over all gold, retrieved or not),
    precision pooled with the papers named for questions no paper answers, F2; over those: the share refused
    (nothing named, before or by the list); `objective`: the two weighted by their questions, what the threshold
    maximises."""
    recalls, hit, listed, gold, off, refused = [], 0, 0, 0, 0, 0
    for key, group in groups.items():
        kept = named(group, decide[key], fallback, cut)
        good = sum(r["gold"] for r in kept)
        total = group[0]["gold_total"]
        hit, listed, gold = hit + good, listed + len(kept), gold + total
        if total:
            recalls.append(good / total)
        else:
            off, refused = off + 1, refused + (not kept)
    rec = float(np.mean(recalls)) if recalls else 0.0
    prec = hit / listed if listed else 0.0
    f = (1 + BETA**2) * prec * rec / (BETA**2 * prec + rec) if prec + rec else 0.0
    objective = (len(recalls) * f + refused) / (len(recalls) + off) if recalls or off else 0.0
    return {"questions": len(recalls), "gold_named": hit, "gold_total": gold, "named": listed,
            "recall": round(rec, 3), "precision": round(prec, 3), "f2": round(f, 3),
            "no-answer questions refused": f"{refused}/{off}", "objective": round(objective, 3)}  # fmt: skip


def training(rows: Sequence[Row]) -> list[Row]:
    """The rows the paper model learns from: the papers of the list questions of SOURCES. A question no paper
    answers is the cut's to refuse; its papers, all wrong for a reason no paper feature sees (the topic is not in
    the library), would only blur which papers of an answerable question qualify."""
    return [r for r in rows if r["paper"] is not None and r["gold_total"] and r["typed"]]


def loqo(groups: dict[str, list[Row]]) -> dict[str, np.ndarray]:
    """Each question's probabilities from a model fitted on every other question."""
    out = {}
    for key, group in groups.items():
        train = training([r for k, g in groups.items() if k != key for r in g])
        out[key] = probabilities(fit(*matrix(train)), group)
    return out


def best_threshold(groups: dict[str, list[Row]], probs: dict[str, np.ndarray], cut: float = 0.0) -> float:
    grid = [round(t, 2) for t in np.arange(0.05, 0.8, 0.01)]
    objective = lambda t: score(groups, {k: list(p >= t) for k, p in probs.items()}, cut=cut)["objective"]  # noqa: E731
    return max(grid, key=lambda t: (objective(t), -t))


def cut_by_file(groups: dict[str, list[Row]]) -> dict[str, str]:
    """How the cut carries to wordings it was not calibrated on: each dev file's list questions refused by the cut
    calibrated on the other files (answerable ones wrongly, no-answer ones rightly), of those that reach the list."""
    out, wrong, right, answerable, off = {}, 0, 0, 0, 0
    for file in sorted({g[0]["file"] for g in groups.values()}):
        cut = coverage_cut({k: g for k, g in groups.items() if g[0]["file"] != file})
        reach = [g for g in groups.values() if g[0]["file"] == file and g[0]["paper"] is not None]
        refused = [g for g in reach if question_coverage(g) < cut]
        n_ans, w = sum(1 for g in reach if g[0]["gold_total"]), sum(1 for g in refused if g[0]["gold_total"])
        r, n_off = len(refused) - w, len(reach) - n_ans
        out[file] = f"cut {cut:.2f}: answerable refused {w}/{n_ans}, no-answer refused {r}/{n_off}"
        wrong, right, answerable, off = wrong + w, right + r, answerable + n_ans, off + n_off
    out["all"] = f"answerable refused {wrong}/{answerable}, no-answer refused {right}/{off}"
    return out


THRESHOLD = "threshold (chosen on pooled leave-one-question-out, objective)"
CUT = f"off-topic cut (coverage; at most {MAX_FALSE_REFUSAL:.0%} of answerable list questions refused)"


def report(rows: list[Row]) -> dict[str, Any]:
    groups = questions(rows)
    corpora = dict.fromkeys(r["corpus"] for r in rows)
    by_corpus = {c: {k: g for k, g in groups.items() if g[0]["corpus"] == c} for c in corpora}
    old = {k: [old_rule(r) for r in g if r["paper"] is not None] for k, g in groups.items()}
    probs = loqo(groups)
    cut = coverage_cut(groups)
    threshold = best_threshold(groups, probs, cut)
    out: dict[str, Any] = {THRESHOLD: threshold, CUT: cut}
    for name, part in {"all": groups, **by_corpus}.items():
        new = {k: list(probs[k] >= threshold) for k in part}
        out[f"leave-one-question-out {name}"] = {
            "old rule": score(part, {k: old[k] for k in part}, "best"),
            "model, no off-topic cut": score(part, new), "model": score(part, new, cut=cut)}  # fmt: skip
    every = {k: list(probs[k] >= threshold) for k in groups}
    out["the fallback when nothing is kept (leave-one-question-out all)"] = {
        f: score(groups, every, f, cut) for f in ("best", "floor", "none")}  # fmt: skip
    for train_c, test_c in [(a, b) for a in by_corpus for b in by_corpus if a != b]:
        train_groups = by_corpus[train_c]
        model = fit(*matrix(training([r for g in train_groups.values() for r in g])))
        inner_cut = coverage_cut(train_groups)  # the cut and threshold from the training corpus alone
        inner = best_threshold(train_groups, loqo(train_groups), inner_cut)
        test = by_corpus[test_c]
        p = {k: probabilities(model, g) for k, g in test.items()}
        out[f"fit on {train_c}, scored on {test_c}"] = {
            "threshold": inner, "cut": inner_cut, "old rule": score(test, {k: old[k] for k in test}, "best"),
            "model": score(test, {k: list(v >= inner) for k, v in p.items()}, cut=inner_cut)}  # fmt: skip
    out["the off-topic cut, leave-one-file-out (cut from the other files)"] = cut_by_file(groups)
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
    frame = frame_words()
    cached = json.loads(cache.read_text()) if cache.exists() and not args.refresh else {}
    key = {"frame": frame, "sources": [list(s) for s in all_files()]}
    if isinstance(cached, dict) and all(cached.get(k) == v for k, v in key.items()):  # else asked again
        rows = cached["rows"]
    else:
        rows = collect(Path(args.home), args.list_k, frame)
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps({**key, "rows": rows}))
    figures = report(rows)
    print(json.dumps(figures, indent=1))
    if args.write:
        train = training(rows)
        mean, scale, w, b = fit(*matrix(train))
        groups = questions(rows)
        firsts = [g[0] for g in groups.values()]
        manifest = [{"file": f"eval/sets/{f}", "sha256": sha256(SETS / f),
                     "paper_model_questions": sum(1 for r in firsts if r["file"] == f and r["typed"]),
                     "cut_questions": sum(1 for r in firsts if r["file"] == f)}
                    for _, f in all_files()]  # fmt: skip
        MODEL.write_text(json.dumps({
            "what": "a retrieved paper is named in a 'which papers ...' list when P(gold) >= threshold",
            "features": list(FEATURES), "mean": mean.round(6).tolist(), "scale": scale.round(6).tolist(),
            "weights": w.round(6).tolist(), "bias": round(b, 6),
            "threshold": figures[THRESHOLD], "off_topic_cut": figures[CUT], "frame_words": frame,
            "fit": {"method": "L2 logistic regression, Newton", "l2": L2, "seed": SEED, "rows": len(train),
                    "gold_rows": int(sum(r["gold"] for r in train)), "data": manifest,
                    "frame_words_from": [{"file": f"eval/sets/{f}", "sha256": sha256(SETS / f)}
                                         for _, f in frame_files()],
                    "frame_rule": FRAME_RULE,
                    "command": "python -m eval.list_fit --write"},
            "figures": figures,
        }, indent=1) + "\n")  # fmt: skip
        print(f"wrote {MODEL}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
