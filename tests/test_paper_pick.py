"""Issue 36 items 3-5: lists decided paper by paper with how many papers were considered, recommendations that name
the paper first, and two-step questions that identify the paper by a property before answering from it alone."""

from __future__ import annotations

import re
from dataclasses import replace

from rag.adapters.fakes import ScriptedChatModel
from rag.answer.assistant import Assistant
from rag.answer.citations import REFUSAL
from rag.answer.list_keep import FEATURES, Candidate, Model, features, keep, stored
from rag.answer.paper_lines import paper_list
from rag.answer.paper_pick import two_step_parts
from rag.answer.question import analyse
from rag.answer.sentence_scores import Scored
from rag.errors import LLMError
from rag.factory import open_assistant
from rag.settings import Settings
from rag.types import Hit, Paper


def _cited(answer: object) -> list[str]:
    return [c.paper_id for c in answer.citations]  # type: ignore[attr-defined]


def test_question_forms_route_by_their_general_form_only():
    assert analyse("Is there a paper on graph autoencoders?").wants("recommendation")
    assert not analyse("Is there a paper on graph autoencoders?").wants("list")  # one paper, not a list
    assert analyse("Which paper should I read on continual learning?").wants("recommendation")
    assert analyse("Are there papers on graph autoencoders?").wants("list")  # plural: every paper
    assert analyse("Which of my papers use satellites?").wants("list")
    # a request for all of them, however it is phrased: "list every ...", "name all ...", "what work in my library"
    assert analyse("List every paper that deals with graph autoencoders.").wants("list")
    assert analyse("Name all the studies on satellites, please.").wants("list")
    assert analyse("What work in my library uses satellites?").wants("list")
    # the plural asked for with a determiner, and what the library holds on a topic
    assert analyse("Show me the articles that measure methane leaks.").wants("list")
    assert analyse("All papers reporting a speed-up over the baseline.").wants("list")
    assert analyse("What do I have on wildfire smoke?").wants("list")
    assert analyse("Do we have anything about tokenizers?").wants("list")
    assert analyse("What in our library concerns protein design?").wants("list")
    assert not analyse("What do the authors have in common with BERT?").wants("list")
    assert not analyse("What work is there on satellites?").wants("list")  # an overview: a summary
    assert not analyse("What does each paper propose?").wants("list")
    assert two_step_parts("The paper whose code is on GitHub: who wrote it?") == (
        "whose code is on GitHub",
        "who wrote it?",
    )
    assert two_step_parts("What is the paper about?") is None
    assert two_step_parts("The paper is good, isn't it?") is None  # no property given


def test_a_list_decides_each_paper_and_says_how_many_were_considered(assistant: Assistant):
    answer = assistant.ask("Which papers tackle catastrophic forgetting?")
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


def _hit(n: int, fused: float, cosine: float) -> Hit:
    paper = Paper(id=f"p{n}", title=f"Paper {n}", abstract="x")
    return Hit(paper=paper, chunk_id=f"p{n}#0", text="x", score=fused, dense_score=cosine)


def _model(feature: str, at_least: float) -> Model:
    """A list model that keeps a paper when one feature reaches `at_least` (the others weigh nothing)."""
    weights = tuple(10.0 if f == feature else 0.0 for f in FEATURES)
    return Model((0.0,) * len(FEATURES), (1.0,) * len(FEATURES), weights, -10.0 * at_least, 0.5)


def test_each_listed_paper_is_decided_on_its_own_by_the_list_model():
    hits = [_hit(1, 1.0, 0.50), _hit(2, 0.7, 0.40), _hit(3, 0.3, 0.45), _hit(4, 0.9, 0.10)]
    scored = [Scored(1, 0, "We propose A.", 0.9), Scored(2, 0, "B does it.", 0.8), Scored(3, 0, "C too.", 0.7),
              Scored(4, 0, "D as well.", 0.75), Scored(2, 1, "We introduce the B method.", 0.6)]  # fmt: skip
    head, *lines = paper_list(scored, hits, floor=0.2, model=_model("fused_rel", 0.6)).splitlines()
    assert head == "3 of the 4 papers considered address the question:"  # paper 3: fused 0.3 of the best
    assert lines == ["- Paper 1: We propose A. [1]", "- Paper 2: We introduce the B method. [2]",  # what B does
                     "- Paper 4: D as well. [4]"]  # fmt: skip
    head, *lines = paper_list(scored, hits, floor=0.2, model=_model("above_floor", 0.0)).splitlines()
    assert head.startswith("3 of the 4") and "Paper 4" not in "".join(lines)  # paper 4: below the floor


