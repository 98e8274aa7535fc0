"""Evaluation metrics for retrieval, citations, answers and abstention.

Pure functions over plain values: no I/O, standard library only.
Every metric that has no applicable input returns ``None`` rather than a
made-up value, and :func:`mean` skips ``None``, so "not applicable" never
counts as zero in an average. Nothing is rounded.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

__all__ = ["ABSTENTION_OUTCOMES", "abstention_outcome", "citation_precision", "citation_recall", "citation_validity",
           "fact_coverage", "hallucination_hits", "mean", "ndcg_at_k", "normalize_text", "percentile", "recall_at_k",
           "reciprocal_rank", "summarize"]  # fmt: skip

ABSTENTION_OUTCOMES = ("correct_abstain", "false_abstain", "missed_abstain", "answered")

_RECALL_KS = (1, 3, 5, 10)
_NDCG_K = 10

_WHITESPACE = re.compile(r"\s+")
_THOUSANDS_COMMA = re.compile(r"(?<=\d),(?=\d)")


def _first_occurrences(items: Iterable[str]) -> list[str]:
    """Items in order with later duplicates dropped."""
    seen: set[str] = set()
    out: list[str] = []
    for item in items:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


def _check_k(k: int) -> None:
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")


# --------------------------------------------------------------------------- retrieval


def recall_at_k(retrieved: Sequence[str], gold: Collection[str], k: int) -> float | None:
    """Share of the gold ids found among the first ``k`` retrieved ids; None when gold is empty."""
    _check_k(k)
    gold_set = set(gold)
    if not gold_set:
        return None
    return len(gold_set.intersection(retrieved[:k])) / len(gold_set)


def reciprocal_rank(retrieved: Sequence[str], gold: Collection[str]) -> float | None:
    """1 / rank of the first gold id in ``retrieved`` (0.0 if none); None when gold is empty."""
    gold_set = set(gold)
    if not gold_set:
        return None
    for rank, doc_id in enumerate(retrieved, start=1):
        if doc_id in gold_set:
            return 1.0 / rank
    return 0.0


def ndcg_at_k(retrieved: Sequence[str], gold: Collection[str], k: int) -> float | None:
    """Binary-relevance nDCG@k; the ideal DCG ranks min(k, |gold|) relevant ids first.

    A gold id retrieved twice earns gain only at its first position.
    None when gold is empty.
    """
    _check_k(k)
    gold_set = set(gold)
    if not gold_set:
        return None
    dcg = 0.0
    credited: set[str] = set()
    for i, doc_id in enumerate(retrieved[:k]):
        if doc_id in gold_set and doc_id not in credited:
            credited.add(doc_id)
            dcg += 1.0 / math.log2(i + 2)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(k, len(gold_set))))
    return dcg / ideal


# --------------------------------------------------------------------------- citations


def citation_validity(cited: Sequence[str], retrieved: Collection[str]) -> float | None:
    """Share of the distinct cited ids that are among the retrieved ids; None when nothing is cited."""
    distinct = _first_occurrences(cited)
    if not distinct:
        return None
    retrieved_set = set(retrieved)
    return sum(1 for c in distinct if c in retrieved_set) / len(distinct)


def citation_precision(cited: Sequence[str], gold: Collection[str]) -> float | None:
    """Share of the distinct cited ids that are gold; None when nothing is cited or gold is empty."""
    distinct = _first_occurrences(cited)
    gold_set = set(gold)
    if not distinct or not gold_set:
        return None
    return sum(1 for c in distinct if c in gold_set) / len(distinct)


def citation_recall(cited: Sequence[str], gold: Collection[str]) -> float | None:
    """Share of the gold ids that are cited (0.0 when nothing is cited); None when gold is empty."""
    gold_set = set(gold)
    if not gold_set:
        return None
    return len(gold_set.intersection(cited)) / len(gold_set)


# --------------------------------------------------------------------------- answer text


def normalize_text(text: str) -> str:
    """Case-fold, collapse whitespace and drop thousands commas (``213,000`` -> ``213000``)."""
    text = _WHITESPACE.sub(" ", text.casefold()).strip()
    return _THOUSANDS_COMMA.sub("", text)


def _alternatives(item: str) -> list[str]:
    """The non-empty, normalised ``|``-separated alternatives of a must(-not)-include item."""
    return [alt for alt in (normalize_text(a) for a in item.split("|")) if alt]


def _item_found(normalized_answer: str, item: str) -> bool | None:
    """Whether any alternative of ``item`` occurs in the answer; None if the item is blank."""
    alts = _alternatives(item)
    if not alts:
        return None
    return any(alt in normalized_answer for alt in alts)


def fact_coverage(answer: str, must_include: Sequence[str]) -> float | None:
    """Share of ``must_include`` items present in ``answer``.

    An item may list alternatives separated by ``|``; it counts when any one of
    them is a substring of the answer after :func:`normalize_text` on both sides.
    Blank items are ignored; None when no item is left.
    """
    normalized = normalize_text(answer)
    found = [f for f in (_item_found(normalized, item) for item in must_include) if f is not None]
    if not found:
        return None
    return sum(found) / len(found)


def hallucination_hits(answer: str, must_not_include: Sequence[str]) -> int:
    """How many ``must_not_include`` items occur in ``answer`` (same matching as :func:`fact_coverage`)."""
    normalized = normalize_text(answer)
    return sum(1 for item in must_not_include if _item_found(normalized, item))


# --------------------------------------------------------------------------- abstention


def abstention_outcome(abstained: bool, gold: Collection[str]) -> str:
    """Classify one answer: correct_abstain, false_abstain, missed_abstain or answered."""
    answerable = len(gold) > 0
    if abstained:
        return "false_abstain" if answerable else "correct_abstain"
    return "answered" if answerable else "missed_abstain"


# --------------------------------------------------------------------------- aggregation


def percentile(values: Sequence[float], p: float) -> float | None:
    """The ``p``-th percentile (0-100) with linear interpolation between order statistics; None when empty."""
    if not 0.0 <= p <= 100.0:
        raise ValueError(f"p must be within [0, 100], got {p}")
    if len(values) == 0:
        return None
    ordered = sorted(float(v) for v in values)
    pos = (len(ordered) - 1) * p / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    frac = pos - lo
    return ordered[lo] + (ordered[hi] - ordered[lo]) * frac


def mean(values: Iterable[float | None]) -> float | None:
    """Arithmetic mean of the values that are not None; None when there are none."""
    present = [float(v) for v in values if v is not None]
    if not present:
        return None
    return math.fsum(present) / len(present)


def _share(flags: Iterable[bool]) -> float | None:
    return mean(1.0 if f else 0.0 for f in flags)


def _ids(value: Any) -> list[str]:
    """A list of ids from a possibly missing field."""
    if value is None:
        return []
    return [str(v) for v in value]


def _summarize_block(everything: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """All metrics over one group of per-question results (answer metrics only over questions that were asked,
    not those of a retrieval-only suite, marked `search_only`)."""
    block: dict[str, Any] = {"n": len(everything)}
    ranked = [r for r in everything if r.get("gold")]  # non-empty gold: scored on retrieval
    for k in _RECALL_KS:
        block[f"recall@{k}"] = mean(recall_at_k(_ids(r.get("retrieved")), r["gold"], k) for r in ranked)
    block["mrr"] = mean(reciprocal_rank(_ids(r.get("retrieved")), r["gold"]) for r in ranked)
    block[f"ndcg@{_NDCG_K}"] = mean(ndcg_at_k(_ids(r.get("retrieved")), r["gold"], _NDCG_K) for r in ranked)

    results = [r for r in everything if not r.get("search_only")]
    if not results:
        return block
    scored = [r for r in results if r.get("gold") is not None]  # gold None: not scored
    answerable = [r for r in scored if len(r["gold"]) > 0]
    unanswerable = [r for r in scored if len(r["gold"]) == 0]

    # valid: among the sources the answer was given (a comparison's side search can add one beyond the ranked
    # list); records without sources are judged against the ranked list
    block["citation_validity"] = mean(
        citation_validity(_ids(r.get("citations")), _ids(r.get("sources")) or _ids(r.get("retrieved"))) for r in results
    )
    block["citation_precision"] = mean(citation_precision(_ids(r.get("citations")), r["gold"]) for r in scored)
    block["citation_recall"] = mean(citation_recall(_ids(r.get("citations")), r["gold"]) for r in scored)

    supports: list[float] = []
    for r in results:
        n_sentences = r.get("n_sentences") or 0
        if r.get("abstained") or n_sentences <= 0:
            continue
        unsupported = len(r.get("unsupported") or [])
        supports.append(max(0.0, 1.0 - unsupported / n_sentences))
    block["citation_support"] = mean(supports)

    block["fact_coverage"] = mean(
        fact_coverage(str(r.get("answer") or ""), r.get("must_include") or []) for r in results
    )
    block["hallucination_rate"] = _share(
        hallucination_hits(str(r.get("answer") or ""), r["must_not_include"]) > 0
        for r in results
        if r.get("must_not_include")
    )

    block["abstention_accuracy"] = _share(bool(r.get("abstained")) for r in unanswerable)
    block["false_abstention_rate"] = _share(bool(r.get("abstained")) for r in answerable)
    block["abstention_precision"] = _share(not r["gold"] for r in scored if r.get("abstained"))
    # eval.findings, for answered questions whose own paper's findings are known (the public benchmarks)
    findings = [r["finding"] for r in answerable if r.get("finding") and not r.get("abstained")]
    block["leads_with_finding"] = _share(f["leads_with_finding"] for f in findings)
    block["contains_finding"] = _share(f["contains_finding"] for f in findings)

    latencies = [float(r["latency_s"]) for r in results if r.get("latency_s") is not None]
    block["latency_p50"] = percentile(latencies, 50)
    block["latency_p95"] = percentile(latencies, 95)
    block["prompt_tokens_mean"] = mean(r.get("prompt_tokens") for r in results)
    block["completion_tokens_mean"] = mean(r.get("completion_tokens") for r in results)
    return block


def summarize(results: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Aggregate per-question results into ``{"overall": {...}, "by_type": {type: {...}}}``.

    Each result has ``id``, ``type``, ``gold`` (list, or None when absent: then it is
    left out of retrieval, citation-precision/recall and abstention metrics),
    ``retrieved``, ``citations``, ``answer``, ``abstained``, ``unsupported``,
    ``n_sentences``, ``must_include``, ``must_not_include``, ``latency_s``,
    ``prompt_tokens`` and ``completion_tokens`` (the last three may be None), ``finding``
    (eval.findings scores or None) and ``search_only`` (retrieval only: no answer metrics).

    Applicability of each metric (a metric with no applicable question is None):

    * recall@k, mrr, ndcg@10, false_abstention_rate: questions with non-empty gold;
    * abstention_accuracy: questions whose gold is ``[]``; abstention_precision: abstained ones with gold;
    * leads_with_finding, contains_finding: answered questions with non-empty gold and a ``finding``;
    * citation_validity: questions that cite something;
    * citation_precision: questions that cite something and have non-empty gold;
    * citation_recall: questions with non-empty gold (nothing cited scores 0);
    * citation_support: answered (not abstained) questions with ``n_sentences > 0``;
    * fact_coverage: questions with a non-empty ``must_include``;
    * hallucination_rate: questions with a non-empty ``must_not_include``;
    * latency percentiles and token means: questions where the value is not None.
    """
    by_type: dict[str, list[Mapping[str, Any]]] = {}
    for r in results:
        by_type.setdefault(str(r.get("type") or "unknown"), []).append(r)
    return {
        "overall": _summarize_block(results),
        "by_type": {t: _summarize_block(rs) for t, rs in sorted(by_type.items())},
    }
