"""Issue 24 item 8: the offline follow-up rewrite (rag/answer/followup.py) reads as a question a person would type,
and the UI shows "Searched for" only when the rewrite adds something.

Before: "Summarize these papers" after "Which paper saves parameters?" was searched as "Summarize the saves parameters
papers papers" (the verb taken for the topic, "these" replaced and "papers" kept), and "Who are its authors?" after
"How many wells are in the Alberta dataset?" as "Who are the many wells Alberta dataset paper's authors?".
The conversations below are made up over the bundled corpus's topics (dev material, not an evaluation set).
"""

from __future__ import annotations

import re

import pytest

from rag.answer.followup import offline_standalone, referent
from ui.message import searched
from ui.turns import Turn

CASES = [
    ("Which paper saves parameters?", "Summarize these papers", "Summarize the paper that saves parameters"),
    ("Which paper saves parameters?", "and which of them use adapters?",
     "and which of the paper that saves parameters use adapters?"),
    ("How many wells are in the Alberta dataset?", "Who are its authors?", "Who are the Alberta dataset's authors?"),
    ("What does the Alberta Wells Dataset contain?", "How was it collected?",
     "How was the Alberta Wells Dataset collected?"),
    ("Which paper evaluates AI agents replicating ICML papers?", "What is its main result?",
     "What is the main result of the paper that evaluates AI agents replicating ICML papers?"),
    ("Which paper evaluates AI agents replicating ICML papers?", "Does its benchmark need human grading?",
     "Does the benchmark need human grading (the paper that evaluates AI agents replicating ICML papers)?"),
    ("Summarize the continual learning papers", "and which of them use auxiliary classifiers?",
     "and which of the continual learning papers use auxiliary classifiers?"),
    ("Summarize the continual learning papers", "which of these papers saves parameters?",
     "which of the continual learning papers saves parameters?"),
    ("Summarize the continual learning papers", "Do they report parameter savings?",
     "Do the continual learning papers report parameter savings?"),
    ("Summarize the continual learning papers", "what about savings?",
     "what about savings (continual learning papers)?"),
    ("What does the Alberta Wells Dataset contain?", "Does the Alberta Wells Dataset also cover Saskatchewan?",
     "Does the Alberta Wells Dataset also cover Saskatchewan?"),
    ("What is the stability-plasticity dilemma?", "Which paper studies it?",
     "Which paper studies the stability-plasticity dilemma?"),
    ("Tell me about PaperBench", "Who built this benchmark?", "Who built the PaperBench?"),
    ("What papers do you have on graph autoencoders?", "Which of those use contrastive losses?",
     "Which of the graph autoencoders papers use contrastive losses?"),
]  # fmt: skip


@pytest.mark.parametrize(("previous", "follow_up", "expected"), CASES, ids=[f"{i}" for i in range(len(CASES))])
def test_a_follow_up_is_rewritten_into_a_question_a_person_would_type(
    previous: str, follow_up: str, expected: str
) -> None:
    rewritten = offline_standalone(follow_up, previous)
    assert rewritten == expected
    words = re.findall(r"[\w'-]+", rewritten.lower())
    assert not any(a == b for a, b in zip(words, words[1:], strict=False)), rewritten  # no "papers papers"


def test_the_referent_keeps_the_previous_questions_words_and_drops_its_scaffolding() -> None:
    assert referent("Which paper saves parameters?").phrase == "paper that saves parameters"
    assert referent("How many wells are in the Alberta dataset?").phrase == "Alberta dataset"
    assert referent("Summarize the continual learning papers").phrase == "continual learning papers"
    assert referent("Give me an overview of").phrase == ""


def test_searched_for_is_shown_only_when_the_rewrite_adds_words() -> None:
    def shown(question: str, standalone: str) -> bool:
        return bool(searched(Turn("a1", question, standalone=standalone)))

    assert shown("Who are its authors?", "Who are the Alberta dataset's authors?")
    assert not shown("Who are its authors?", "Who are the authors?")  # "its" -> "the": nothing added
    assert not shown("What is SimpleMix?", "what is simplemix")
    assert not shown("Which paper wins?", "Which papers win?")  # an inflection is no new word
    assert not shown("Which paper wins?", "")
