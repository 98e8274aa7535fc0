"""Score fusion and the evidence stage, on hand-made scores (the end-to-end behaviour is in test_retriever.py)."""

import numpy as np
import pytest

from rag.retrieve import evidence, fusion


def test_a_first_place_only_one_retriever_lists_is_kept_near_the_top():
    """Dense ranks `a` first by a wide margin; BM25 does not match it at all; five chunks both rank in the middle.
    Reciprocal rank fusion put `a` below all five."""
    ids = ["a", "b", "c", "d", "e", "f"]
    dense = np.array([0.80, 0.58, 0.57, 0.55, 0.50, 0.45])
    bm25 = np.array([0.0, 7.0, 7.2, 6.9, 7.1, 7.0])
    order, fused = fusion.fuse(ids, dense, bm25)
    assert order.index("a") > fusion.KEEP_RANK  # the weighted sum alone loses it
    firsts = [fusion.confident_first(dict(zip(ids, fusion.scale_dense(dense).tolist(), strict=True)))]
    assert firsts == ["a"]
    order = fusion.keep_confident(order, fused, firsts)
    assert order.index("a") <= fusion.KEEP_RANK
    assert [fused[c] for c in order] == sorted(fused.values(), reverse=True)
    assert max(fused.values()) == 1.0


def test_a_chunk_both_retrievers_rank_high_beats_one_only_one_ranks_high():
    ids = ["both", "dense-only", "bm25-only", "neither"]
    dense = np.array([0.70, 0.72, 0.40, 0.40])
    bm25 = np.array([9.0, 1.0, 10.0, 1.0])
    order, _ = fusion.fuse(ids, dense, bm25)
    assert order[0] == "both" and order[-1] == "neither"


def test_a_first_place_is_confident_when_its_paper_leads_the_next_paper():
    lead = fusion.CONFIDENT_LEAD
    assert fusion.confident_first({"p:0": 1.0, "q:0": 1.0 - lead / 2, "r:0": 0.2}) is None
    assert fusion.confident_first({"p:0": 1.0, "q:0": 1.0 - 1.5 * lead, "r:0": 0.2}) == "p:0"
    # the paper's own second chunk is not a rival: the next paper is
    assert fusion.confident_first({"p:0": 1.0, "p:1": 0.99, "q:0": 1.0 - 1.5 * lead}) == "p:0"
    assert fusion.confident_first({"p:0": 0.0, "q:0": 0.0}) is None  # BM25 matched nothing


def test_scaling_maps_the_floor_to_zero_and_the_best_to_one():
    assert fusion.scale_dense(np.array([0.3, 0.5, 0.7])).tolist() == pytest.approx([0.0, 0.5, 1.0])
    assert fusion.scale_dense(np.array([0.5, 0.7]), 0.3).tolist() == pytest.approx([0.5, 1.0])
    assert fusion.scale_lexical(np.array([0.0, 2.0, 4.0])).tolist() == [0.0, 0.5, 1.0]
    assert fusion.scale_lexical(np.zeros(2)).tolist() == [0.0, 0.0]


def _unit(v: list[float]) -> np.ndarray:
    a = np.asarray(v, dtype=np.float32)
    return a / np.linalg.norm(a)


def test_the_evidence_stage_lifts_the_chunk_whose_best_sentence_answers():
    query = _unit([1, 0, 0])
    sentences = {
        "x": np.stack([_unit([0, 1, 0]), _unit([0, 0, 1])]),  # on topic overall, no sentence says it
        "y": np.stack([_unit([0, 1, 0]), _unit([1, 0.1, 0])]),  # one sentence says it
        "z": np.stack([_unit([0, 0, 1])]),
    }
    fused = {"x": 1.0, "y": 0.9, "z": 0.5}
    order = evidence.rescore(["x", "y", "z"], fused, lambda ids: np.array([(sentences[c] @ query).max() for c in ids]))
    assert order[0] == "y"
    assert [fused[c] for c in order] == sorted(fused.values(), reverse=True)


def test_the_evidence_stage_is_skipped_when_a_candidate_has_no_sentence_vectors():
    fused = {"x": 1.0, "y": 0.9}
    assert evidence.rescore(["x", "y"], fused, lambda ids: None) == ["x", "y"]  # an index built without them
    assert fused == {"x": 1.0, "y": 0.9}


def test_a_paper_is_shown_with_its_chunk_whose_sentence_answers_best():
    """p:4 (a body page) outranks p:0 (the abstract) on the fused score, but p:0 holds the sentence that answers:
    the paper keeps p:4's place and is shown with p:0."""
    fused = {"p:4": 1.0, "p:0": 0.95, "q:0": 0.9}
    best = {"p:4": 0.58, "p:0": 0.62, "q:0": 0.2}
    order = evidence.rescore(["p:4", "p:0", "q:0"], fused, lambda ids: np.array([best[c] for c in ids]))
    assert order == ["p:0", "p:4", "q:0"]
    assert [fused[c] for c in order] == sorted(fused.values(), reverse=True)
