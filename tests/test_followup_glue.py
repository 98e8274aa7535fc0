"""Issue 37 item 5: a follow-up borrows a noun phrase of the previous question only when it is one, and never
from a question that was refused (rag/answer/followup.py).

Before: "What is the boiling point of liquid nitrogen on Mars according to these papers?" asked after "and which of
them saves parameters?" was searched as "... according to the saves parameters papers?" (the verb phrase glued in
as if it named the papers), and "Summarize these papers" after that question was refused became "Summarize the
Mars papers" and summarised PaperBench. The other conversations are made up over the bundled corpus's topics with
the same two shapes (dev material, not an evaluation set).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.adapters.fakes import ScriptedChatModel
from rag.answer.assistant import Assistant
from rag.answer.citations import REFUSAL
from rag.answer.followup import condense, offline_standalone
from rag.ports import Message

PROMPTS = Path(__file__).resolve().parent.parent / "prompts"
MARS = "What is the boiling point of liquid nitrogen on Mars according to these papers?"

# the previous question names no paper, topic or thing of its own: what it has besides "them" is its verb phrase
VERB_LED = [
    ("and which of them saves parameters?", MARS),
    ("Which of those reduces memory?", "Summarize these papers"),
    ("Do any of them outperform full fine-tuning?", "Which of these use adapters?"),
    ("Which of them were trained without labels?", "Summarize them"),
    ("Does either of them require labelled data?", "What about their datasets?"),
    ("How was it collected?", "Who are its authors?"),
    ("and who evaluated it?", "Which of them use adapters?"),
]  # fmt: skip


@pytest.mark.parametrize(("previous", "follow_up"), VERB_LED, ids=[f"{i}" for i in range(len(VERB_LED))])
def test_a_verb_phrase_of_the_previous_question_is_not_borrowed(previous: str, follow_up: str) -> None:
    assert offline_standalone(follow_up, previous) == follow_up


def test_a_relative_question_after_a_conjunction_still_names_its_own_noun() -> None:
    # "and which paper saves parameters?" has a noun ("paper") the verb phrase belongs to: a relative clause
    assert offline_standalone("Summarize these papers", "and which paper saves parameters?") == (
        "Summarize the paper that saves parameters"
    )


def _conversation(*turns: tuple[str, str]) -> list[Message]:
    out: list[Message] = []
    for question, answer in turns:
        out += [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]
    return out


ANSWERED = "Dual-Arch reduces the parameter count [1]."

# the previous question was refused: nothing is borrowed from it (and nothing answered came before it)
REFUSED = [
    ("What is the boiling point of liquid nitrogen on Mars?", "Summarize these papers"),
    (MARS, "Summarize these papers"),
    ("Which paper measures the speed of light in Kyoto?", "Who are its authors?"),
    ("Tell me about the Hubble Deep Field", "Which of them use adapters?"),
    ("What does the Voyager probe dataset contain?", "How was it collected?"),
    ("Summarize the protein folding papers", "Do they report parameter savings?"),
]  # fmt: skip


@pytest.mark.parametrize(("refused", "follow_up"), REFUSED, ids=[f"{i}" for i in range(len(REFUSED))])
def test_nothing_is_borrowed_from_a_refused_question(refused: str, follow_up: str) -> None:
    history = _conversation((refused, REFUSAL))
    assert condense(follow_up, history, None, PROMPTS)[0] == follow_up
    # the same words borrowed when the question was answered: the refusal is what stops it
    assert condense(follow_up, _conversation((refused, ANSWERED)), None, PROMPTS)[0] != follow_up


def test_a_follow_up_after_a_refusal_refers_to_the_last_answered_question() -> None:
    history = _conversation(("Summarize the continual learning papers", ANSWERED), (MARS, REFUSAL))
    assert condense("Summarize these papers", history, None, PROMPTS)[0] == "Summarize the continual learning papers"


def test_a_follow_up_of_a_follow_up_refers_to_what_the_previous_one_was_searched_for() -> None:
    history = _conversation(
        ("Summarize the continual learning papers", ANSWERED), ("and which of them saves parameters?", ANSWERED)
    )
    assert condense(MARS, history, None, PROMPTS)[0] == (
        "What is the boiling point of liquid nitrogen on Mars according to the continual learning papers?"
    )


def test_the_llm_rewriting_a_follow_up_is_not_shown_a_refused_exchange() -> None:
    chat = ScriptedChatModel(["Summarize the continual learning papers"])
    history = _conversation(("Summarize the continual learning papers", ANSWERED), (MARS, REFUSAL))
    assert condense("Summarize these papers", history, chat, PROMPTS)[0] == "Summarize the continual learning papers"
    prompt = chat.calls[0][0]["content"]
    assert "continual learning" in prompt and "Mars" not in prompt and REFUSAL not in prompt
    # only refused exchanges before it: nothing to rewrite from, and the LLM is not asked
    chat = ScriptedChatModel(["Summarize the Mars papers"])
    assert condense("Summarize these papers", _conversation((MARS, REFUSAL)), chat, PROMPTS)[0] == (
        "Summarize these papers"
    )
    assert chat.calls == []


def test_the_findings_conversation_with_the_real_assistant(assistant: Assistant) -> None:
    """The finding's conversation over the bundled corpus: the refused question is searched without glue, and the
    summary after it is of the continual learning papers, not of PaperBench (icml2025-03)."""
    history: list[Message] = []
    answers = []
    for question in ("Summarize the continual learning papers", "and which of them saves parameters?", MARS,
                     "Summarize these papers"):  # fmt: skip
        answer = assistant.ask(question, history)
        answers.append(answer)
        history += [{"role": "user", "content": question}, {"role": "assistant", "content": answer.text}]
    mars, summary = answers[2], answers[3]
    assert "saves parameters papers" not in mars.standalone_question and mars.abstained
    assert "Mars" not in summary.standalone_question and not summary.abstained
    assert "continual learning" in summary.standalone_question
    cited = {c.paper_id for c in summary.citations}
    assert "icml2025-03" not in cited and "icml2025-18" in cited
