"""--compare: an earlier run's summary.json against this run's, metric by metric, and its report.md section.

Differences within a tolerance are "same"; timing and token metrics are compared overall only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from eval.fields import JUDGE_METRICS, METRICS
from eval.markdown import cell, fmt, table
from rag.errors import RagError

LOWER_IS_BETTER = frozenset(
    {
        "false_abstention_rate",
        "hallucination_rate",
        "latency_p50",
        "latency_p95",
        "prompt_tokens_mean",
        "completion_tokens_mean",
    }
)
NEUTRAL = frozenset({"n"})
# Timing and token changes below these tolerances are noise, not a change: (share of the old value, absolute).
TOLERANCE = {
    "latency_p50": (0.25, 0.05),
    "latency_p95": (0.25, 0.05),
    "prompt_tokens_mean": (0.02, 1.0),
    "completion_tokens_mean": (0.02, 1.0),
}
COST_METRICS = frozenset(TOLERANCE)  # compared overall only: per type, a handful of timings is too noisy


def load_summary(directory: str | Path) -> dict[str, Any]:
    """An earlier run's summary.json; RagError when it is missing or unreadable."""
    path = Path(directory) / "summary.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RagError(f"--compare: no summary.json in {directory}; give an earlier run's --out directory") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RagError(f"--compare: cannot read {path}: {exc}") from None
    if isinstance(data, dict) and isinstance(data.get("overall"), dict):  # a run from before suites existed
        data = {"run": data.get("run") or {}, "suites": {"questions": data}}
    if not isinstance(data, dict) or not isinstance(data.get("suites"), dict):
        raise RagError(f"--compare: {path} is not an evaluation summary (no 'suites')")
    return data


def compare_runs(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """compare_summaries for every suite both runs have; better/worse lists name the suite."""
    b_suites, a_suites = before.get("suites") or {}, after.get("suites") or {}
    suites = {n: compare_summaries(b_suites[n], a_suites[n]) for n in a_suites if n in b_suites}
    if not suites and len(b_suites) == 1 and len(a_suites) == 1:  # one question file each: compare them
        (_, bs), (an, as_) = next(iter(b_suites.items())), next(iter(a_suites.items()))
        suites = {an: compare_summaries(bs, as_)}
    return {
        "suites": suites,
        "better": [f"{n}: {b}" for n, c in suites.items() for b in c["better"]],
        "worse": [f"{n}: {w}" for n, c in suites.items() for w in c["worse"]],
    }


def _direction(metric: str, before: Any, after: Any) -> str:
    """better, worse, same, or n/a (a side is missing, or the metric has no better direction)."""
    if not isinstance(before, (int, float)) or not isinstance(after, (int, float)):
        return "n/a"
    delta = float(after) - float(before)
    relative, absolute = TOLERANCE.get(metric, (0.0, 1e-9))
    tolerance = max(absolute, relative * abs(float(before)))
    if abs(delta) <= tolerance:
        return "same"
    if metric in NEUTRAL:
        return "changed"
    improved = delta < 0 if metric in LOWER_IS_BETTER else delta > 0
    return "better" if improved else "worse"


def _row(metric: str, label: str, before: Any, after: Any) -> dict[str, Any]:
    both = isinstance(before, (int, float)) and isinstance(after, (int, float))
    delta = float(after) - float(before) if both else None
    return {
        "metric": metric,
        "label": label,
        "before": before,
        "after": after,
        "delta": delta,
        "direction": _direction(metric, before, after),
    }


def compare_summaries(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """Metric-by-metric comparison: overall rows, per-type rows, and the better/worse lists."""
    b_all, a_all = before.get("overall") or {}, after.get("overall") or {}
    overall = [_row(m, label, b_all.get(m), a_all.get(m)) for m, label in METRICS.items()]
    b_judge, a_judge = before.get("judge") or {}, after.get("judge") or {}
    if b_judge or a_judge:
        overall += [_row(m, label, b_judge.get(m), a_judge.get(m)) for m, label in JUDGE_METRICS.items()]
    b_types, a_types = before.get("by_type") or {}, after.get("by_type") or {}
    by_type: dict[str, list[dict[str, Any]]] = {}
    for t in sorted(set(b_types) | set(a_types)):
        bt, at = b_types.get(t) or {}, a_types.get(t) or {}
        by_type[t] = [_row(m, label, bt.get(m), at.get(m)) for m, label in METRICS.items() if m not in COST_METRICS]
    better = [r["label"] for r in overall if r["direction"] == "better"]
    worse = [r["label"] for r in overall if r["direction"] == "worse"]
    better += [f"{t}: {r['label']}" for t, rows in by_type.items() for r in rows if r["direction"] == "better"]
    worse += [f"{t}: {r['label']}" for t, rows in by_type.items() for r in rows if r["direction"] == "worse"]
    return {
        "overall": overall,
        "by_type": by_type,
        "only_before": sorted(set(b_types) - set(a_types)),
        "only_after": sorted(set(a_types) - set(b_types)),
        "better": better,
        "worse": worse,
    }


def _signed(value: float | None) -> str:
    if value is None:
        return "–"
    text = f"{value:+.3f}"
    return "0.000" if text in {"+0.000", "-0.000"} else text


_ARROWS = {"better": "▲ better", "worse": "▼ worse", "same": "=", "changed": "changed", "n/a": ""}


def compare_section(compare: Mapping[str, Any], compare_dir: str | None) -> list[str]:
    """The comparison of a whole run: one sub-section per suite both runs have."""
    lines = [f"## Comparison with {cell(compare_dir or 'the earlier run')}", ""]
    if not compare.get("suites"):
        return lines + ["The runs have no suite in common.", ""]
    for name, comparison in compare["suites"].items():
        lines += _suite_comparison(name, comparison)
    return lines


def _suite_comparison(name: str, compare: Mapping[str, Any]) -> list[str]:
    lines = [f"### {cell(name)}", ""]
    better, worse = compare.get("better") or [], compare.get("worse") or []
    lines.append(f"**Better ({len(better)}):** " + (", ".join(cell(b) for b in better) if better else "nothing"))
    lines.append("")
    lines.append(f"**Worse ({len(worse)}):** " + (", ".join(cell(w) for w in worse) if worse else "nothing"))
    lines.append("")

    def rows(items: Sequence[Mapping[str, Any]]) -> list[list[str]]:
        return [
            [cell(r["label"]), fmt(r["before"]), fmt(r["after"]), _signed(r["delta"]), _ARROWS[r["direction"]]]
            for r in items
        ]

    lines += ["#### Overall", ""]
    lines += table(["metric", "before", "after", "delta", ""], rows(compare.get("overall") or []), "lrrrl") + [""]
    changed_types = {
        t: [r for r in rs if r["direction"] in ("better", "worse", "changed")]
        for t, rs in (compare.get("by_type") or {}).items()
    }
    lines += ["#### By question type (changed metrics only)", ""]
    any_change = False
    for t, rs in changed_types.items():
        if not rs:
            continue
        any_change = True
        lines += [f"**{cell(t)}**", ""]
        lines += table(["metric", "before", "after", "delta", ""], rows(rs), "lrrrl") + [""]
    if not any_change:
        lines += ["No per-type metric changed.", ""]
    for key, text in (("only_before", "only in the earlier run"), ("only_after", "only in this run")):
        if compare.get(key):
            lines += [f"Types {text}: {', '.join(cell(t) for t in compare[key])}.", ""]
    return lines
