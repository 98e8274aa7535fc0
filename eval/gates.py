"""Quality gates for CI (`rag eval --check`): figures on the held-out (test) suites, the claims benchmark's test
split and the recorded answers of the test suites. Dev figures are never gated: they are what was tuned on.

Each gate has a threshold (what CI enforces: today's level with a margin, so a regression fails) and, where the
project set one, a target (what we aim for; the report shows both).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["GATES", "Gate", "check_gates", "gate_status"]


@dataclass(frozen=True)
class Gate:
    scope: str  # "suite" (every held-out suite), "claims" (test split), "replay" or "judge" (held-out suites)
    metric: str
    label: str
    op: str  # ">=" or "<="
    threshold: float
    target: float | None = None


GATES: tuple[Gate, ...] = (
    Gate("suite", "recall@5", "recall@5", ">=", 0.95, 0.98),
    Gate("suite", "citation_validity", "citation validity", ">=", 1.0, 1.0),
    Gate("suite", "abstention_accuracy", "abstention accuracy", ">=", 0.1, 0.9),
    Gate("suite", "false_abstention_rate", "false abstention rate", "<=", 0.1, 0.03),
    Gate("suite", "fact_coverage", "fact coverage", ">=", 0.5, 0.75),
    Gate("suite", "citation_precision", "citation precision", ">=", 0.85, 0.9),
    Gate("suite", "backend_share", "answers written by the requested backend", ">=", 0.6),
    Gate("claims", "catch_rate", "wrong sentences caught", ">=", 0.75, 0.85),
    Gate("claims", "false_flag_rate", "faithful sentences falsely flagged", "<=", 0.06, 0.05),
    Gate("replay", "refused_before_model", "answerable refused before the model spoke", "<=", 2, 0),
    Gate("replay", "faithful_flag_rate", "faithful sentences flagged", "<=", 0.08, 0.03),
    Gate("replay", "planted_catch_rate", "planted errors caught", ">=", 0.7, 0.9),
    Gate("replay", "backend_share", "answers written by the requested backend", ">=", 0.8),
    # --judge: a judge whose endpoint failed (or whose replies could not be read) judged nothing, silently
    Gate("judge", "judged_share", "answered questions the LLM judge scored", ">=", 0.5),
)
_EPS = 1e-9


def _values(summary: Mapping[str, Any], gate: Gate) -> list[tuple[str, Any]]:
    suites = {n: s for n, s in (summary.get("suites") or {}).items() if s.get("split") == "test"}
    if gate.scope == "suite":
        return [(n, (s.get("overall") or {}).get(gate.metric)) for n, s in suites.items()]
    if gate.scope == "claims":
        test = (summary.get("claims") or {}).get("test")
        return [("claims test", test.get(gate.metric))] if test else []
    if gate.scope == "judge":
        return [(f"{n} judge", s["judge"].get(gate.metric)) for n, s in suites.items() if s.get("judge")]
    return [(f"{n} replay", (s["replay"].get("scores") or {}).get(gate.metric))
            for n, s in suites.items() if s.get("replay")]  # fmt: skip


def gate_status(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per gate and scope: value (None: nothing applicable) and passed (None: skipped)."""
    rows = []
    for gate in GATES:
        for scope, value in _values(summary, gate):
            if value is None:
                passed = None
            elif gate.op == ">=":
                passed = float(value) >= gate.threshold - _EPS
            else:
                passed = float(value) <= gate.threshold + _EPS
            message = f"{scope}: {gate.label} = {_fmt(value)} does not meet the gate {gate.op} {gate.threshold:g}"
            rows.append({"scope": scope, "metric": gate.metric, "label": gate.label, "op": gate.op,
                         "threshold": gate.threshold, "target": gate.target, "value": value, "passed": passed,
                         "message": message})  # fmt: skip
    return rows


def check_gates(summary: Mapping[str, Any]) -> list[str]:
    """The failed gates as one-line messages (empty: all passed)."""
    return [row["message"] for row in gate_status(summary) if row["passed"] is False]


def _fmt(value: Any) -> str:
    return "–" if value is None else f"{float(value):.3f}"
