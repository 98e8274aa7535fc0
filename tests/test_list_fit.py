"""The list model's offline fit (eval/list_fit.py): the fit, the scoring with the answer's fallback, and the stored
model's manifest (dev files only, the features the answer computes)."""

from __future__ import annotations

import json

import numpy as np

from eval.list_fit import fit, predict, questions, score
from rag.answer.list_keep import FEATURES, MODEL, model_from


def _row(qid: str, gold: bool, signal: float, total: int = 2) -> dict:
    feats = dict.fromkeys(FEATURES, 0.0) | {"fused_rel": signal, "cos_rel": signal, "above_floor": 0.1}
    return {"corpus": "c", "qid": qid, "paper": f"{qid}-{signal}", "gold": gold, "gold_total": total,
            "features": feats}  # fmt: skip


def test_the_fit_ranks_gold_papers_above_the_others_on_a_signal_that_tells_them_apart():
    rows = [_row("q", True, s) for s in (0.9, 0.8, 0.95)] + [_row("q", False, s) for s in (0.2, 0.3, 0.1)]
    x = np.array([[r["features"][f] for f in FEATURES] for r in rows])
    p = predict(fit(x, np.array([float(r["gold"]) for r in rows])), x)
    assert p[:3].min() > 0.5 > p[3:].max()


def test_scores_count_every_gold_paper_and_a_question_with_nothing_kept_still_names_its_best_paper():
    groups = questions([_row("a", True, 1.0), _row("a", False, 0.5), _row("b", True, 1.0, total=1)])
    result = score(groups, {"c/a": [True, True], "c/b": [False]})  # b: nothing kept, the fallback names its paper
    assert (result["gold_named"], result["gold_total"], result["named"]) == (2, 3, 3)
    assert result["recall"] == 0.75 and result["precision"] == round(2 / 3, 3)


def test_the_stored_model_is_fitted_on_dev_files_only_with_the_answers_features():
    stored = json.loads(MODEL.read_text(encoding="utf-8"))
    assert tuple(stored["features"]) == FEATURES and 0 < stored["threshold"] < 1
    files = [d["file"] for d in stored["fit"]["data"]]
    assert files and not any("heldout" in f for f in files)
    assert all(d["list_questions"] > 0 for d in stored["fit"]["data"])
    assert model_from(stored).threshold == stored["threshold"]