def test_the_stored_list_model_keeps_a_paper_strong_on_every_signal_and_drops_one_weak_on_all():
    papers = [Candidate(0.6, 1.0, 1.2, 0.6, "Dark matter limits", "We constrain dark matter with KIMS."),
              Candidate(0.15, 0.1, 0.4, 0.15, "Stock markets", "We study stock returns."),
              Candidate(0.3, 0.5, 0.8, 0.3, "Other", "Something else entirely.")]  # fmt: skip
    rows = features("Which papers constrain dark matter?", papers, floor=0.18)
    assert rows[0]["title_terms"] > 0 and rows[1]["title_terms"] == 0  # the question's rare words in the title
    assert keep("Which papers constrain dark matter?", papers, 0.18)[:2] == [True, False]
    assert set(stored().weights) and len(stored().weights) == len(FEATURES)


def test_a_list_the_model_rejects_entirely_still_names_a_paper_rather_than_refusing():
    hits = [_hit(1, 1.0, 0.19), _hit(2, 0.5, 0.12)]  # the best sentence is in a paper below the floor
    scored = [Scored(2, 0, "B answers.", 0.9), Scored(1, 0, "A barely.", 0.5)]
    nothing = Model((0.0,) * len(FEATURES), (1.0,) * len(FEATURES), (0.0,) * len(FEATURES), -10.0, 0.5)
    assert paper_list(scored, hits, floor=0.18, model=nothing).splitlines() == [
        "1 of the 2 papers considered addresses the question:", "- Paper 1: A barely. [1]"]  # fmt: skip


def test_a_list_no_paper_is_on_topic_for_is_refused_unless_its_metadata_chose_the_papers():
    hits = [_hit(1, 1.0, 0.5), _hit(2, 0.7, 0.4)]  # both well above the floor, and neither mentions speech
    hits = [replace(h, text="We propose continual learning for image classifiers.") for h in hits]
    scored = [Scored(1, 0, "We propose A.", 0.9), Scored(2, 0, "B does it.", 0.8)]
    cut = replace(_model("fused_rel", 0.6), cut=0.5)
    question = "Which papers apply continual learning to automatic speech recognition?"
    assert paper_list(scored, hits, 0.2, question=question, model=cut) == REFUSAL
    assert paper_list(scored, hits, 0.2, question=question, model=cut, chosen_by_metadata=True).startswith("2 of")
    on_topic = "Which papers propose continual learning for image classifiers?"
    assert paper_list(scored, hits, 0.2, question=on_topic, model=cut).startswith("2 of the 2")


def test_an_llm_list_in_the_prompted_form_is_checked_line_by_line(bundled_settings: Settings):
    def reply(messages):  # the scripted model answers in the form rule 7 asks for, from the numbered sources
        user = messages[-1]["content"]
        if "Sources:" not in user:  # the second opinion's prompt: no judge in this test
            raise LLMError("no second opinion here")
        n = {pid: re.search(rf"\[(\d+)\] {re.escape(title)}", user).group(1) for pid, title in TITLES.items()}
        return (
            "2 of the sources address the question:\n"
            f"- {TITLES['icml2025-13']}: we propose RegLoRA to mitigate essential forgetting [{n['icml2025-13']}]\n"
            f"- {TITLES['icml2025-18']}: catastrophic forgetting remains a major challenge [{n['icml2025-18']}]"
        )

    fake = ScriptedChatModel(reply)
    answer = open_assistant(bundled_settings.replace(llm="openai"), chat_model=fake).ask(
        "Which papers deal with catastrophic forgetting?"
    )
    assert "decide for each source on its own" in fake.calls[0][0]["content"]
    assert set(_cited(answer)) == {"icml2025-13", "icml2025-18"} and not answer.unsupported  # the head is no claim
    assert answer.checked_sentences == 2


TITLES = {
    "icml2025-13": "SEFE: Superficial and Essential Forgetting Eliminator for Multimodal Continual Instruction Tuning",
    "icml2025-18": "Improving Continual Learning Performance and Efficiency with Auxiliary Classifiers",
}


def test_a_list_question_of_several_parts_keeps_each_papers_best_sentence():
    hits = [_hit(1, 1.0, 0.5)]
    scored = [Scored(1, 1, "A guarantees a bound on Type I error.", 0.9), Scored(1, 0, "We propose A.", 0.7)]
    assert paper_list(scored, hits, 0.2).splitlines()[1] == "- Paper 1: We propose A. [1]"
    assert paper_list(scored, hits, 0.2, one_part=False).splitlines()[1] == (
        "- Paper 1: A guarantees a bound on Type I error. [1]"
    )
