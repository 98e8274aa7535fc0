"""`rag eval --check` with an LLM backend fails when the LLM did not really answer (issue 14 item 13): answers
that silently came from the extractive fallback, or an LLM judge that judged nothing, are gate failures, not a
pass on the extractive backend's figures. Through the CLI, against a FaultServer that fails."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fault_server import FaultServer
from tests.reliability_helpers import WELLS

ANSWER = "Our curated Dataset comprises over 213,000 wells (abandoned, suspended, and active) from Alberta [1]."
JUDGE_PROMPT = "You are grading"  # both judge prompts start so (prompts/judge_*.md)


@pytest.fixture
def questions(tmp_path: Path) -> Path:
    path = tmp_path / "wells.jsonl"
    rows = [
        {"id": "w1", "question": WELLS, "gold": ["icml2025-00"], "must_include": ["213,000"]},
        {"id": "w2", "question": "How many wells does the Alberta Wells Dataset contain?", "gold": ["icml2025-00"]},
        {"id": "w3", "question": "What is the size of the Alberta wells dataset?", "gold": ["icml2025-00"]},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def llm_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {"RAG_MAX_RETRIES": "1", "RAG_TIMEOUT_S": "5", "RAG_VERIFY": "offline"}.items():
        monkeypatch.setenv(name, value)


def _gates(out: Path) -> dict[str, object]:
    status = json.loads((out / "summary.json").read_text())["gates"]["status"]
    return {f"{g['scope']}/{g['metric']}": g["value"] for g in status}


def test_answers_from_the_extractive_fallback_fail_the_check(indexed_cli, questions: Path, tmp_path: Path, llm_env):
    out = tmp_path / "out"
    with FaultServer(["500"] * 50) as server:
        code, stdout, err = indexed_cli("eval", str(questions), "--out", str(out), "--llm", "openai",
                                    "--base-url", server.base_url, "--check")  # fmt: skip
    assert code == 1, (stdout[-1500:], err[-1500:])
    assert "gate failed: wells: answers written by the requested backend = 0.000" in err
    assert _gates(out)["wells/backend_share"] == 0.0
    # every answer was still given (the extractive one, with a note): the run itself did not fail
    rows = [json.loads(line) for line in (out / "results" / "wells.jsonl").read_text().splitlines()]
    assert all(r["backend"] == "extractive" and any("server error (500)" in n for n in r["notes"]) for r in rows)


def test_a_judge_that_judged_nothing_fails_the_check(indexed_cli, questions: Path, tmp_path: Path, llm_env):
    out = tmp_path / "out"
    with FaultServer([], reply=ANSWER, rules=[(JUDGE_PROMPT, "500"), ("", "ok")]) as server:
        code, stdout, err = indexed_cli("eval", str(questions), "--out", str(out), "--llm", "openai",
                                    "--base-url", server.base_url, "--judge", "--check")  # fmt: skip
    assert code == 1, (stdout[-1500:], err[-1500:])
    gates = _gates(out)
    assert gates["wells/backend_share"] == 1.0  # the model answered every question...
    assert gates["wells judge/judged_share"] == 0.0  # ...and the judge judged none of them
    assert "gate failed: wells judge: answered questions the LLM judge scored = 0.000" in err
    assert [line for line in err.splitlines() if line.startswith("gate failed")] == [
        "gate failed: wells judge: answered questions the LLM judge scored = 0.000 does not meet the gate >= 0.5"
    ]


def test_a_working_llm_and_judge_pass(indexed_cli, questions: Path, tmp_path: Path, llm_env):
    out = tmp_path / "out"
    judge_reply = '{"statements": [{"statement": "x", "supported": true}], "score": 5}'
    with FaultServer([], reply=ANSWER, rules=[(JUDGE_PROMPT, "ok", judge_reply), ("", "ok")]) as server:
        code, stdout, err = indexed_cli("eval", str(questions), "--out", str(out), "--llm", "openai",
                                    "--base-url", server.base_url, "--judge", "--check")  # fmt: skip
    gates = _gates(out)
    assert gates["wells/backend_share"] == 1.0 and gates["wells judge/judged_share"] == 1.0
    assert "answers written by the requested backend" not in err and "judge scored" not in err
