"""The vocabulary the report, the comparison and the plots share: metric keys with their labels in report order,
and the ids a result record holds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# Overall metrics in report order, with a label for the report.
METRICS: dict[str, str] = {
    "n": "questions",
    "recall@1": "recall@1",
    "recall@3": "recall@3",
    "recall@5": "recall@5",
    "recall@10": "recall@10",
    "mrr": "MRR",
    "ndcg@10": "nDCG@10",
    "citation_validity": "citation validity",
    "citation_precision": "citation precision",
    "citation_recall": "citation recall",
    "citation_support": "citation support",
    "fact_coverage": "fact coverage",
    "hallucination_rate": "hallucination rate",
    "abstention_accuracy": "abstention accuracy",
    "false_abstention_rate": "false abstention rate",
    "abstention_precision": "abstention precision (abstained that were unanswerable)",
    "leads_with_finding": "leads with a finding (first sentence)",
    "contains_finding": "states a finding (any sentence)",
    "latency_p50": "latency p50 (s)",
    "latency_p95": "latency p95 (s)",
    "prompt_tokens_mean": "prompt tokens (mean)",
    "completion_tokens_mean": "completion tokens (mean)",
}
JUDGE_METRICS = {"faithfulness": "judge faithfulness", "answer_relevance": "judge answer relevance (1-5)"}


def gold_ids(r: Mapping[str, Any]) -> list[str]:
    return list(r.get("gold") or [])


def retrieved_ids(r: Mapping[str, Any]) -> list[str]:
    return [str(x) for x in r.get("retrieved") or []]
