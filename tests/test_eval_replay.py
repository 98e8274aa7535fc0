"""The recorded strong-model answers replayed through the real openai path, and the claims benchmark runner."""

from __future__ import annotations

from pathlib import Path

from eval.claims import Claim, run_claims, summarize_claims
from eval.questions import Question
from eval.recorded import Recorded, Sentence, load_recorded, render, score_replay
from eval.replay_server import ReplayServer
from eval.runner import run_eval
from eval.suites import RECORDED, bundled_suites
from rag.answer.citations import REFUSAL
from rag.factory import open_assistant
from rag.settings import Settings

WELLS = "How many wells are in the Alberta dataset?"
TITLES = {"icml2025-00": "Alberta Wells Dataset: Pinpointing Oil and Gas Wells from Satellite Imagery",
          "icml2025-03": "PaperBench: Evaluating AI's Ability to Replicate AI Research"}  # fmt: skip
RECORDED_WELLS = Recorded("w1", WELLS, (
    Sentence("The curated dataset includes more than 213,000 wells across Alberta [@icml2025-00].", "faithful",
             "reworded"),
    Sentence("The authors collected the wells with help from 4,000 volunteers [@icml2025-00].", "planted",
             "outside_claim"),
    Sentence("It was released together with PaperBench [@icml2025-03].", "planted", "wrong_paper"),
))  # fmt: skip


def test_placeholders_become_the_prompts_numbers():
    server = ReplayServer([RECORDED_WELLS], TITLES)
    prompt = f"Sources:\n\n[1] {TITLES['icml2025-03']} (OpenAI, 2025)\ntext\n\n[2] {TITLES['icml2025-00']}\ntext"
    assert server.numbering(prompt) == {"icml2025-03": 1, "icml2025-00": 2}
    assert render("A [@icml2025-00]. B [@icml2025-03][@nope].", {"icml2025-00": 2, "icml2025-03": 1}, 9) == (
        "A [2]. B [1][9]."
    )
    assert server.reply_for([{"role": "user", "content": prompt + "\n\nQuestion: unknown?\n\nAnswer"}]) == REFUSAL


def test_replay_through_the_openai_path_catches_planted_errors(bundled_settings: Settings):
    with ReplayServer([RECORDED_WELLS], TITLES) as server:
        s = bundled_settings.replace(llm="openai", openai_base_url=server.base_url, model="recorded", verify="offline",
                                     k=1)  # k=1: PaperBench is not retrieved, so its citation is invalid  # fmt: skip
        assistant = open_assistant(s)
        rows = run_eval(assistant, [Question("w1", WELLS, "fact", ("icml2025-00",))], llm="openai", warmup=False)
        assistant.close()
    row = rows[0]
    assert server.requests == 1 and row["backend"] == "openai" and row["error"] is None
    assert "213,000" in row["answer"] and row["checks"] == ["offline"]
    scores = score_replay(rows, [RECORDED_WELLS])
    assert scores["outcomes"] == {"kept": 1} and scores["backend_share"] == 1.0
    assert scores["faithful_sentences"] == 1 and scores["faithful_flagged"] == 0
    assert scores["planted"] == 2 and scores["planted_caught"] == 2  # a number no source gives; a removed citation
    assert scores["by_kind"] == {
        "outside_claim": {"planted": 1, "caught": 1},
        "wrong_paper": {"planted": 1, "caught": 1},
    }


def test_the_bundled_recordings_load_and_match_their_questions():
    from eval.questions import load_questions

    suites = {s.name: s for s in bundled_suites()}
    recorded_suites = [s.name for s in suites.values() if s.recorded is not None]
    assert {"icml2025-dev", "icml2025-retired", "synthetic-retired", "arxiv-heldout"} <= set(recorded_suites)
    for name in recorded_suites:
        recorded = load_recorded(RECORDED / f"{name}.jsonl")
        questions = {q.id: q.question for q in load_questions(suites[name].questions)}
        assert {r.question_id: r.question for r in recorded} == questions, name


def test_claims_runner_flags_the_wrong_sentence(bundled_settings: Settings, tmp_path: Path):
    assistant = open_assistant(bundled_settings.replace(llm="extractive"))
    claims = [
        Claim("c1", "The dataset covers more than 213,000 wells in Alberta.", ("icml2025-00",), "faithful", "reworded"),
        Claim("c2", "The dataset covers more than 231,000 wells in Alberta.", ("icml2025-00",), "wrong",
              "number_change"),
        Claim("c3", "Something about a paper that is not indexed.", ("nowhere-1",), "wrong", "outside_claim"),
    ]  # fmt: skip
    rows = run_claims(claims, assistant.checker, assistant.retriever.paper)
    assistant.close()
    assert [r["flagged"] for r in rows] == [False, True, True] and rows[2]["missing_papers"] == 1
    summary = summarize_claims(rows)
    assert summary["catch_rate"] == 1.0 and summary["false_flag_rate"] == 0.0
    assert summary["by_kind"]["number_change"] == {"label": "wrong", "n": 1, "flagged": 1, "flag_rate": 1.0}
