"""Quality gates for CI (`rag eval --check`).

Two kinds:

* **Held-out gates** sit on one named held-out suite (eval.suites.BUNDLED, split `test`), on the recorded answers
  of one (`<suite> replay`) or on the claims benchmark's held-out split (`claims heldout`). Each threshold is the
  level measured on that set when it was frozen minus a stated noise margin, or the target once it is met; it is
  never lowered, and a commit that measures a drop fails here (the commit that fixes the drop says so).
* **Run gates** (`*`: every test-split suite of the run, a user's own question file included) check that the run
  itself was real: answers written by the requested LLM backend, not by the extractive fallback; an LLM judge that
  judged. They apply only where their metric exists (an LLM backend, `--judge`).

`--check` fails when a gate fails, when a gate of a held-out suite the run was asked to cover has no value (the
suite, its claims or its replay did not run), and when no gate at all was evaluated (a dev-only run proves
nothing). eval/README.md lists every gate with its threshold, target, today's value and why it exists;
tests/test_eval_gates.py keeps that table and this one equal.

Margins: the extractive backend and the local embedder are deterministic, so the same code gives the same figures;
the margin absorbs numeric differences between machines (a tie in a ranking broken the other way), stated per gate
as the items it allows to flip: one question, or one sentence, of the set's denominator.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["GATES", "Gate", "check_gates", "gate_status", "missing_gates"]

ALL = "*"  # scope of the run gates: every test-split suite of the run


@dataclass(frozen=True)
class Gate:
    scope: str  # a held-out suite name, "<suite> replay", "claims heldout", "*" or "* judge"
    metric: str
    label: str
    op: str  # ">=" or "<="
    threshold: float
    target: float | None
    why: str  # the failure it exists to catch


# What each held-out gate catches (the same reason on every suite)
_WHY = {
    "recall@5": "retrieval that stops finding the paper that answers",
    "citation_precision": "answers that cite a paper other than the one that answers (a marker mapped to the wrong "
                          "source, a wrong paper quoted)",
    "fact_coverage": "answers that stop stating the fact asked for",
    "abstention_accuracy": "an answer path that quotes the nearest sentence instead of saying the papers do not "
                           "answer (an abstention step removed or weakened)",
    "false_abstention_rate": "refusals of questions the papers do answer",
    "hallucination_rate": "answers that repeat a false premise or follow instructions injected into the question",
    "catch_rate": "a sentence check that lets wrong sentences through (negations, swapped numbers, wrong papers)",
    "false_flag_rate": "a sentence check that flags faithful sentences",
    "planted_catch_rate": "fluent model answers whose planted errors reach the reader unflagged",
    "faithful_flag_rate": "fluent model answers whose faithful sentences are flagged or dropped",
    "refused_before_model": "answerable questions refused before the model was asked",
    "backend_share": "answers that did not come from the requested backend (fallbacks, refusals before it spoke)",
}
_LABELS = {
    "recall@5": "recall@5", "citation_precision": "citation precision", "fact_coverage": "fact coverage",
    "abstention_accuracy": "abstention accuracy", "false_abstention_rate": "false abstention rate",
    "hallucination_rate": "hallucination rate", "catch_rate": "wrong sentences caught",
    "false_flag_rate": "faithful sentences falsely flagged", "planted_catch_rate": "planted errors caught",
    "faithful_flag_rate": "faithful sentences flagged",
    "refused_before_model": "answerable refused before the model spoke",
    "backend_share": "answers written by the requested backend",
}  # fmt: skip
_LOWER_IS_BETTER = {"false_abstention_rate", "hallucination_rate", "false_flag_rate", "faithful_flag_rate",
                    "refused_before_model"}  # fmt: skip


def _held_out(scope: str, metric: str, threshold: float, target: float | None) -> Gate:
    op = "<=" if metric in _LOWER_IS_BETTER else ">="
    return Gate(scope, metric, _LABELS[metric], op, threshold, target, _WHY[metric])


# The held-out gates. Thresholds: the level measured when the set was frozen, with the answer code as it was
# (eval/README.md, "Quality gates": value and denominator), minus a margin of one item of the denominator (one
# question, one sentence), or the target where that is met; raised when a change lifts the figure, never lowered.
GATES: tuple[Gate, ...] = (
    # the bundled corpus: 150 questions (127 answerable, 23 unanswerable, 11 with a false premise or an injection)
    _held_out("icml2025-heldout", "recall@5", 0.962, 0.98),
    _held_out("icml2025-heldout", "citation_precision", 0.862, 0.9),
    _held_out("icml2025-heldout", "fact_coverage", 0.6, 0.75),
    _held_out("icml2025-heldout", "abstention_accuracy", 0.478, 0.8),
    _held_out("icml2025-heldout", "false_abstention_rate", 0.1, 0.05),
    _held_out("icml2025-heldout", "hallucination_rate", 0.091, 0.0),
    # 59 real arXiv abstracts: 100 questions (84 answerable, 16 unanswerable, 3 false premises)
    _held_out("arxiv-heldout", "recall@5", 0.98, 0.98),
    _held_out("arxiv-heldout", "citation_precision", 0.9, 0.9),
    _held_out("arxiv-heldout", "fact_coverage", 0.493, 0.75),
    _held_out("arxiv-heldout", "abstention_accuracy", 0.562, 0.8),
    _held_out("arxiv-heldout", "false_abstention_rate", 0.143, 0.05),
    _held_out("arxiv-heldout", "hallucination_rate", 0.333, 0.0),
    # "which papers ..." (frozen 2026-12-07): 26 per corpus, 10 lists with their gold papers and 16 no paper answers
    _held_out("icml2025-heldout-lists", "recall@5", 0.875, 0.98),
    _held_out("icml2025-heldout-lists", "citation_precision", 0.667, 0.9),
    _held_out("icml2025-heldout-lists", "fact_coverage", 0.6, 0.6),
    _held_out("icml2025-heldout-lists", "abstention_accuracy", 0.4375, 0.8),
    _held_out("icml2025-heldout-lists", "false_abstention_rate", 0.05, 0.05),
    _held_out("arxiv-heldout-lists", "recall@5", 0.827, 0.98),
    _held_out("arxiv-heldout-lists", "citation_precision", 0.724, 0.9),
    _held_out("arxiv-heldout-lists", "fact_coverage", 0.6, 0.6),
    _held_out("arxiv-heldout-lists", "abstention_accuracy", 0.4375, 0.8),
    _held_out("arxiv-heldout-lists", "false_abstention_rate", 0.2, 0.05),
    # recorded fluent answers to those questions, replayed through the openai path (planted errors in ~40 %)
    _held_out("icml2025-heldout replay", "planted_catch_rate", 0.596, 0.85),
    _held_out("icml2025-heldout replay", "faithful_flag_rate", 0.073, 0.05),
    _held_out("icml2025-heldout replay", "refused_before_model", 4, 0),
    _held_out("icml2025-heldout replay", "backend_share", 0.94, None),
    _held_out("arxiv-heldout replay", "planted_catch_rate", 0.625, 0.85),
    _held_out("arxiv-heldout replay", "faithful_flag_rate", 0.156, 0.05),
    _held_out("arxiv-heldout replay", "refused_before_model", 1, 0),
    _held_out("arxiv-heldout replay", "backend_share", 0.91, None),
    # the claim-checking benchmark's held-out split: 240 sentences (130 wrong, 110 faithful)
    _held_out("claims heldout", "catch_rate", 0.623, 0.85),
    _held_out("claims heldout", "false_flag_rate", 0.145, 0.05),
    # run gates: a run that did not really use the requested backend or judge must not pass on other figures
    Gate(ALL, "backend_share", "answers written by the requested backend", ">=", 0.8, None,
         "an LLM run whose answers silently came from the extractive fallback or were refused before the model "
         "spoke"),
    Gate(f"{ALL} judge", "judged_share", "answered questions the LLM judge scored", ">=", 0.5, None,
         "a judge whose endpoint failed, or whose replies could not be read, judged nothing"),
)  # fmt: skip
_EPS = 1e-9


def _suites(summary: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return {n: s for n, s in (summary.get("suites") or {}).items() if s.get("split") == "test"}


def _values(summary: Mapping[str, Any], gate: Gate) -> list[tuple[str, Any]]:
    """(scope as shown, value) for each place the gate applies in this run; [] where its scope did not run."""
    suites = _suites(summary)
    if gate.scope == ALL:
        return [(n, (s.get("overall") or {}).get(gate.metric)) for n, s in suites.items()
                if gate.metric in (s.get("overall") or {})]  # fmt: skip
    if gate.scope == f"{ALL} judge":
        return [(f"{n} judge", s["judge"].get(gate.metric)) for n, s in suites.items() if s.get("judge")]
    if gate.scope.startswith("claims "):
        block = (summary.get("claims") or {}).get(gate.scope.removeprefix("claims "))
        return [(gate.scope, block.get(gate.metric))] if block else []
    if gate.scope.endswith(" replay"):
        replay = (suites.get(gate.scope.removesuffix(" replay")) or {}).get("replay")
        return [(gate.scope, (replay.get("scores") or {}).get(gate.metric))] if replay else []
    suite = suites.get(gate.scope)
    return [(gate.scope, (suite.get("overall") or {}).get(gate.metric))] if suite else []


def gate_status(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per gate and place it applies: value and passed (None: no value, the gate was not evaluated)."""
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
                         "why": gate.why, "message": message})  # fmt: skip
    return rows


def check_gates(summary: Mapping[str, Any]) -> list[str]:
    """The failed gates as one-line messages (empty: all evaluated gates passed)."""
    return [row["message"] for row in gate_status(summary) if row["passed"] is False]


def missing_gates(summary: Mapping[str, Any], expected: Collection[str]) -> list[str]:
    """For `--check`: one line per gate of an expected scope (a held-out suite, its replay, the claims' held-out
    split) that has no value in this run, and one line when no gate at all was evaluated."""
    rows = gate_status(summary)
    evaluated = {(r["scope"], r["metric"]) for r in rows if r["passed"] is not None}
    out = [f"{g.scope}: {g.label} was not evaluated (the {g.scope} run is missing or scored nothing)"
           for g in GATES if g.scope in expected and (g.scope, g.metric) not in evaluated]  # fmt: skip
    if not evaluated:
        out.append("no quality gate was evaluated: --check needs the bundled held-out suites "
                   f"({', '.join(sorted({g.scope for g in GATES if not g.scope.startswith(ALL)})) or 'none'})")
    return out


def _fmt(value: Any) -> str:
    return "–" if value is None else f"{float(value):.3f}"
