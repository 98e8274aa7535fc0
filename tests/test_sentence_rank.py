"""The learned sentence score (rag.answer.sentence_rank, fitted by eval/sentence_fit.py): the fit finds the feature
that tells the answering sentence apart, its floor refuses no more answerable dev questions than the hand-set
score's did, the stored model is fitted on dev files of both corpora (and the dev PDF sets, each PDF by its SHA-256)
and beat the hand-set score left out one file at a time, and the answer path scores with it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from eval.sentence_fit import HAND_FLOOR, calibrated_floor, first_right, fit, learned
from rag.answer.question import analyse
from rag.answer.sentence_rank import FEATURES, MODEL, Sentence, features, model_from, stored
from rag.answer.sentence_scores import hand_score


def _group(qid: str, informative: list[float], answer: int, answerable: bool = True) -> dict:
    """A question whose sentences differ in `overlap` (informative) and in noise elsewhere."""
    rng = np.random.default_rng(len(qid))
    x = []
    for value in informative:
        row = dict.fromkeys(FEATURES, 0.0) | {"overlap": value, "similarity": float(rng.uniform(0.2, 0.6))}
        x.append([row[f] for f in FEATURES])
    return {"file": qid[0], "qid": qid, "y": [i == answer for i in range(len(informative))], "x": x,
            "hand": [row[FEATURES.index("similarity")] for row in x], "answerable": answerable}  # fmt: skip


def test_the_fit_ranks_first_the_sentence_a_telling_feature_points_at():
    groups = [_group(f"{f}{i}", [0.1, 0.2, 0.9, 0.3], answer=2) for f in "ab" for i in range(6)]
    model = fit(groups)
    assert all(first_right(learned(model, g), g["y"]) == 0 for g in groups)
    assert all(first_right(np.asarray(g["hand"]), g["y"]) >= 0 for g in groups)  # the hand-set score: any rank


def test_the_floor_refuses_no_more_answerable_questions_than_the_hand_set_score_did():
    groups = [_group(f"a{i}", [0.5], answer=0) for i in range(10)] + [_group("u", [0.5], answer=-1, answerable=False)]
    for g, hand in zip(groups, [0.2, 0.3, *[0.6] * 9], strict=True):
        g["hand"] = [hand]  # the hand-set score refused two answerable questions (below HAND_FLOOR)
    learned_best = {g["qid"]: b for g, b in zip(groups, [0.10, 0.12, 0.15, *[0.5] * 8], strict=True)}
    floor, figures = calibrated_floor(groups, lambda g: learned_best[g["qid"]])
    assert floor == 0.15 and figures["answerable refused"] == {"hand-set": "2/10", "learned": "2/10"}  # a third at 0.16
    assert 0 < HAND_FLOOR < 1


def test_the_stored_model_is_fitted_on_dev_files_of_both_corpora_and_beat_the_hand_set_score():
    obj = json.loads(MODEL.read_text(encoding="utf-8"))
    assert tuple(obj["features"]) == FEATURES and len(obj["coefficients"]) == len(FEATURES)
    files = [d["file"] for d in obj["fit"]["data"]]
    assert not any("heldout" in f for f in files)
    assert {f.split("/")[2] for f in files if f.startswith("eval/")} == {"icml2025", "arxiv"}
    pdf_sets = [d for d in obj["fit"]["data"] if d["file"].startswith("bench/")]  # the dev PDFs, each by its SHA-256
    assert all(d["file"].startswith("bench/pdf_dev") and d["pdfs"] for d in pdf_sets)
    out = obj["figures"]["leave one file out"]
    assert out["learned"]["top1"] > out["hand-set"]["top1"] and out["learned"]["mrr"] > out["hand-set"]["mrr"]
    assert 0 < obj["min_score"] < 1 and model_from(obj) == stored()


def test_a_stored_model_with_other_features_is_refused_in_one_line():
    obj = json.loads(MODEL.read_text(encoding="utf-8")) | {"features": ["similarity"]}
    with pytest.raises(ValueError, match="rerun make fit-sentences"):
        model_from(obj)


def _sentence(text: str, similarity: float, overlap: float, role: str = "method", position: int = 2) -> Sentence:
    return Sentence(text, similarity, overlap, overlap, 0.5, role, False, position, 6)


def test_the_learned_score_prefers_the_sentence_that_states_the_number_a_count_question_asks_for():
    q = analyse("How many wells does the Alberta dataset contain?")
    stating = _sentence("The dataset comprises over 213,000 wells from Alberta.", 0.55, 0.5)
    restating = _sentence("Wells are hard to find from satellite images of the dataset.", 0.60, 0.5)
    model = stored()
    score = lambda s: model.score(features(q, s, False, hand_score(q, s, False)))  # noqa: E731
    assert score(stating) > score(restating)
    assert hand_score(q, restating, False) > hand_score(q, stating, False)  # the hand-set score had it the other way
