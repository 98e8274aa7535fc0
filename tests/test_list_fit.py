"""The list model's offline fit (eval/list_fit.py): the fit, the scoring with the answer's fallback, and the stored
model's manifest (dev files only, the features the answer computes)."""

from __future__ import annotations

import json

import numpy as np

from eval.list_fit import coverage_cut, fit, named, predict, questions, score
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


def _covering(qid: str, terms: float, total: int = 1, above_floor: float = 0.1, restricted: bool = False) -> dict:
    row = _row(qid, bool(total), 1.0, total)
    row["features"] |= {"above_floor": above_floor}
    return row | {"restricted": restricted, "coverage": terms}


def test_the_off_topic_cut_is_the_highest_that_refuses_at_most_one_in_twenty_answerable_questions():
    answerable = [_covering(f"a{i}", 0.05 + 0.01 * i) for i in range(40)]  # coverage 0.05 ... 0.44
    off_topic = [_covering(f"o{i}", 0.03 * i, total=0) for i in range(10)]
    groups = questions(answerable + off_topic)
    assert coverage_cut(groups) == 0.07  # 2 of 40 answerable refused below it (5 %), a third at 0.08
    result = score(groups, {k: [True] for k in groups}, cut=0.07)
    assert result["no-answer questions refused"] == "3/10" and result["recall"] == 0.95  # 0.00, 0.03, 0.06


def test_a_question_chosen_by_its_metadata_is_never_cut_and_nothing_below_the_floor_is_named_by_the_fallback():
    assert named([_covering("a", 0.0, restricted=True)], [True], cut=0.5)  # "which papers did X write?"
    assert named([_covering("a", 0.0)], [True], cut=0.5) == []
    assert named([_covering("a", 0.9, above_floor=-0.01)], [False], "floor") == []
    assert named([_covering("a", 0.9, above_floor=-0.01)], [False], "best")  # the former fallback: the best paper


def test_the_stored_model_is_fitted_on_dev_files_only_with_the_answers_features():
    stored = json.loads(MODEL.read_text(encoding="utf-8"))
    assert tuple(stored["features"]) == FEATURES and 0 < stored["threshold"] < 1
    files = [d["file"] for d in stored["fit"]["data"]]
    assert files and not any("heldout" in f for f in files)
    assert sum(d["paper_model_questions"] > 0 for d in stored["fit"]["data"]) >= 2  # lists of both corpora
    assert model_from(stored).threshold == stored["threshold"]
    assert model_from(stored).cut == stored["off_topic_cut"] > 0  # the off-topic cut ships with the model
