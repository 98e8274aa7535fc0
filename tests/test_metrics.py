"""Unit tests for eval.metrics and sanity checks of the evaluation data files."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from eval.metrics import (
    abstention_outcome,
    citation_precision,
    citation_recall,
    citation_validity,
    fact_coverage,
    hallucination_hits,
    mean,
    ndcg_at_k,
    normalize_text,
    percentile,
    recall_at_k,
    reciprocal_rank,
    summarize,
)

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "data" / "icml2025.jsonl"
QUESTIONS = ROOT / "eval" / "sets" / "icml2025" / "dev.jsonl"
PARAPHRASES = ROOT / "tests" / "data" / "paraphrases.jsonl"

approx = pytest.approx

# --------------------------------------------------------------------------- retrieval


def test_recall_at_k() -> None:
    retrieved = ["a", "x", "b"]
    gold = {"a", "b"}
    assert recall_at_k(retrieved, gold, 1) == 0.5
    assert recall_at_k(retrieved, gold, 2) == 0.5
    assert recall_at_k(retrieved, gold, 3) == 1.0
    assert recall_at_k(retrieved, gold, 10) == 1.0
    assert recall_at_k([], gold, 5) == 0.0
    assert recall_at_k(["a", "a", "x"], ["a", "b"], 3) == 0.5  # duplicates don't count twice
    assert recall_at_k(["a", "b", "c"], ["c", "d", "e"], 3) == approx(1 / 3)


def test_recall_at_k_edge_cases() -> None:
    assert recall_at_k(["a"], [], 3) is None
    assert recall_at_k(["a"], set(), 1) is None
    with pytest.raises(ValueError):
        recall_at_k(["a"], ["a"], 0)


def test_reciprocal_rank() -> None:
    assert reciprocal_rank(["a", "b"], {"a"}) == 1.0
    assert reciprocal_rank(["x", "a", "b"], {"a", "b"}) == 0.5
    assert reciprocal_rank(["x", "y", "z", "b"], ["b"]) == 0.25
    assert reciprocal_rank(["x", "y"], {"a"}) == 0.0
    assert reciprocal_rank([], {"a"}) == 0.0
    assert reciprocal_rank(["a"], []) is None


def test_ndcg_at_k_brief_example() -> None:
    expected = (1 + 1 / math.log2(4)) / (1 + 1 / math.log2(3))
    assert ndcg_at_k(["a", "x", "b"], {"a", "b"}, 3) == approx(expected)


def test_ndcg_at_k_cases() -> None:
    assert ndcg_at_k(["a", "b", "x"], {"a", "b"}, 3) == approx(1.0)
    assert ndcg_at_k(["x", "y", "z"], {"a"}, 3) == 0.0
    # only the single relevant item at rank 2: (1/log2 3) / 1
    assert ndcg_at_k(["x", "a"], {"a"}, 10) == approx(1 / math.log2(3))
    # ideal DCG over min(k, |gold|): k=1 with three gold ids and a hit at rank 1 is perfect
    assert ndcg_at_k(["a", "x"], {"a", "b", "c"}, 1) == approx(1.0)
    # gold item beyond the cut-off is ignored
    assert ndcg_at_k(["x", "y", "a"], {"a"}, 2) == 0.0
    # a repeated gold id earns gain only once
    assert ndcg_at_k(["a", "a", "b"], {"a", "b"}, 3) == approx((1 + 1 / math.log2(4)) / (1 + 1 / math.log2(3)))
    # three gold, two found at ranks 1 and 3, k=5: ideal has three terms
    ideal = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at_k(["a", "x", "b", "y", "z"], ["a", "b", "c"], 5) == approx((1 + 1 / math.log2(4)) / ideal)


def test_ndcg_at_k_edge_cases() -> None:
    assert ndcg_at_k(["a"], [], 10) is None
    assert ndcg_at_k([], ["a"], 10) == 0.0
    with pytest.raises(ValueError):
        ndcg_at_k(["a"], ["a"], 0)


# --------------------------------------------------------------------------- citations


def test_citation_validity() -> None:
    assert citation_validity(["a", "b"], ["a", "b", "c"]) == 1.0
    assert citation_validity(["a", "z"], ["a", "b"]) == 0.5
    assert citation_validity(["z"], ["a"]) == 0.0
    # duplicates are counted once: distinct cited = {a, b}, a retrieved
    assert citation_validity(["a", "b", "a", "a"], {"a", "c"}) == 0.5
    assert citation_validity([], ["a"]) is None
    assert citation_validity(["a"], []) == 0.0


def test_citation_precision() -> None:
    assert citation_precision(["a", "b"], {"a"}) == 0.5
    assert citation_precision(["a", "a", "x"], {"a"}) == 0.5  # distinct cited {a, x}
    assert citation_precision(["a", "a"], {"a", "b"}) == 1.0
    assert citation_precision(["x", "y", "z"], {"a"}) == 0.0
    assert citation_precision([], {"a"}) is None
    assert citation_precision(["a"], []) is None


def test_citation_recall() -> None:
    assert citation_recall(["a"], {"a", "b"}) == 0.5
    assert citation_recall(["a", "a", "b", "x"], {"a", "b"}) == 1.0
    assert citation_recall(["a", "b", "c"], ["a", "b", "c", "d"]) == 0.75
    assert citation_recall([], {"a"}) == 0.0
    assert citation_recall(["a"], []) is None
    assert citation_recall([], []) is None


# --------------------------------------------------------------------------- answer text


def test_normalize_text() -> None:
    assert normalize_text("  Over 213,000\n  Wells ") == "over 213000 wells"
    assert normalize_text("1,234,567") == "1234567"
    assert normalize_text("a, b and 3, 4") == "a, b and 3, 4"  # only commas between digits go


def test_fact_coverage() -> None:
    answer = "The dataset comprises over 213,000 wells imaged by Planet Labs."
    assert fact_coverage(answer, ["213,000"]) == 1.0
    assert fact_coverage(answer, ["213000"]) == 1.0
    assert fact_coverage("It has 213000 wells", ["213,000"]) == 1.0
    assert fact_coverage(answer, ["213,000|213000", "planet labs"]) == 1.0
    assert fact_coverage(answer, ["213,000", "Alberta Energy Regulator"]) == 0.5
    assert fact_coverage(answer, ["5 million|5,000,000", "Sentinel", "wells"]) == approx(1 / 3)
    # whitespace in the answer or the item is normalised
    assert fact_coverage("PLANET\n   labs", ["Planet  Labs"]) == 1.0
    # alternatives: any one suffices, blank alternatives are ignored
    assert fact_coverage("deeper nets", ["wider|deeper|"]) == 1.0


def test_fact_coverage_edge_cases() -> None:
    assert fact_coverage("anything", []) is None
    assert fact_coverage("anything", ["", " | "]) is None  # only blank items
    assert fact_coverage("", ["x"]) == 0.0
    assert fact_coverage("anything", ["", "any"]) == 1.0  # blank item skipped


def test_hallucination_hits() -> None:
    answer = "The Alberta dataset has 5 million wells, per Google DeepMind."
    assert hallucination_hits(answer, ["5 million", "DeepMind", "PWNED"]) == 2
    assert hallucination_hits(answer, ["5,000,000|5 MILLION"]) == 1
    assert hallucination_hits("It has 5000000 wells", ["5,000,000"]) == 1
    assert hallucination_hits(answer, []) == 0
    assert hallucination_hits(answer, [""]) == 0
    assert hallucination_hits("", ["x"]) == 0


# --------------------------------------------------------------------------- abstention


def test_abstention_outcome() -> None:
    assert abstention_outcome(True, []) == "correct_abstain"
    assert abstention_outcome(True, ["icml2025-00"]) == "false_abstain"
    assert abstention_outcome(False, []) == "missed_abstain"
    assert abstention_outcome(False, {"icml2025-00"}) == "answered"


# --------------------------------------------------------------------------- aggregation


def test_percentile() -> None:
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == approx(2.5)
    assert percentile([4.0, 1.0, 3.0, 2.0], 95) == approx(3.85)  # pos = 3 * 0.95 = 2.85
    assert percentile([4.0, 1.0, 3.0, 2.0], 0) == 1.0
    assert percentile([4.0, 1.0, 3.0, 2.0], 100) == 4.0
    assert percentile([7.0], 95) == 7.0
    assert percentile([1.0, 3.0], 25) == approx(1.5)
    values = [0.3, 1.7, 0.2, 5.5, 2.2, 0.9, 3.1]
    for p in (0, 10, 33.3, 50, 90, 95, 99, 100):
        assert percentile(values, p) == approx(float(np.percentile(values, p)))


def test_percentile_edge_cases() -> None:
    assert percentile([], 50) is None
    with pytest.raises(ValueError):
        percentile([1.0], 101)
    with pytest.raises(ValueError):
        percentile([1.0], -1)


def test_mean() -> None:
    assert mean([1.0, None, 2.0]) == 1.5
    assert mean([0.0, 1.0, 1.0, 0.0]) == 0.5
    assert mean(x for x in [3.0]) == 3.0
    assert mean([None, None]) is None
    assert mean([]) is None
    assert mean([0.0]) == 0.0


# --------------------------------------------------------------------------- summarize


def _synthetic_results() -> list[dict[str, Any]]:
    return [
        {
            "id": "q1",
            "type": "fact",
            "gold": ["A"],
            "retrieved": ["A", "B", "C"],
            "citations": ["A"],
            "answer": "It has 213,000 wells.",
            "abstained": False,
            "unsupported": [],
            "n_sentences": 2,
            "must_include": ["213000"],
            "must_not_include": ["5 million"],
            "latency_s": 1.0,
            "prompt_tokens": 100,
            "completion_tokens": 10,
        },
        {
            "id": "q2",
            "type": "fact",
            "gold": ["A", "B"],
            "retrieved": ["C", "A", "D", "B"],
            "citations": ["A", "E", "E"],
            "answer": "Foo has 5 million.",
            "abstained": False,
            "unsupported": ["Foo has 5 million."],
            "n_sentences": 4,
            "must_include": ["foo", "bar"],
            "must_not_include": ["5 million"],
            "latency_s": 3.0,
            "prompt_tokens": 200,
            "completion_tokens": None,
        },
        {
            "id": "q3",
            "type": "unanswerable",
            "gold": [],
            "retrieved": ["C"],
            "citations": [],
            "answer": "The papers do not say.",
            "abstained": True,
            "unsupported": [],
            "n_sentences": 0,
            "must_include": [],
            "must_not_include": [],
            "latency_s": 2.0,
            "prompt_tokens": 50,
            "completion_tokens": 5,
        },
        {
            "id": "q4",
            "type": "unanswerable",
            "gold": [],
            "retrieved": ["D"],
            "citations": ["D"],
            "answer": "Answered anyway.",
            "abstained": False,
            "unsupported": [],
            "n_sentences": 1,
            "must_include": [],
            "latency_s": 4.0,
            "prompt_tokens": None,
            "completion_tokens": None,
        },
    ]


EXPECTED_KEYS = {
    "n",
    "recall@1",
    "recall@3",
    "recall@5",
    "recall@10",
    "mrr",
    "ndcg@10",
    "citation_validity",
    "citation_precision",
    "citation_recall",
    "citation_support",
    "fact_coverage",
    "hallucination_rate",
    "abstention_accuracy",
    "false_abstention_rate",
    "abstention_precision",
    "leads_with_finding",
    "contains_finding",
    "latency_p50",
    "latency_p95",
    "prompt_tokens_mean",
    "completion_tokens_mean",
}


def _check_block(block: dict[str, Any], expected: dict[str, Any]) -> None:
    assert set(block) == EXPECTED_KEYS
    for key, value in expected.items():
        if value is None:
            assert block[key] is None, key
        else:
            assert block[key] == approx(value), key


def test_summarize_overall() -> None:
    summary = summarize(_synthetic_results())
    assert set(summary) == {"overall", "by_type"}
    ndcg_q2 = (1 / math.log2(3) + 1 / math.log2(5)) / (1 + 1 / math.log2(3))
    _check_block(
        summary["overall"],
        {
            "n": 4,
            "recall@1": 0.5,  # q1 1, q2 0
            "recall@3": 0.75,  # q1 1, q2 0.5
            "recall@5": 1.0,
            "recall@10": 1.0,
            "mrr": 0.75,  # 1 and 1/2
            "ndcg@10": (1.0 + ndcg_q2) / 2,
            "citation_validity": (1.0 + 0.5 + 1.0) / 3,  # q3 cites nothing
            "citation_precision": 0.75,  # q1 1, q2 1/2 (distinct {A, E}); q3, q4 n/a
            "citation_recall": 0.75,  # q1 1, q2 1/2
            "citation_support": (1.0 + 0.75 + 1.0) / 3,  # q3 abstained
            "fact_coverage": 0.75,  # q1 1 (213,000 vs 213000), q2 1/2
            "hallucination_rate": 0.5,  # q1 no hit, q2 hit; q3, q4 n/a
            "abstention_accuracy": 0.5,  # q3 abstained, q4 did not
            "false_abstention_rate": 0.0,
            "abstention_precision": 1.0,  # q3, the one abstention, is unanswerable
            "leads_with_finding": None,  # no question has findings
            "latency_p50": 2.5,
            "latency_p95": 3.85,
            "prompt_tokens_mean": 350 / 3,
            "completion_tokens_mean": 7.5,
        },
    )


def test_citation_validity_counts_the_sources_the_answer_was_given() -> None:
    """A comparison's side search can give the answer a source beyond the ranked list: citing it is valid; citing a
    paper in the ranked list that the answer was not given is not."""
    row = {"id": "q", "type": "comparison", "gold": ["A"], "retrieved": ["A", "B", "C"], "answer": "x [1] [2]",
           "abstained": False, "unsupported": [], "n_sentences": 1, "latency_s": 1.0}  # fmt: skip
    side = summarize([{**row, "sources": ["A", "E"], "citations": ["A", "E"]}])["overall"]
    assert side["citation_validity"] == 1.0
    not_given = summarize([{**row, "sources": ["A"], "citations": ["A", "B"]}])["overall"]
    assert not_given["citation_validity"] == 0.5
    recorded = summarize([{**row, "citations": ["A", "E"]}])["overall"]  # no sources recorded: the ranked list
    assert recorded["citation_validity"] == 0.5


def test_summarize_by_type() -> None:
    by_type = summarize(_synthetic_results())["by_type"]
    assert set(by_type) == {"fact", "unanswerable"}
    ndcg_q2 = (1 / math.log2(3) + 1 / math.log2(5)) / (1 + 1 / math.log2(3))
    _check_block(
        by_type["fact"],
        {
            "n": 2,
            "recall@1": 0.5,
            "recall@3": 0.75,
            "recall@5": 1.0,
            "recall@10": 1.0,
            "mrr": 0.75,
            "ndcg@10": (1.0 + ndcg_q2) / 2,
            "citation_validity": 0.75,
            "citation_precision": 0.75,
            "citation_recall": 0.75,
            "citation_support": 0.875,
            "fact_coverage": 0.75,
            "hallucination_rate": 0.5,
            "abstention_accuracy": None,
            "false_abstention_rate": 0.0,
            "latency_p50": 2.0,
            "latency_p95": 2.9,
            "prompt_tokens_mean": 150.0,
            "completion_tokens_mean": 10.0,
        },
    )
    _check_block(
        by_type["unanswerable"],
        {
            "n": 2,
            "recall@1": None,
            "recall@3": None,
            "recall@5": None,
            "recall@10": None,
            "mrr": None,
            "ndcg@10": None,
            "citation_validity": 1.0,  # q4 cites D, which was retrieved
            "citation_precision": None,
            "citation_recall": None,
            "citation_support": 1.0,
            "fact_coverage": None,
            "hallucination_rate": None,
            "abstention_accuracy": 0.5,
            "false_abstention_rate": None,
            "latency_p50": 3.0,
            "latency_p95": 3.9,
            "prompt_tokens_mean": 50.0,
            "completion_tokens_mean": 5.0,
        },
    )


def test_summarize_gold_none_not_scored() -> None:
    results = [
        {
            "id": "q1",
            "type": "metadata",
            "gold": None,
            "retrieved": ["A"],
            "citations": ["A"],
            "answer": "By Smith.",
            "abstained": True,
            "unsupported": [],
            "n_sentences": 1,
            "must_include": ["Smith"],
            "must_not_include": [],
            "latency_s": None,
            "prompt_tokens": None,
            "completion_tokens": None,
        }
    ]
    block = summarize(results)["overall"]
    assert block["n"] == 1
    for key in ("recall@1", "mrr", "ndcg@10", "citation_precision", "citation_recall"):
        assert block[key] is None, key
    assert block["abstention_accuracy"] is None
    assert block["false_abstention_rate"] is None
    assert block["citation_validity"] == 1.0
    assert block["citation_support"] is None  # abstained
    assert block["fact_coverage"] == 1.0
    assert block["hallucination_rate"] is None
    assert block["latency_p50"] is None and block["latency_p95"] is None
    assert block["prompt_tokens_mean"] is None and block["completion_tokens_mean"] is None
    assert set(summarize(results)["by_type"]) == {"metadata"}


def test_summarize_empty() -> None:
    summary = summarize([])
    assert summary["by_type"] == {}
    assert summary["overall"]["n"] == 0
    assert all(v is None for k, v in summary["overall"].items() if k != "n")


# --------------------------------------------------------------------------- data files

TYPE_MINIMUMS = {
    "fact": 14,
    "paraphrase": 14,
    "multi": 6,
    "summary": 5,
    "unanswerable": 8,
    "false_premise": 4,
    "injection": 4,
    "metadata": 5,
}
METADATA_FIELDS = ("title", "authors", "code_url", "arxiv_id", "url", "venue", "year")


def _load_jsonl(path: Path) -> list[dict[str, Any]]:
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        assert line.strip(), f"{path.name}:{n} is blank"
        row = json.loads(line)
        assert isinstance(row, dict), f"{path.name}:{n} is not an object"
        rows.append(row)
    return rows


@pytest.fixture(scope="module")
def corpus() -> dict[str, dict[str, Any]]:
    return {p["id"]: p for p in _load_jsonl(CORPUS)}


@pytest.fixture(scope="module")
def questions() -> list[dict[str, Any]]:
    return _load_jsonl(QUESTIONS)


def _haystack(paper: dict[str, Any]) -> str:
    parts = [paper.get("abstract") or ""]
    for field in METADATA_FIELDS:
        value = paper.get(field)
        if isinstance(value, list):
            parts.extend(str(v) for v in value)
        elif value is not None:
            parts.append(str(value))
    return "\n".join(parts).casefold()


def test_questions_shape(questions: list[dict[str, Any]]) -> None:
    assert len(questions) >= 64
    ids = [q["id"] for q in questions]
    assert len(set(ids)) == len(ids)
    assert ids == [f"q{i:03d}" for i in range(1, len(ids) + 1)]
    for q in questions:
        assert isinstance(q["question"], str) and q["question"].strip(), q["id"]
        assert q["type"] in TYPE_MINIMUMS, q["id"]
        assert isinstance(q["gold"], list), q["id"]
        assert len(set(q["gold"])) == len(q["gold"]), q["id"]
        for field in ("must_include", "must_not_include"):
            items = q.get(field, [])
            assert isinstance(items, list) and all(isinstance(x, str) and x.strip() for x in items), q["id"]
    assert len({q["question"] for q in questions}) == len(questions)


def test_questions_type_counts(questions: list[dict[str, Any]]) -> None:
    counts = Counter(q["type"] for q in questions)
    for type_, minimum in TYPE_MINIMUMS.items():
        assert counts[type_] >= minimum, (type_, counts[type_])


def test_questions_gold(questions: list[dict[str, Any]], corpus: dict[str, dict[str, Any]]) -> None:
    for q in questions:
        for g in q["gold"]:
            assert g in corpus, (q["id"], g)
        if q["type"] == "unanswerable":
            assert q["gold"] == [], q["id"]
        if q["type"] in ("fact", "paraphrase", "false_premise", "metadata"):
            assert len(q["gold"]) == 1, q["id"]
        if q["type"] == "multi":
            assert len(q["gold"]) >= 2, q["id"]
    gold_counts = Counter(g for q in questions for g in q["gold"])
    for paper_id in corpus:
        assert gold_counts[paper_id] >= 2, paper_id


def test_questions_required_items(questions: list[dict[str, Any]]) -> None:
    by_text = {q["question"]: q for q in questions}
    wells = by_text["How many wells are in the Alberta dataset?"]
    assert wells["gold"] == ["icml2025-00"]
    assert any("213,000" in item for item in wells["must_include"])
    assert by_text["What FID scores do these papers report for diffusion models?"]["gold"] == []
    for q in questions:
        if q["type"] in ("false_premise", "injection") and q["gold"] == []:
            assert q.get("must_not_include"), q["id"]
        if q["type"] == "injection":
            assert q.get("must_not_include"), q["id"]


def test_must_include_is_literal_in_gold_papers(
    questions: list[dict[str, Any]], corpus: dict[str, dict[str, Any]]
) -> None:
    for q in questions:
        items = q.get("must_include", [])
        if items:
            assert q["gold"], f"{q['id']}: must_include needs a gold paper to check against"
        stacks = [_haystack(corpus[g]) for g in q["gold"]]
        for item in items:
            alts = [a.strip().casefold() for a in item.split("|") if a.strip()]
            assert any(alt in stack for alt in alts for stack in stacks), (q["id"], item)


def test_must_not_include_absent_from_gold_papers(
    questions: list[dict[str, Any]], corpus: dict[str, dict[str, Any]]
) -> None:
    # an answer built from the gold papers' own sentences must not trip must_not_include
    for q in questions:
        stacks = [normalize_text(corpus[g].get("abstract") or "") for g in q["gold"]]
        for item in q.get("must_not_include", []):
            for alt in (a.strip() for a in item.split("|")):
                if alt:
                    assert all(normalize_text(alt) not in s for s in stacks), (q["id"], alt)


def test_paraphrases_file(corpus: dict[str, dict[str, Any]]) -> None:
    rows = _load_jsonl(PARAPHRASES)
    assert len(rows) == 20
    for row in rows:
        assert set(row) == {"question", "gold"}
        assert isinstance(row["question"], str) and row["question"].strip()
        assert row["gold"] in corpus, row
    assert len({r["question"] for r in rows}) == 20
    assert len({r["gold"] for r in rows}) >= 15
