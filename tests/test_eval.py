"""The evaluation harness: question loading, runner error handling, gates, report rendering, judge parsing,
and one end-to-end `rag eval` run on a small mixed subset with the extractive backend."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from eval.compare import compare_summaries, load_summary
from eval.judge import parse_faithfulness, parse_json_object, parse_relevance, run_judge
from eval.questions import DEFAULT_QUESTIONS, Question, load_questions
from eval.report import build_summary, write_outputs
from eval.runner import run_eval
from rag.errors import QuestionError, RagError
from rag.settings import Settings, load_settings
from rag.types import Paper

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# --------------------------------------------------------------------------- questions


def test_load_questions_valid_with_defaults_blank_lines_and_unknown_fields(tmp_path: Path) -> None:
    path = _write(tmp_path / "q.jsonl", [
        json.dumps({"id": "a", "question": "How many wells?", "type": "fact", "gold": ["p1"],
                    "must_include": ["213,000|213000"], "must_not_include": ["5 million"]}),
        "",
        "   ",
        json.dumps({"id": "b", "question": "Anything?", "difficulty": "hard", "source": {"x": 1}}),
        json.dumps({"id": "c", "question": "Nothing?", "gold": []}),
    ])
    qs = load_questions(path)
    assert [q.id for q in qs] == ["a", "b", "c"]
    a, b, c = qs
    assert a == Question("a", "How many wells?", "fact", ("p1",), ("213,000|213000",), ("5 million",))
    assert b.type == "untyped" and b.gold is None and b.must_include == () and b.must_not_include == ()
    assert b.extra == {"difficulty": "hard", "source": {"x": 1}}
    assert c.gold == () and c.answerable is False and a.answerable is True and b.answerable is None
    with pytest.raises(AttributeError):
        a.id = "z"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ('{"id": "x", "question": "q"', "invalid JSON"),
        ('["id", "question"]', "expected a JSON object, got list"),
        ('{"question": "q"}', "missing required field 'id'"),
        ('{"id": "x"}', "missing required field 'question'"),
        ('{"id": 3, "question": "q"}', "field 'id' must be a string"),
        ('{"id": "x", "question": "  "}', "field 'question' is blank"),
        ('{"id": "x", "question": "q", "gold": "p1"}', "field 'gold' must be a list of strings"),
        ('{"id": "x", "question": "q", "gold": [1]}', "field 'gold' must be a list of strings"),
        ('{"id": "x", "question": "q", "must_include": "abc"}', "field 'must_include' must be a list of strings"),
        ('{"id": "x", "question": "q", "type": 5}', "field 'type' must be a string"),
    ],
)
def test_malformed_line_is_reported_with_file_and_line(tmp_path: Path, line: str, reason: str) -> None:
    path = _write(tmp_path / "questions.jsonl", ['{"id": "ok", "question": "fine"}', "", line])
    with pytest.raises(RagError) as err:
        load_questions(path)
    message = str(err.value)
    assert f"questions.jsonl:3: {reason}" in message
    assert "\n" not in message


def test_duplicate_ids_are_an_error(tmp_path: Path) -> None:
    path = _write(tmp_path / "questions.jsonl", [
        '{"id": "q1", "question": "a"}', '{"id": "q2", "question": "b"}', '{"id": "q1", "question": "c"}',
    ])
    with pytest.raises(RagError, match=r"questions\.jsonl:3: duplicate id 'q1' \(first used on line 1\)"):
        load_questions(path)


def test_missing_and_empty_question_files(tmp_path: Path) -> None:
    with pytest.raises(RagError, match="question file not found"):
        load_questions(tmp_path / "nope.jsonl")
    with pytest.raises(RagError, match="holds no questions"):
        load_questions(_write(tmp_path / "empty.jsonl", ["", "  "]))


def test_bundled_dev_set_loads() -> None:
    qs = load_questions(DEFAULT_QUESTIONS)
    assert len(qs) == 91
    assert {"fact", "paraphrase", "unanswerable", "summary", "injection"} <= {q.type for q in qs}


# --------------------------------------------------------------------------- runner (no model)


class _FakeAnswerer:
    """Just enough of an Assistant for run_eval: ask() and retriever.search()."""

    def __init__(self) -> None:
        self.retriever = SimpleNamespace(search=self._search, settings=load_settings(env={}).retrieval)

    @staticmethod
    def _search(query: str, k: int, mode: str = "hybrid") -> list[Any]:
        return [SimpleNamespace(paper=SimpleNamespace(id=f"p{i}")) for i in range(k)]

    def ask(self, question: str, **kwargs: Any) -> Any:
        if "boom" in question:
            raise QuestionError("the question is too long\nreally")
        if "bug" in question:
            raise ValueError("unexpected")
        hit = SimpleNamespace(paper=SimpleNamespace(id="p0"))
        return SimpleNamespace(
            text="An answer [1].", standalone_question=question, citations=[SimpleNamespace(paper_id="p0")],
            sources=[hit], abstained=False, unsupported=(), checked_sentences=1, latency_s=0.5,
            backend="extractive", model="extractive", prompt="extractive",
            usage=SimpleNamespace(prompt_tokens=0, completion_tokens=0), notes=(), abstain_reason=None,
            checks=("offline",),
        )


def test_run_eval_records_failures_and_goes_on() -> None:
    qs = [Question("q1", "fine", "fact", ("p0",)), Question("q2", "boom"), Question("q3", "a bug"),
          Question("q4", "fine again", "fact", ("p3",))]
    seen: list[tuple[int, int]] = []
    results = run_eval(_FakeAnswerer(), qs, progress=lambda done, total: seen.append((done, total)))  # type: ignore[arg-type]
    assert [r["id"] for r in results] == ["q1", "q2", "q3", "q4"]
    assert results[0]["error"] is None and results[0]["citations"] == ["p0"] and results[0]["sources"] == ["p0"]
    assert results[0]["retrieved"] == [f"p{i}" for i in range(10)]
    assert results[1]["error"] == "the question is too long really"
    assert results[2]["error"] == "ValueError: unexpected"
    assert results[1]["retrieved"], "retrieval is still recorded for a failed answer"
    assert results[3]["error"] is None
    assert seen[-1] == (4, 4)
    expected = {"id", "question", "type", "gold", "answer", "citations", "retrieved", "sources", "abstained",
                "unsupported", "n_sentences", "must_include", "must_not_include", "latency_s", "backend", "model",
                "prompt", "prompt_tokens", "completion_tokens", "notes", "abstain_reason", "checks", "finding",
                "error"}
    assert all(set(r) == expected for r in results)


# --------------------------------------------------------------------------- report (synthetic, no model)


def _result(qid: str, qtype: str, gold: list[str] | None, **kw: Any) -> dict[str, Any]:
    r: dict[str, Any] = {
        "id": qid, "question": f"question {qid}?", "type": qtype, "gold": gold, "answer": "Answer with 42 [1].",
        "citations": list(gold or []), "retrieved": list(gold or []) + ["x1", "x2", "x3", "x4", "x5"],
        "sources": list(gold or []), "abstained": False, "unsupported": [], "n_sentences": 1,
        "must_include": ["42"], "must_not_include": [], "latency_s": 0.123456, "backend": "extractive",
        "model": "extractive", "prompt": "extractive", "prompt_tokens": 0, "completion_tokens": 0, "notes": [],
        "error": None,
    }
    r.update(kw)
    return r


def _synthetic(worse: bool = False) -> list[dict[str, Any]]:
    return [
        _result("q1", "fact", ["p1"], answer="It is 41 [1]." if worse else "It is 42 [1]."),
        _result("q2", "fact", ["p2"], retrieved=["x1", "x2", "x3", "x4", "x5", "x6", "p2"]),
        _result("q3", "multi", ["p1", "p3"], unsupported=["A made-up claim | with a pipe."], n_sentences=2),
        _result("q4", "unanswerable", [], answer="Something [1].", citations=["x1"], must_include=[]),
        _result("q5", "unanswerable", [], answer="The indexed papers do not answer this question.", abstained=True,
                citations=[], must_include=[]),
        _result("q6", "paraphrase", ["p4"], answer="The indexed papers do not answer this question.", abstained=True,
                citations=[], notes=["no retrieved paper mentions 'foo'"], latency_s=1.5),
        _result("q7", "fact", ["p5"], must_not_include=["5 million"], answer="It has 5 million wells [1].",
                must_include=["213,000|213000"]),
        _result("q8", "fact", None, error="the question is empty; ask something", latency_s=None, answer="",
                citations=[], retrieved=[], must_include=[]),
    ]


def _run_info() -> dict[str, Any]:
    return {"timestamp": "2025-01-01T00:00:00+0000", "duration_s": 1.0, "backend": "extractive", "model": "extractive",
            "k": 5, "settings": load_settings(env={}, openai_api_key="sk-secret").public_dict()}


def _run(results: list[dict[str, Any]], baselines: Any = None) -> dict[str, Any]:
    suite = {"split": "test", "questions_file": "synthetic.jsonl", "sha256": "ab" * 32, "corpus": None}
    return {"run": _run_info(), "suites": {"synthetic": build_summary(results, suite=suite, baselines=baselines)},
            "claims": {"heldout": {"n": 4, "catch_rate": 0.5, "false_flag_rate": 0.25,
                                "by_kind": {"negation": {"label": "wrong", "n": 2, "flagged": 1, "flag_rate": 0.5},
                                            "reworded": {"label": "faithful", "n": 2, "flagged": 1,
                                                         "flag_rate": 0.5}}}}}  # fmt: skip


def test_report_files_plots_and_compare(tmp_path: Path) -> None:
    baselines = {mode: {"n": 6, "recall@1": 0.5, "recall@3": 0.7, "recall@5": 0.8, "recall@10": 1.0, "mrr": 0.6,
                        "ndcg@10": 0.7, "recall_curve": [0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0, 1.0]}
                 for mode in ("hybrid", "dense", "lexical")}
    before_dir = tmp_path / "before"
    before = _run(_synthetic(), baselines)
    write_outputs(before_dir, before, {"synthetic": _synthetic()})

    after_results = _synthetic(worse=True)
    after = _run(after_results)
    report = write_outputs(tmp_path / "after", after, {"synthetic": after_results}, compare_dir=before_dir,
                           compare_with=load_summary(before_dir))
    out = tmp_path / "after"
    assert report == out / "report.md"

    text = report.read_text(encoding="utf-8")
    for png in ("recall_at_k.png", "metrics_by_suite.png", "metrics_by_type.png", "claims_by_kind.png", "latency.png"):
        data = (out / png).read_bytes()
        assert data.startswith(PNG_MAGIC) and len(data) > 2000, png
        assert f"]({png})" in text
        assert (before_dir / png).read_bytes().startswith(PNG_MAGIC)

    lines = (out / "results" / "synthetic.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["id"] for line in lines] == [f"q{i}" for i in range(1, 9)]

    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["run"]["settings"]["openai_api_key"] == "***"
    assert "sk-secret" not in (out / "summary.json").read_text(encoding="utf-8")
    suite = summary["suites"]["synthetic"]
    assert suite["errors"] == 1 and suite["split"] == "test"
    assert "fact" in suite["by_type"] and "overall" in suite
    assert suite["overall"]["latency_p50"] == pytest.approx(0.123456)  # full precision in JSON
    assert "| latency p50 (s) | 0.123 |" in text  # 3 decimals in the report, side by side
    assert summary["compare"]["worse"] and "synthetic: fact coverage" in summary["compare"]["worse"]
    assert "judge" not in suite

    # the compare table shows the metric that got worse, before and after
    assert "## Comparison with" in text
    worse_rows = [line for line in text.splitlines() if line.startswith("| fact coverage |") and "▼ worse" in line]
    assert worse_rows, text
    cov_before = before["suites"]["synthetic"]["overall"]["fact_coverage"]
    cov_after = after["suites"]["synthetic"]["overall"]["fact_coverage"]
    assert f"| {cov_before:.3f} | {cov_after:.3f} | {cov_after - cov_before:+.3f} | ▼ worse |" in worse_rows[0]
    assert "**fact**" in text  # per-type section lists the type that changed

    # gates, the claims table and the worst-question lists
    assert "synthetic: wrong sentences caught" not in text and "claims heldout: wrong sentences caught = 0.500" in text
    assert "| negation | caught | 0.500 (1/2) |" in text and "| reworded | flagged (false) | 0.500 (1/2) |" in text
    assert "#### Missed retrievals (1:" in text and "p2 @7" in text
    assert "A made-up claim \\| with a pipe." in text  # pipes escaped inside table cells
    assert "false abstention (answerable)" in text and "missed abstention (unanswerable)" in text
    assert "no retrieved paper mentions 'foo'" in text
    assert "#### Hallucinations (1" in text and "5 million" in text
    assert "#### Failed questions (1)" in text
    assert "### Retrieval baselines" not in text
    assert "### Retrieval baselines" in (before_dir / "report.md").read_text(encoding="utf-8")


def test_compare_directions() -> None:
    before = {"overall": {"recall@5": 0.9, "false_abstention_rate": 0.2, "latency_p50": 1.0, "n": 10},
              "by_type": {"fact": {"recall@5": 1.0}, "old": {"recall@5": 1.0}}}
    after = {"overall": {"recall@5": 0.95, "false_abstention_rate": 0.3, "latency_p50": 1.02, "n": 12},
             "by_type": {"fact": {"recall@5": 0.5}, "new": {"recall@5": 1.0}}}
    cmp = compare_summaries(before, after)
    rows = {r["metric"]: r for r in cmp["overall"]}
    assert rows["recall@5"]["direction"] == "better"
    assert rows["false_abstention_rate"]["direction"] == "worse"  # lower is better
    assert rows["latency_p50"]["direction"] == "same"  # within timing noise
    assert rows["n"]["direction"] == "changed"
    assert rows["mrr"]["direction"] == "n/a"
    assert "fact: recall@5" in cmp["worse"] and cmp["only_before"] == ["old"] and cmp["only_after"] == ["new"]


def test_compare_with_missing_directory_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(RagError, match="no summary.json"):
        load_summary(tmp_path / "missing")
    (tmp_path / "odd").mkdir()
    (tmp_path / "odd" / "summary.json").write_text('{"something": 1}')
    with pytest.raises(RagError, match="not an evaluation summary"):
        load_summary(tmp_path / "odd")


# --------------------------------------------------------------------------- judge (no endpoint)


def test_judge_reply_parsing() -> None:
    assert parse_json_object('Sure!\n```json\n{"score": 4, "reason": "ok"}\n```') == {"score": 4, "reason": "ok"}
    assert parse_json_object("no json here") is None
    assert parse_json_object('{"a": [1, 2]} trailing {"b": 1}') == {"a": [1, 2]}
    assert parse_relevance('{"score": 5}') == 5.0
    assert parse_relevance('{"score": "3"}') == 3.0
    assert parse_relevance('{"score": 9}') is None
    assert parse_relevance("Score: 2 because") == 2.0
    assert parse_relevance("I cannot grade this") is None
    faith = '{"statements": [{"statement": "a", "supported": true}, {"statement": "b", "supported": "no"}]}'
    assert parse_faithfulness(faith) == (0.5, 2)
    assert parse_faithfulness('{"supported": 3, "total": 4}') == (0.75, 4)
    assert parse_faithfulness("garbage") == (None, 0)
    assert parse_faithfulness('{"statements": []}') == (None, 0)


def test_judge_needs_an_endpoint_and_scores_with_a_chat_model() -> None:
    from rag.adapters.fakes import ScriptedChatModel

    paper = Paper(id="p1", title="A paper", abstract="It is 42.")
    never = lambda backend, model=None: pytest.fail("must not be called")  # noqa: E731
    chats = SimpleNamespace(configured=lambda: False, chat=never)
    fake = SimpleNamespace(settings=load_settings(env={}).answer, retriever=SimpleNamespace(paper=lambda pid: paper),
                           chats=chats)
    results = _synthetic()
    with pytest.raises(RagError, match="--judge needs an OpenAI-compatible endpoint"):
        run_judge(fake, results)  # type: ignore[arg-type]

    def reply(messages: Any) -> str:
        content = messages[-1]["content"]
        if "SOURCES:" in content:
            return '{"statements": [{"statement": "x", "supported": true}, {"statement": "y", "supported": false}]}'
        return "not json at all"

    chat = ScriptedChatModel(reply, model="judge-1")
    judge = run_judge(fake, results, chat=chat)  # type: ignore[arg-type]
    assert any("[1] A paper" in call[-1]["content"] and "It is 42." in call[-1]["content"] for call in chat.calls)
    eligible = [r for r in results if not r["error"] and not r["abstained"]]
    assert judge["n_eligible"] == len(eligible) and judge["n_judged"] == len(eligible)
    assert judge["faithfulness"] == pytest.approx(0.5)
    assert judge["answer_relevance"] is None and judge["unparsable"]["answer_relevance"] == len(eligible)
    assert judge["model"] == "judge-1"
    assert all(r["judge"] is None for r in results if r["abstained"] or r["error"])


# --------------------------------------------------------------------------- end to end


def _subset(path: Path) -> list[str]:
    """The first dev question of each type (8 types: fact, paraphrase, multi, summary, unanswerable, ...)."""
    first: dict[str, str] = {}
    for line in DEFAULT_QUESTIONS.read_text(encoding="utf-8").splitlines():
        if line.strip():
            first.setdefault(json.loads(line)["type"], line)
    chosen = list(first.values())
    path.write_text("\n".join(chosen) + "\n", encoding="utf-8")
    return [json.loads(line)["id"] for line in chosen]


def test_rag_eval_end_to_end(bundled_settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a private copy of the bundled index, so the run log of this run does not land in the shared home
    home = tmp_path / "home"
    shutil.copytree(bundled_settings.index_dir, home / "index")
    settings = bundled_settings.replace(home=home, llm="extractive")
    qfile = tmp_path / "subset.jsonl"
    ids = _subset(qfile)
    assert len(ids) == 8
    out = tmp_path / "out"
    args = argparse.Namespace(questions=[str(qfile)], out=str(out), k=None, compare=None, baselines=True, judge=False,
                              check=True, llm="extractive", model=None, model_path=None, base_url=None, split="all",
                              replay=False, no_claims=False)

    from eval.cli import cmd_eval

    rc = cmd_eval(args, settings)
    printed = capsys.readouterr().out
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    # a user's own questions have no quality gate: --check says nothing was evaluated instead of passing
    failed = summary["gates"]["failed"]
    assert rc == 1 and len(failed) == 1 and failed[0].startswith("no quality gate was evaluated: --check needs the "
                                                                 "bundled held-out suites (arxiv-heldout, ")
    assert f"report: {out / 'report.md'}" in printed and "recall@5" in printed

    results = [json.loads(line) for line in (out / "results" / "subset.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in results] == ids
    assert all(r["error"] is None for r in results)
    assert all(r["backend"] == "extractive" for r in results)
    assert all(len(r["retrieved"]) == 10 and set(r["sources"]) <= set(r["retrieved"]) for r in results)
    assert all(set(r["citations"]) <= set(r["sources"]) for r in results)
    suite = summary["suites"]["subset"]
    assert suite["overall"]["n"] == 8 and suite["overall"]["citation_validity"] == 1.0
    assert suite["overall"]["recall@10"] == 1.0
    assert set(suite["baselines"]) == {"hybrid", "dense", "lexical"}
    assert suite["baselines"]["hybrid"]["recall@5"] == pytest.approx(suite["overall"]["recall@5"])
    assert summary["run"]["backend"] == "extractive" and suite["questions_file"] == str(qfile)
    assert "claims" not in summary  # a question file of the user's runs on the configured index alone
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "### Retrieval baselines" in report and "## Quality gates" in report
    for png in ("recall_at_k.png", "metrics_by_suite.png", "metrics_by_type.png", "latency.png"):
        assert (out / png).stat().st_size > 0

    # a second run compared with the first: same retrieval, nothing got worse in quality
    args2 = argparse.Namespace(**{**vars(args), "out": str(tmp_path / "out2"), "compare": str(out),
                                  "baselines": False, "check": False})
    assert cmd_eval(args2, settings) == 0
    second = json.loads((tmp_path / "out2" / "summary.json").read_text(encoding="utf-8"))
    assert not [w for w in second["compare"]["worse"] if "latency" not in w]
    assert "## Comparison with" in (tmp_path / "out2" / "report.md").read_text(encoding="utf-8")
