"""Fit the sentence score (rag.answer.sentence_rank) on the dev questions of both corpora.

Every dev question with gold papers and expected facts that the single-answer path takes (not a list, comparison,
summary, metadata or multi-part question) is retrieved as `rag ask` would; each quotable sentence of its sources
is a row (rag.answer.sentence_scores.candidates), labelled 1 when it is a gold paper's and holds one of the expected
facts. Questions with no such sentence among the retrieved ones carry no signal and are left out.

The model is a conditional logit (softmax over each question's sentences, L2 penalty, Newton's method with a
backtracking line search from zero: deterministic), on standardised features. Its score is then put on the scale of
the hand-set score it replaces (rag.answer.sentence_scores.hand_score): the same spread within a question and the
same mean, so the floors downstream keep their meaning. The report compares, with each dev file left
out of the fit in turn, how often the best sentence holds the answer (top 1, top 3, MRR) under the hand-set score and
the learned one.

    python -m eval.sentence_fit [--l2 X] [--write]      (make fit-sentences)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from eval.list_fit import all_files
from eval.metrics import _item_found, normalize_text
from eval.questions import load_questions
from eval.suites import CORPORA, SETS
from rag.answer.sentence_rank import FEATURES, MODEL

L2 = 1.0  # the ridge penalty on every learned term (the hand-set score's weight is not penalised)
SEED = 0  # nothing is random; kept in the manifest for the record
PDF_DEV_SETS = ("dev", "dev2")  # bench/pdf_dev*, read with their full text when their PDFs are here
_NOT_ONE_ANSWER = ("list", "comparison", "summary", "metadata")

Group = dict[str, Any]  # one question: its file, its rows' features, labels and hand-set scores
HAND_FLOOR = 0.35  # rag.answer.extractive's MIN_SCORE on the hand-set score: the learned score's floor refuses no more


def collect(home: Path) -> list[Group]:
    """One group per dev question the single-answer path takes: the eval dev files of both corpora, and the dev PDF
    sets read with their full text (bench/pdf_dev, bench/pdf_dev2: body windows, whose sentences the abstracts'
    questions never reach), when their PDFs are on this machine."""
    from rag.factory import build_index, lazy_embedder, open_assistant
    from rag.settings import load_settings

    base = load_settings(home=str(home), llm="extractive")
    embedder = lazy_embedder(base)
    groups: list[Group] = []
    files = all_files()
    for corpus in dict.fromkeys(c for c, _ in files):
        settings = base.replace(collection=f"fit-{corpus}")
        build_index(settings, [CORPORA[corpus]], embedder=embedder)
        a = open_assistant(settings, embedder=embedder)
        for file in (f for c, f in files if c == corpus):
            for q in load_questions(SETS / file):
                found = lambda text, q=q: any(_item_found(normalize_text(text), i) for i in q.must_include)  # noqa: E731
                groups += _group(a, q.question, tuple(q.gold or ()), found, file, q.id)
        a.close()
    for name, (folder, meta) in pdf_sets().items():
        settings = base.replace(collection=f"fit-{name}", full_text=True)
        build_index(settings, [folder], embedder=embedder, on_error="skip", warn=lambda _: None)
        a = open_assistant(settings, embedder=embedder)
        for line in (meta / "questions.jsonl").read_text(encoding="utf-8").splitlines():
            q = json.loads(line)
            found = lambda text, q=q: all(re.search(i, text, re.IGNORECASE) for i in q["must_include"])  # noqa: E731
            groups += _group(a, q["question"], (q["gold"],), found, f"{meta.name}/questions.jsonl", q["id"])
        a.close()
    return groups


def pdf_sets() -> dict[str, tuple[Path, Path]]:
    """The dev PDF sets whose PDFs are here: name -> (folder of PDFs, folder of questions.jsonl and MANIFEST.md)."""
    from bench.common import pdf_set

    out = {}
    for name in PDF_DEV_SETS:
        folder, meta = pdf_set(name)
        manifest = (meta / "MANIFEST.md").read_text(encoding="utf-8")
        wanted = re.findall(r"^\| *([\w.-]+\.pdf) *\|", manifest, re.MULTILINE)
        if wanted and all((folder / f).exists() for f in wanted):
            out[f"pdf-{name}"] = (folder, meta)
    return out


def _group(a: Any, text: str, gold: tuple[str, ...], holds: Any, file: str, qid: str) -> list[Group]:
    """The question's group (none when the single-answer path does not take it or nothing is quotable)."""
    from rag.answer.sentence_scores import candidates, feature_rows

    route = a.route(text, (), llm="extractive", model=None, summary=None)
    question = route.analysed
    if question.mode != "answer" or any(map(question.wants, _NOT_ONE_ANSWER)) or len(question.parts) > 1:
        return []
    hits = a.retrieve(route, None, None)
    found = candidates(question, hits, a.extractive.vectors)
    if not found:
        return []
    asked = question.wants("contribution")
    labels = [hits[n - 1].paper.id in gold and bool(holds(s.text)) for n, s in found]
    rows = feature_rows(question, [s for _, s in found], asked)
    return [{"file": file, "qid": qid, "y": labels, "answerable": bool(gold),
             "x": [[r[f] for f in FEATURES] for r in rows], "hand": [r["hand"] for r in rows]}]  # fmt: skip


