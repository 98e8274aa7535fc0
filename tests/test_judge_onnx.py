"""The learned judge's runtime (rag/models/judge-minilm-l6-int8.onnx, issue 34): it loads, it is small, and it
gets clear pairs right. The weights are not committed (they do not beat the rules on held-out claims yet:
train/judge/RESULTS.md), so these tests run where `make train-judge` built them and skip elsewhere, saying so."""

from __future__ import annotations

import json

import pytest

from rag.adapters.judge_onnx import JUDGE_PATH, LABELS, OnnxJudge

pytestmark = pytest.mark.skipif(
    not JUDGE_PATH.exists(), reason=f"{JUDGE_PATH.name} is not built here (`make train-judge` builds it, ~45 min)"
)

EVIDENCE = ("The mean time required for in-flight intubation was significantly longer than the time required for "
            "intubation in the control setting.")


@pytest.fixture(scope="module")
def judge() -> OnnxJudge:
    return OnnxJudge(threads=2)


def test_shipped_file_and_metadata() -> None:
    assert JUDGE_PATH.stat().st_size < 25_000_000
    meta = json.loads(JUDGE_PATH.with_suffix(".json").read_text())
    assert tuple(meta["labels"]) == LABELS
    assert meta["max_length"] == 128


def test_a_sentence_supports_itself(judge: OnnxJudge) -> None:
    assert judge.judge(EVIDENCE, EVIDENCE) == "supported"


def test_a_negated_sentence_is_contradicted(judge: OnnxJudge) -> None:
    negated = EVIDENCE.replace("was significantly longer", "was not significantly longer")
    assert judge.judge(negated, EVIDENCE) == "contradicted"


def test_a_reversed_direction_is_contradicted(judge: OnnxJudge) -> None:
    evidence = "Treatment with metformin reduced the incidence of diabetes by 31% compared with placebo."
    claim = "Treatment with metformin increased the incidence of diabetes by 31% compared with placebo."
    assert judge.judge(claim, evidence) == "contradicted"


def test_an_unrelated_sentence_is_not_found(judge: OnnxJudge) -> None:
    claim = "Graph neural networks improve the prediction of molecular properties on large chemistry benchmarks."
    assert judge.judge(claim, EVIDENCE) == "not_found"


def test_batches_keep_order_and_match_single_calls(judge: OnnxJudge) -> None:
    pairs = [(EVIDENCE, EVIDENCE), ("Short claim.", EVIDENCE), (EVIDENCE + " " + EVIDENCE * 5, "Tiny.")]
    batched = judge.probabilities(pairs)
    assert len(batched) == 3
    for pair, probs in zip(pairs, batched, strict=True):
        assert sum(probs) == pytest.approx(1.0, abs=1e-4)
        # Dynamic int8 quantisation scales activations per batch tensor, so the other pairs of a batch move a
        # pair's probabilities by up to ~0.01 (the fp32 export gives identical results padded or alone).
        assert probs == pytest.approx(judge.probabilities([pair])[0], abs=0.03)
    assert judge.probabilities([]) == []


def test_long_evidence_is_truncated_before_the_claim(judge: OnnxJudge) -> None:
    ids, claim_len = judge.encode([(EVIDENCE, "word " * 500)])[0]
    assert len(ids) == 128
    assert claim_len == len(judge.encode([(EVIDENCE, "")])[0][0]) - 1  # the whole claim kept, [CLS] .. [SEP]
