"""Questions researchers ask of their own library: who wrote what (authors are fields, matched against the
question's names, not words of the abstract) and what an abbreviation stands for (found in the text itself by the
Schwartz-Hearst algorithm). Over the real extractive assistant and an index of the bundled corpus."""

from __future__ import annotations

import pytest

from rag.adapters.fakes import ScriptedChatModel
from rag.answer.abstain import retrieval_refusal
from rag.answer.assistant import Assistant
from rag.answer.question import analyse
from rag.corpus.abbreviations import abbreviations
from rag.factory import open_assistant
from rag.retrieve.fields import author_match, name_words
from rag.settings import Settings


def _cited(answer: object) -> list[str]:
    return [c.paper_id for c in answer.citations]  # type: ignore[attr-defined]


def test_schwartz_hearst_finds_long_forms_before_and_after_the_parenthesis():
    text = ("We propose the Widget Alignment Loss (WAL), trained by mini-batch stochastic gradient descent (bSGD). "
            "Decision trees (DTs) help. Results on GLUE (General Language Understanding Evaluation) are shown. "
            "The data set (with noise) is large.")
    found = {(a.short, a.long) for a in abbreviations(text)}
    assert ("WAL", "Widget Alignment Loss") in found
    assert ("bSGD", "mini-batch stochastic gradient descent") in found
    assert ("DTs", "Decision trees") in found
    assert ("GLUE", "General Language Understanding Evaluation") in found
    assert not any(a.short == "with noise" or a.long == "with noise" for a in abbreviations(text))


def test_a_surname_in_the_question_is_a_field_match_not_a_word_match():
    assert "Malach" in name_words("What did Karchmer and Malach show?")
    assert author_match(name_words("What did Malach show?"), ("Ari Karchmer", "Eran Malach")) > 0
    assert author_match(name_words("What did Malach show?"), ("Eran Malachite",)) == 0
    full = author_match(name_words("Which paper is by Junxian He?"), ("Kashun Shum", "Junxian He"))
    surname = author_match(name_words("Which paper is by Junxian He?"), ("Run He", "Ziqian Zeng"))
    assert full > surname > 0


def test_an_authors_paper_is_not_refused_as_irrelevant(assistant: Assistant):
    question = analyse("What did Zilberg's paper introduce?")
    hits = assistant.retrieve(assistant.route(question.text, (), llm=None, model=None, summary=None), None, None)
    assert hits[0].paper.id == "icml2025-10"  # the author's paper leads the sources (an LLM sees it first)
    assert retrieval_refusal(question, hits, 0.99) is None  # whatever the similarity: the question names its author
    answer = assistant.ask("What did Zilberg's paper introduce?")
    assert not answer.abstained and _cited(answer)[0] == "icml2025-10" and "PieClam" in answer.text


@pytest.mark.parametrize(
    ("question", "reply", "kept"),
    [
        ("What did Zilberg's paper propose?", "Zilberg and Levie propose PieClam, a graph autoencoder that learns "
         "overlapping inclusive and exclusive communities [1].", True),
        ("Which paper did Eran Malach co-author?", "Eran Malach co-authored The Power of Random Features and the "
         "Limits of Distribution-Free Gradient Descent [1].", True),
        # the model names the wrong paper for the author: the check replaces its answer
        ("What did Zilberg's paper propose?", "Zilberg et al. propose SIMPLEMIX, which mixes on-policy and "
         "off-policy preference data [1].", False),
    ],
)
def test_an_author_question_reaches_the_llm_and_its_answer_is_checked(
    bundled_settings: Settings, question: str, reply: str, kept: bool
):
    fake = ScriptedChatModel([reply])
    a = open_assistant(bundled_settings.replace(llm="openai"), chat_model=fake)
    try:
        answer = a.ask(question)
    finally:
        a.close()
    assert fake.calls, "the question was refused before the model spoke"
    assert not answer.abstained
    assert (answer.text == reply) is kept, answer.text
    assert (answer.backend == "fake") is kept  # a replaced answer is the extractive one


def test_papers_by_an_author_are_listed_with_their_titles(assistant: Assistant):
    answer = assistant.ask("Which papers has Kornblith written?")
    assert not answer.abstained and set(_cited(answer)) == {"icml2025-06"}
    assert "Objective drives the consistency" in answer.text
    co = assistant.ask("Which paper was co-authored by Daniel Khashabi?")
    assert set(_cited(co)) == {"icml2025-08"} and "SIMPLEMIX" in co.text


def test_what_an_abbreviation_stands_for_quotes_its_defining_sentence_first(assistant: Assistant):
    answer = assistant.ask("What does SQGEF stand for?")
    assert answer.text.startswith("To this end, we propose a Segment Quadtree Geographical Embedding Framework")
    assert _cited(answer)[0] == "icml2025-09"
    long_form = assistant.ask("What is Exemplar-Free Class-Incremental Learning?")
    assert "(EFCIL)" in long_form.text.split("[")[0]  # the defining sentence leads


def test_a_publication_year_and_a_venue_limit_the_papers(assistant: Assistant):
    assert analyse("Which studies published since 2020 use satellites?").years == (2020, None)
    assert analyse("Which study used data from 2019?").years == (None, None)  # a year of the data, not the paper
    none = assistant.ask("Which papers from 2024 study continual learning?")
    assert none.abstained  # every bundled paper is from 2025
    counted = assistant.ask("How many papers at ICML study continual learning?")
    first = counted.text.splitlines()[0]
    assert first.endswith("papers considered address the question:") and int(first.split()[0]) >= 3
    assert {"icml2025-01", "icml2025-18"} <= set(_cited(counted))


def test_a_name_an_abstract_cites_is_not_taken_for_an_author(assistant: Assistant):
    # "Huang et al., 2024" is cited in the PreSelect abstract; a Huang also co-wrote another paper
    answer = assistant.ask("Which papers build on findings by Huang et al.?")
    assert "is by" not in answer.text


def test_abbreviations_are_stored_at_index_time_and_found_in_the_text_of_an_older_index(assistant: Assistant):
    from dataclasses import replace

    from rag.answer.definitions import definition
    from rag.index.records import paper_from_metadata, paper_metadata

    kds = assistant.retriever.paper("icml2025-05")
    assert kds is not None and ("KDS", "Kernel Divergence Score") in (kds.abbreviations or ())
    older = paper_from_metadata({k: v for k, v in paper_metadata(kds).items() if k != "abbreviations"}, kds.abstract)
    assert older.abbreviations is None  # written before they were stored
    question = analyse("What does KDS stand for?")
    hits = assistant.retrieve(assistant.route(question.text, (), llm=None, model=None, summary=None), None, None)
    for paper in (kds, older):
        found = definition(question, [replace(h, paper=paper) if h.paper.id == paper.id else h for h in hits])
        assert found is not None and found.sentence.startswith("To address this problem, we propose Kernel Divergence")


def test_what_an_authors_paper_is_about_is_said_by_its_title(assistant: Assistant):
    answer = assistant.ask("What is Boetius's paper about?")
    assert answer.text.startswith("Solving Probabilistic Verification Problems") and _cited(answer) == ["icml2025-17"]
