"""The "Worst questions" sections of report.md: missed retrievals, unsupported sentences, wrong abstentions,
missing facts, hallucinations and failed questions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from eval.fields import gold_ids, retrieved_ids
from eval.markdown import cell, fmt, table
from eval.metrics import (
    abstention_outcome,
    fact_coverage,
    hallucination_hits,
    normalize_text,
    recall_at_k,
    reciprocal_rank,
)

MAX_ROWS = 15  # rows per "worst questions" table


def missed_retrievals(results: Sequence[Mapping[str, Any]], k: int = 5) -> list[Mapping[str, Any]]:
    """Answerable questions with a gold paper outside the top k, worst first."""
    missed = [r for r in results if gold_ids(r) and (recall_at_k(retrieved_ids(r), gold_ids(r), k) or 0.0) < 1.0]
    return sorted(
        missed,
        key=lambda r: (
            recall_at_k(retrieved_ids(r), gold_ids(r), k) or 0.0,
            reciprocal_rank(retrieved_ids(r), gold_ids(r)) or 0.0,
            r["id"],
        ),
    )


def wrong_abstentions(results: Sequence[Mapping[str, Any]]) -> list[tuple[str, Mapping[str, Any]]]:
    """(outcome, result) for false and missed abstentions, false ones first."""
    out: list[tuple[str, Mapping[str, Any]]] = []
    for r in results:
        if r.get("gold") is None or r.get("error"):
            continue
        outcome = abstention_outcome(bool(r.get("abstained")), r["gold"])
        if outcome in ("false_abstain", "missed_abstain"):
            out.append((outcome, r))
    return sorted(out, key=lambda pair: (pair[0] != "false_abstain", pair[1]["id"]))


def _missing_items(r: Mapping[str, Any]) -> list[str]:
    answer = normalize_text(str(r.get("answer") or ""))
    missing = []
    for item in r.get("must_include") or []:
        alts = [normalize_text(a) for a in item.split("|") if normalize_text(a)]
        if alts and not any(a in answer for a in alts):
            missing.append(item)
    return missing


def _hit_items(r: Mapping[str, Any]) -> list[str]:
    return [item for item in r.get("must_not_include") or [] if hallucination_hits(str(r.get("answer") or ""), [item])]


def _more(n: int) -> list[str]:
    return ["", f"… and {n} more (see results.jsonl)."] if n > 0 else []


def worst_sections(results: Sequence[Mapping[str, Any]]) -> list[str]:
    lines: list[str] = ["## Worst questions", ""]

    missed = missed_retrievals(results)
    lines += [f"### Missed retrievals ({len(missed)}: a gold paper is not in the top 5)", ""]
    if missed:
        rows = []
        for r in missed[:MAX_ROWS]:
            ranked = retrieved_ids(r)
            ranks = ", ".join(
                f"{g} @{ranked.index(g) + 1}" if g in ranked else f"{g} not in top {len(ranked)}" for g in gold_ids(r)
            )
            rows.append(
                [
                    cell(r["id"]),
                    cell(r.get("type")),
                    fmt(recall_at_k(ranked, gold_ids(r), 5)),
                    cell(ranks),
                    cell(", ".join(ranked[:3])),
                    cell(r["question"], 100),
                ]
            )
        lines += table(["id", "type", "recall@5", "gold rank", "top 3 retrieved", "question"], rows, "llrlll")
        lines += _more(len(missed) - MAX_ROWS)
    else:
        lines.append("None.")
    lines.append("")

    unsupported = sorted((r for r in results if r.get("unsupported")), key=lambda r: (-len(r["unsupported"]), r["id"]))
    lines += [f"### Unsupported sentences ({len(unsupported)} answers)", ""]
    if unsupported:
        rows = [
            [
                cell(r["id"]),
                cell(r.get("type")),
                f"{len(r['unsupported'])}/{r.get('n_sentences') or 0}",
                cell(r["unsupported"][0], 140),
            ]
            for r in unsupported[:MAX_ROWS]
        ]
        lines += table(["id", "type", "unsupported/checked", "first unsupported sentence"], rows, "llrl")
        lines += _more(len(unsupported) - MAX_ROWS)
    else:
        lines.append("None.")
    lines.append("")

    wrong = wrong_abstentions(results)
    lines += [f"### Wrong abstentions ({len(wrong)})", ""]
    if wrong:
        rows = []
        for outcome, r in wrong[:MAX_ROWS]:
            if outcome == "false_abstain":
                what = "false abstention (answerable)"
                detail = "; ".join(r.get("notes") or []) or "refused, no reason recorded"
            else:
                what, detail = "missed abstention (unanswerable)", str(r.get("answer") or "")
            rows.append([cell(r["id"]), cell(r.get("type")), what, cell(detail, 140), cell(r["question"], 90)])
        lines += table(["id", "type", "what", "reason / answer given", "question"], rows, "lllll")
        lines += _more(len(wrong) - MAX_ROWS)
    else:
        lines.append("None.")
    lines.append("")

    low = [(r, fact_coverage(str(r.get("answer") or ""), r.get("must_include") or [])) for r in results]
    low_cov = sorted(((r, c) for r, c in low if c is not None and c < 1.0), key=lambda rc: (rc[1], rc[0]["id"]))
    lines += [f"### Missing facts ({len(low_cov)} answers with fact coverage below 1)", ""]
    if low_cov:
        rows = [
            [
                cell(r["id"]),
                cell(r.get("type")),
                fmt(c),
                "yes" if r.get("abstained") else "no",
                cell("; ".join(_missing_items(r)), 80),
                cell(r.get("answer") or "", 120),
            ]
            for r, c in low_cov[:MAX_ROWS]
        ]
        lines += table(["id", "type", "coverage", "abstained", "missing", "answer"], rows, "llrlll")
        lines += _more(len(low_cov) - MAX_ROWS)
    else:
        lines.append("None.")
    lines.append("")

    halluc = [r for r in results if _hit_items(r)]
    lines += [f"### Hallucinations ({len(halluc)}: answer contains a must-not-include item)", ""]
    if halluc:
        rows = [
            [cell(r["id"]), cell(r.get("type")), cell("; ".join(_hit_items(r))), cell(r.get("answer") or "", 140)]
            for r in halluc[:MAX_ROWS]
        ]
        lines += table(["id", "type", "found", "answer"], rows, "llll")
        lines += _more(len(halluc) - MAX_ROWS)
    else:
        lines.append("None.")
    lines.append("")

    errors = [r for r in results if r.get("error")]
    if errors:
        lines += [f"### Failed questions ({len(errors)})", ""]
        lines += table(
            ["id", "type", "error"],
            [[cell(r["id"]), cell(r.get("type")), cell(r["error"], 200)] for r in errors],
            "lll",
        )
        lines.append("")
    return lines
