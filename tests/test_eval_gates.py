"""The quality gates can fail, and `--check` does not pass on a run that evaluated nothing.

The end-to-end tests break the answer path on purpose (no abstention step; every citation moved to another
source) and run the bundled held-out suite through `rag eval --check`: the gates that exist to catch those
failures must fail, and the unbroken run must pass them.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from eval.gates import ALL, GATES, check_gates, gate_status, missing_gates
from eval.suites import held_out_names

ROOT = Path(__file__).resolve().parent.parent
HELD_OUT = "icml2025-heldout"


def _summary(**suites: dict[str, Any]) -> dict[str, Any]:
    return {"suites": {name: {"split": block.pop("split", "test"), "overall": block} for name, block in suites.items()}}


def test_a_dev_only_or_empty_run_passes_no_check() -> None:
    for summary in ({}, _summary(**{"icml2025-dev": {"split": "dev", "recall@5": 1.0}})):
        assert check_gates(summary) == []  # nothing failed...
        missing = missing_gates(summary, expected=set())
        assert len(missing) == 1 and missing[0].startswith("no quality gate was evaluated")  # ...and nothing passed


def test_a_held_out_suite_that_did_not_run_is_a_failure() -> None:
    expected = {g.scope for g in GATES if not g.scope.startswith(ALL)}
    assert expected, "the held-out gates are registered"
    one = next(iter(sorted(expected)))
    missing = missing_gates({}, expected={one})
    assert any(m.startswith(f"{one}: ") and "was not evaluated" in m for m in missing)


def test_held_out_gates_sit_on_registered_held_out_suites() -> None:
    suites = set(held_out_names())
    for gate in GATES:
        if gate.scope.startswith(ALL) or gate.scope.startswith("claims "):
            continue
        assert gate.scope.removesuffix(" replay") in suites, gate


def test_every_gate_can_fail_on_a_bad_value() -> None:
    for gate in GATES:
        bad = 0.0 if gate.op == ">=" else 1.0
        if gate.metric == "refused_before_model":
            bad = 1e6
        assert not _passes(gate.op, bad, gate.threshold), gate
        assert gate.target is None or _passes(gate.op, gate.target, gate.threshold), f"{gate}: target below the gate"
        assert gate.why, gate


def _passes(op: str, value: float, threshold: float) -> bool:
    return value >= threshold if op == ">=" else value <= threshold


def test_run_gates_apply_only_where_their_metric_exists() -> None:
    extractive = _summary(mine={"recall@5": 1.0})
    assert [r for r in gate_status(extractive) if r["metric"] == "backend_share"] == []
    llm = _summary(mine={"recall@5": 1.0, "backend_share": 0.2})
    assert check_gates(llm) == ["mine: answers written by the requested backend = 0.200 does not meet the gate >= 0.8"]


def test_the_readme_gate_table_is_the_gate_table() -> None:
    text = (ROOT / "eval" / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([^`]+)`[^|]* \| ([^|]+?) \| (>=|<=) ([0-9.]+) \|([^|]*)\|", text, re.M)
    listed = {(scope, op, float(threshold), target.strip()) for scope, _, op, threshold, target in rows}
    wanted = {(g.scope, g.op, g.threshold, "" if g.target is None else f"{g.op} {g.target:g}") for g in GATES}
    assert listed == wanted


# ---------------------------------------------------------------------------- a broken answer path, end to end


def _first_sentence(text: str) -> str:
    return re.split(r"(?<=[.!?])\s+", text.strip(), maxsplit=1)[0]


def _no_abstention(answer: Any) -> Any:
    """As if the abstention step were gone: a refusal becomes a quote of the closest source."""
    from rag.answer.citations import citations_for

    if not answer.abstained or not answer.sources:
        return answer
    text = f"{_first_sentence(answer.sources[0].text)} [1]"
    return replace(answer, abstained=False, text=text, citations=citations_for([1], answer.sources))


def _wrong_paper(answer: Any) -> Any:
    """As if the markers were mapped one source off: every citation names the next source's paper."""
    from rag.answer.citations import citations_for

    n = len(answer.sources)
    if answer.abstained or n < 2:
        return answer
    return replace(answer, citations=citations_for([c.n % n + 1 for c in answer.citations], answer.sources))


def _patched(monkeypatch: pytest.MonkeyPatch, mutate: Callable[[Any], Any] | None) -> None:
    import rag.factory
    from rag.types import AnswerEvent

    real = rag.factory.open_assistant

    def open_assistant(*args: Any, **kwargs: Any) -> Any:
        assistant = real(*args, **kwargs)
        stream = assistant.ask_stream

        def ask_stream(*a: Any, **kw: Any) -> Iterator[Any]:
            for event in stream(*a, **kw):
                yield AnswerEvent(mutate(event.answer)) if mutate and isinstance(event, AnswerEvent) else event

        assistant.ask_stream = ask_stream
        return assistant

    monkeypatch.setattr(rag.factory, "open_assistant", open_assistant)


def _check(tmp_path: Path, minilm: object, monkeypatch: pytest.MonkeyPatch, name: str) -> tuple[int, list[str]]:
    from eval.cli import cmd_eval
    from rag.settings import load_settings

    monkeypatch.setattr("rag.factory.make_embedder", lambda settings, **_: minilm)
    out = tmp_path / name
    args = argparse.Namespace(questions=[], suite=[HELD_OUT], out=str(out), k=None, compare=None, baselines=False,
                              judge=False, check=True, llm="extractive", model=None, split="all", replay=False,
                              no_claims=True, cache_home=None)  # fmt: skip
    code = cmd_eval(args, load_settings(home=tmp_path / "home", env={}))
    return code, json.loads((out / "summary.json").read_text(encoding="utf-8"))["gates"]["failed"]


@pytest.mark.slow
@pytest.mark.parametrize(("mutation", "gate"), [(_no_abstention, "abstention accuracy"),
                                                (_wrong_paper, "citation precision")])  # fmt: skip
def test_a_broken_answer_path_turns_the_check_red(tmp_path: Path, minilm: object, monkeypatch: pytest.MonkeyPatch,
                                                  mutation: Callable[[Any], Any], gate: str) -> None:  # fmt: skip
    _patched(monkeypatch, None)
    code, failed = _check(tmp_path, minilm, monkeypatch, "intact")
    assert code == 0 and failed == [], failed
    _patched(monkeypatch, mutation)
    code, failed = _check(tmp_path, minilm, monkeypatch, "broken")
    assert code == 1
    assert any(f.startswith(f"{HELD_OUT}: {gate} = ") for f in failed), failed