def fit(groups: Sequence[Group], l2: float = L2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mean, scale, weights) of the conditional logit on standardised features (the questions with a sentence
    that holds the answer)."""
    groups = [g for g in groups if any(g["y"])]
    x = np.vstack([np.asarray(g["x"], dtype=float) for g in groups])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    data = []
    for g in groups:
        y = np.asarray(g["y"], dtype=float)
        data.append(((np.asarray(g["x"], dtype=float) - mean) / scale, y / y.sum()))

    penalty = np.array([0.0 if f == "hand" else l2 for f in FEATURES])  # the hand-set score's own weight is free

    def loss(w: np.ndarray) -> float:
        total = 0.5 * float((penalty * w) @ w)
        for z, t in data:
            s = z @ w
            top = s.max()
            total -= float(t @ (s - top - np.log(np.exp(s - top).sum())))
        return total

    w = np.zeros(x.shape[1])
    for _ in range(100):
        grad, hess = penalty * w, np.diag(penalty) + 1e-9 * np.eye(len(w))
        for z, t in data:
            s = z @ w
            p = np.exp(s - s.max())
            p /= p.sum()
            grad = grad - z.T @ (t - p)
            m = z.T @ p
            hess = hess + (z.T * p) @ z - np.outer(m, m)
        step = np.linalg.solve(hess, grad)
        base, rate = loss(w), 1.0
        while loss(w - rate * step) > base and rate > 1e-4:
            rate /= 2
        w = w - rate * step
        if np.abs(rate * step).max() < 1e-8:
            break
    return mean, scale, w


def learned(model: tuple[np.ndarray, np.ndarray, np.ndarray], g: Group) -> np.ndarray:
    mean, scale, w = model
    return ((np.asarray(g["x"], dtype=float) - mean) / scale) @ w


def first_right(scores: np.ndarray, labels: Sequence[bool]) -> int:
    """The rank (0-based) of the first sentence that holds the answer; ties keep the sentences' order."""
    order = np.argsort(-scores, kind="stable")
    return next(rank for rank, i in enumerate(order) if labels[i])


def figures(ranks: Sequence[int]) -> dict[str, float]:
    r = np.asarray(ranks)
    return {"top1": round(float((r == 0).mean()), 3), "top3": round(float((r < 3).mean()), 3),
            "mrr": round(float((1 / (r + 1)).mean()), 3), "questions": len(r)}  # fmt: skip


def report(groups: Sequence[Group], l2: float = L2) -> dict[str, Any]:
    """Each dev file left out of the fit in turn: where the answering sentence ranks, hand-set against learned."""
    hand: list[int] = []
    new: list[int] = []
    by_file: dict[str, dict[str, Any]] = {}
    for file in dict.fromkeys(g["file"] for g in groups):
        model = fit([g for g in groups if g["file"] != file], l2)
        out = [g for g in groups if g["file"] == file and any(g["y"])]
        if not out:
            continue
        h = [first_right(np.asarray(g["hand"]), g["y"]) for g in out]
        n = [first_right(learned(model, g), g["y"]) for g in out]
        hand, new = hand + h, new + n
        by_file[file] = {"hand-set": figures(h), "learned": figures(n)}
    return {"leave one file out": {"hand-set": figures(hand), "learned": figures(new)}, "by file": by_file}


