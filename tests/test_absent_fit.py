"""The absent-detail model's offline fit (eval/absent_fit.py): the threshold keeps false abstention within its
limit counting every refusal, the scores count refusals made without the model, and the stored model's manifest
(dev files only, the features the answer computes)."""

from __future__ import annotations

import json

from eval.absent_fit import MAX_FALSE_ABSTENTION, choose_threshold, loqo, score
from rag.answer.absent_model import FEATURES, MODEL, eligible, model_from
from rag.answer.question import analyse


def _row(qid: str, refuse: bool, signal: float, refused: bool = False) -> dict:
    feats = dict.fromkeys(FEATURES, 0.0) | {"thing_in_paper": 1.0 - signal, "sentence_above_floor": 0.5 - signal}
    return {"corpus": "c", "file": "f", "qid": qid, "refuse": refuse, "refused": refused, "eligible": True,
            "features": feats}  # fmt: skip


def test_leave_one_out_scores_a_clear_signal_and_the_threshold_refuses_no_more_answerable_than_allowed():
    rows = [_row(f"u{i}", True, 0.8 + i / 100) for i in range(6)] + [_row(f"a{i}", False, i / 100) for i in range(30)]
    rows.append(_row("a-hard", False, 0.6))  # an answerable question closer to the unanswerable ones
    probs = loqo(rows)
    assert min(probs[f"f/u{i}"] for i in range(6)) > max(probs[f"f/a{i}"] for i in range(30))
    t = choose_threshold(rows, probs)
    result = score(rows, probs, t)
    negatives = [r for r in rows if not r["refuse"]]
    assert int(result["answerable refused"].split("/")[0]) <= MAX_FALSE_ABSTENTION * len(negatives)
    assert result["unanswerable_close refused"] == "6/6"


def test_a_refusal_made_without_the_model_counts_against_false_abstention():
    rows = [_row("u", True, 0.9), _row("a", False, 0.0, refused=True)]
    assert score(rows, None, 0.5) == {"unanswerable_close refused": "0/1", "refusal": 0.0,
                                      "answerable refused": "1/1", "false abstention": 1.0}  # fmt: skip


def test_the_model_decides_only_questions_asking_one_thing():
    assert eligible(analyse("Which optimizer was used to pre-train BERT?"))
    assert not eligible(analyse("Which papers use an optimizer?"))  # a list
    assert not eligible(analyse("Why does BERT use masked language modelling?"))


def test_the_stored_model_is_fitted_on_dev_files_of_both_corpora_with_the_answers_features():
    stored = json.loads(MODEL.read_text(encoding="utf-8"))
    assert tuple(stored["features"]) == FEATURES and 0 < stored["threshold"] < 1
    files = [d["file"] for d in stored["fit"]["data"]]
    assert not any("heldout" in f or "retired" in f for f in files)
    assert {f.split("/")[2] for f in files} == {"icml2025", "arxiv"}
    assert all(d["questions"] for d in stored["fit"]["data"])
    assert model_from(stored).threshold == stored["threshold"]
