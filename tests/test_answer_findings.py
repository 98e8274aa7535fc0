"""Finding-first extractive answers: the answer leads with the result or conclusion that answers, quotes an aim only
when asked for one, never quotes a sentence that is itself a question, and summaries give each paper's finding."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from rag.answer.assistant import Assistant
from rag.answer.question import analyse
from rag.answer.sentence_scores import hit_roles
from rag.corpus.roles import BACKGROUND, CONCLUSION, METHOD, RESULT
from rag.factory import build_index, open_assistant
from rag.settings import Settings
from rag.text import split_sentences
from rag.types import Hit, Paper

PAPERS = [
    {"id": "tons", "title": "PubMed 1", "sections": [
        {"label": "BACKGROUND", "text": "One question is whether bleeding after tonsillectomy is more frequent "
                                        "at night?"},
        {"label": "OBJECTIVE", "text": "The aim of this study was to determine whether post-tonsillectomy bleeding is "
                                       "more common at night than during the day."},
        {"label": "METHODS", "text": "We reviewed the charts of 1,200 children operated on between 2001 and 2010."},
        {"label": "RESULTS", "text": "Bleeding occurred at night in 31 children and during the day in 12 children."},
        {"label": "CONCLUSIONS", "text": "Post-tonsillectomy bleeding happens mostly at night, so parents should "
                                         "be told how to reach the ward after hours."}]},
    {"id": "brux", "title": "PubMed 2", "sections": [
        {"label": "OBJECTIVE", "text": "To assess whether occlusal splints reduce sleep bruxism in adults."},
        {"label": "METHODS", "text": "Forty adults wore a splint for eight weeks while grinding was recorded."},
        {"label": "RESULTS", "text": "Grinding episodes fell from 6.1 to 3.2 per hour of sleep with the splint."},
        {"label": "CONCLUSIONS", "text": "Occlusal splints halve sleep bruxism episodes in adults."}]},
    {"id": "feno", "title": "PubMed 3", "sections": [
        {"label": "PURPOSE", "text": "We investigated whether fenofibrate lowers triglycerides in diabetic patients."},
        {"label": "METHODS", "text": "A randomised trial enrolled 300 diabetic patients for twelve months."},
        {"label": "RESULTS", "text": "Fenofibrate lowered triglycerides by 28 percent compared with placebo."},
        {"label": "CONCLUSION", "text": "Fenofibrate is an effective treatment for high triglycerides in diabetes."}]},
]  # fmt: skip


@pytest.fixture(scope="module")
def clinic(tmp_path_factory: pytest.TempPathFactory, minilm: object) -> Iterator[Assistant]:
    path = tmp_path_factory.mktemp("clinic") / "papers.jsonl"
    rows = [{**p, "abstract": " ".join(s["text"] for s in p["sections"])} for p in PAPERS]  # type: ignore[union-attr]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    settings = Settings(home=path.parent / "home", collection="clinic").replace(llm="extractive")
    build_index(settings, [path], embedder=minilm)  # type: ignore[arg-type]
    assistant = open_assistant(settings, embedder=minilm)  # type: ignore[arg-type]
    yield assistant
    assistant.close()


def _first(text: str) -> str:
    return split_sentences(text)[0]


def test_a_yes_no_question_is_answered_by_the_conclusion_not_the_aim(clinic: Assistant):
    answer = clinic.ask("Is bleeding after tonsillectomy more common at night?")
    assert _first(answer.text).startswith("Post-tonsillectomy bleeding happens mostly at night")
    assert "The aim of this study" not in answer.text
    assert "One question is whether" not in answer.text  # a sentence that is itself a question is never quoted
    assert [c.paper_id for c in answer.citations] == ["tons"]


def test_the_aim_is_quoted_when_the_question_asks_for_it(clinic: Assistant):
    answer = clinic.ask("What was the aim of the study of bleeding after tonsillectomy?")
    assert "The aim of this study was to determine" in answer.text


def test_a_quantity_question_leads_with_the_result_that_states_the_number(clinic: Assistant):
    answer = clinic.ask("By how much did fenofibrate lower triglycerides?")
    assert _first(answer.text).startswith("Fenofibrate lowered triglycerides by 28 percent")


def test_summaries_give_each_paper_its_finding(clinic: Assistant):
    answer = clinic.ask("Summarize the papers on sleep bruxism and triglycerides")
    lines = [line for line in answer.text.splitlines() if line.startswith("- ")]
    assert any("halve sleep bruxism" in line or "fell from 6.1 to 3.2" in line for line in lines)
    assert not any("To assess whether" in line or "We investigated whether" in line for line in lines)


def test_an_index_without_roles_falls_back_to_cues_and_position():
    text = "Sleep is important. We recruited 40 adults. We found that splints halve grinding. In conclusion, wear one."
    hit = Hit(Paper("p", "T", text), "p:0", text, 1.0)
    assert hit_roles(hit, split_sentences(text)) == [BACKGROUND, METHOD, RESULT, CONCLUSION]
    later = Hit(Paper("p", "T", text), "p:1", text, 1.0)  # a later window does not open with the background
    assert hit_roles(later, split_sentences(text))[0] != BACKGROUND
    assert analyse("Is it more common at night?").wants("yes_no")