def stored_model(groups: Sequence[Group], l2: float = L2) -> dict[str, Any]:
    """The fit on every dev question, put on the hand-set score's scale: the spread of scores within a question
    matched (the ratios downstream, KEEP_WITHIN and the like, compare sentences of one question), and the mean over
    every sentence."""
    mean, scale, w = fit(groups, l2)
    raw = [np.asarray(g["x"], dtype=float) @ (w / scale) for g in groups]
    hand = [np.asarray(g["hand"], dtype=float) for g in groups]
    within = lambda xs: float(np.concatenate([x - x.mean() for x in xs]).std())  # noqa: E731
    slope = within(hand) / within(raw)
    offset = float(np.concatenate(hand).mean() - slope * np.concatenate(raw).mean())
    coefficients = slope * w / scale
    best = lambda g: float((np.asarray(g["x"], dtype=float) @ coefficients).max() + offset)  # noqa: E731
    floor, fit_figures = calibrated_floor(groups, best)
    return {"coefficients": [round(float(c), 6) for c in coefficients], "offset": round(offset, 6),
            "min_score": floor, "min_score_fit": fit_figures,
            "scale_fit": {"slope": round(slope, 6), "r": round(float(np.corrcoef(np.concatenate(raw),
                                                                                  np.concatenate(hand))[0, 1]), 3)}}


def calibrated_floor(groups: Sequence[Group], best: Any) -> tuple[float, dict[str, Any]]:
    """The highest floor (in hundredths) under which the learned score's best sentence refuses no more answerable
    dev questions than the hand-set score's HAND_FLOOR did; `best(group)`: the learned score's best sentence."""
    answerable = [g for g in groups if g["answerable"]]
    unanswerable = [g for g in groups if not g["answerable"]]
    hand_best = lambda g: float(max(g["hand"]))  # noqa: E731
    refused = lambda rows, cut, top: sum(top(g) < cut for g in rows)  # noqa: E731
    budget = refused(answerable, HAND_FLOOR, hand_best)
    floor = max(c / 100 for c in range(100) if refused(answerable, c / 100, best) <= budget)
    return floor, {
        "rule": f"the highest floor refusing no more answerable dev questions than the hand-set score's {HAND_FLOOR} "
                "(best sentence below it)",
        "answerable refused": {"hand-set": f"{budget}/{len(answerable)}",
                               "learned": f"{refused(answerable, floor, best)}/{len(answerable)}"},
        "unanswerable refused": {"hand-set": f"{refused(unanswerable, HAND_FLOOR, hand_best)}/{len(unanswerable)}",
                                 "learned": f"{refused(unanswerable, floor, best)}/{len(unanswerable)}"},
    }  # fmt: skip


def data_manifest(groups: Sequence[Group]) -> list[dict[str, Any]]:
    """Each question file the fit read: its path, SHA-256 and questions used; a PDF set also the SHA-256 of each PDF
    (where they come from and their licences: the set's MANIFEST.md)."""
    out = []
    for file in dict.fromkeys(g["file"] for g in groups):
        used = sum(g["file"] == file and any(g["y"]) for g in groups)
        if file.startswith("pdf_dev"):
            folder, meta = pdf_sets()[f"pdf-{file.split('/')[0].removeprefix('pdf_')}"]
            pdfs = {p.name: sha256(p) for p in sorted(folder.glob("*.pdf"))}
            out.append({"file": f"bench/{file}", "sha256": sha256(meta / "questions.jsonl"), "questions": used,
                        "pdfs": pdfs, "source": f"bench/{meta.name}/MANIFEST.md"})  # fmt: skip
        else:
            out.append({"file": f"eval/sets/{file}", "sha256": sha256(SETS / file), "questions": used})
    return out


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help=f"store the model in {MODEL}")
    parser.add_argument("--l2", type=float, default=L2, help="ridge penalty on the learned terms")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as home:
        groups = collect(Path(home))
    result = {"what": "the score of a quotable sentence: offset + sum(coefficient * feature)", "features": FEATURES,
              **stored_model(groups, args.l2),
              "fit": {"method": "conditional logit (softmax over each question's sentences), L2, Newton",
                      "l2": args.l2, "seed": SEED, "questions": sum(any(g["y"]) for g in groups),
                      "sentences": sum(len(g["y"]) for g in groups if any(g["y"])),
                      "data": data_manifest(groups),
                      "command": "python -m eval.sentence_fit --write"},
              "figures": report(groups, args.l2)}  # fmt: skip
    print(json.dumps(result["figures"]["leave one file out"], indent=1))
    if args.write:
        MODEL.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        print(f"-> {MODEL}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
