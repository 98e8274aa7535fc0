"""Issue 36 items 3-5: lists decided paper by paper with how many papers were considered, recommendations that name
the paper first, and two-step questions that identify the paper by a property before answering from it alone."""

from __future__ import annotations

from rag.adapters.fakes import ScriptedChatModel
from rag.answer.assistant import Assistant
from rag.answer.paper_pick import two_step_parts
from rag.answer.question import analyse
from rag.factory import open_assistant
from rag.settings import Settings


def _cited(answer: object) -> list[str]:
    return [c.paper_id for c in answer.citations]  # type: ignore[attr-defined]


def test_question_forms_route_by_their_general_form_only():
    assert analyse("Is there a paper on graph autoencoders?").wants("recommendation")
    assert not analyse("Is there a paper on graph autoencoders?").wants("list")  # one paper, not a list
    assert analyse("Which paper should I read on continual learning?").wants("recommendation")
    assert analyse("Are there papers on graph autoencoders?").wants("list")  # plural: every paper
    assert analyse("Which of my papers use satellites?").wants("list")
    assert two_step_parts("The paper whose code is on GitHub: who wrote it?") == (
        "whose code is on GitHub",
        "who wrote it?",
    )
    assert two_step_parts("What is the paper about?") is None
    assert two_step_parts("The paper is good, isn't it?") is None  # no property given


def test_a_list_decides_each_paper_and_says_how_many_were_considered(assistant: Assistant):
    answer = assistant.ask("Which papers try to stop models from forgetting earlier tasks?")
    head, *lines = answer.text.splitlines()
    considered = len({h.paper.id for h in answer.sources})
    assert head == f"{len(lines)} of the {considered} papers considered address the question:"
    assert {"icml2025-13", "icml2025-16", "icml2025-18"} <= set(_cited(answer))  # recall first
    assert "icml2025-00" not in _cited(answer)  # the wells dataset does not address forgetting


def test_a_recommendation_names_the_paper_first_then_why(assistant: Assistant):
    answer = assistant.ask("Is there a paper about finding abandoned wells with satellite images?")
    title = "Alberta Wells Dataset: Pinpointing Oil and Gas Wells from Satellite Imagery"
    assert answer.text.startswith(f"{title}: ") and set(_cited(answer)) == {"icml2025-00"}
    assert not answer.abstained and not answer.unsupported
    why = assistant.ask("Can you recommend a paper about detecting dataset contamination in LLM benchmarks?")
    assert why.text.startswith("How Contaminated Is Your Benchmark?") and "we propose" in why.text  # what it does
    off_topic = assistant.ask("Is there a paper on sourdough bread baking?")
    assert off_topic.abstained


def test_a_two_step_question_answers_from_the_paper_the_property_identifies(assistant: Assistant):
    answer = assistant.ask(
        "The paper whose selection method trains only a fastText scorer: how much compute does it save?"
    )
    assert set(_cited(answer)) == {"icml2025-15"} and "PreSelect" in answer.text
    other = assistant.ask(
        "For the paper that studies superficial and essential forgetting, what does RegLoRA regularize?"
    )
    assert set(_cited(other)) == {"icml2025-13"} and "LoRA" in other.text


def test_the_llm_prompt_asks_for_the_same_forms_and_keeps_the_citation_rules(bundled_settings: Settings):
    title = "Alberta Wells Dataset: Pinpointing Oil and Gas Wells from Satellite Imagery"
    fake = ScriptedChatModel([f"{title}: the dataset comprises over 213,000 wells from Alberta [1]."])
    a = open_assistant(bundled_settings.replace(llm="openai"), chat_model=fake)
    answer = a.ask("Which paper should I read on finding abandoned oil wells?")
    system = fake.calls[0][0]["content"]
    assert "name the paper first by its title" in system and "Which papers" in system
    assert "ends with the number of the source" in system and "Never add numbers" in system  # citation rules kept
    assert _cited(answer) == ["icml2025-00"] and not answer.unsupported
