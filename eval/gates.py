"""Quality gates for CI: overall metrics that must hold for `rag eval --check` to pass."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["GATES", "check_gates", "gate_status"]

# metric -> minimum overall value
GATES: dict[str, float] = {
    "recall@5": 0.95,
    "citation_validity": 1.0,
    "abstention_accuracy": 0.8,
}
_EPS = 1e-9  # a mean of 1.0s may be 0.9999999999999999


def gate_status(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per gate: metric, threshold, value (None: no applicable question) and passed (None: skipped)."""
    overall = summary.get("overall") or {}
    rows: list[dict[str, Any]] = []
    for metric, threshold in GATES.items():
        value = overall.get(metric)
        passed = None if value is None else float(value) >= threshold - _EPS
        rows.append({"metric": metric, "threshold": threshold, "value": value, "passed": passed})
    return rows


def check_gates(summary: Mapping[str, Any]) -> list[str]:
    """The failed gates as one-line messages (empty: all passed).

    A gate whose metric has no applicable question (None, e.g. no unanswerable question in the set) is
    skipped, not failed.
    """
    return [
        f"{row['metric']} = {_fmt(row['value'], row['threshold'])} is below the gate {row['threshold']:g}"
        for row in gate_status(summary)
        if row["passed"] is False
    ]


def _fmt(value: float, threshold: float) -> str:
    """3 decimals, more when 3 would round a failing value up to the threshold."""
    text = f"{value:.3f}"
    return f"{value:.6f}" if float(text) >= threshold else text
