"""Issue 36 item 7: a question close to the papers that asks a detail none of them gives is refused by the learned
absent-detail model (rag.answer.absent_model) after the extractive answer's own rules, with the closest papers; an
LLM is still asked first (the replay gates count refusals before it speaks against it) and an answer it invents for
such a question is replaced by the extractive answer's refusal. Over the bundled corpus."""

from __future__ import annotations

import json

import pytest

from rag.adapters.fakes import ScriptedChatModel
from rag.answer.absent_model import FEATURES, MODEL, model_from
from rag.factory import open_assistant
from rag.settings import Settings

# dev questions (icml2025/dev_absent.jsonl): a detail the Alberta Wells abstract never gives, and its look-alike
RESOLUTION = (
    "What ground resolution, in metres per pixel, does the Planet Labs imagery of the Alberta Wells Dataset have?"
)
PROVIDER = "Which provider's satellite imagery does the Alberta Wells Dataset use?"


def test_a_detail_the_close_papers_never_give_is_refused_with_the_closest_papers(assistant):
    answer = assistant.ask(RESOLUTION)
    assert answer.abstained and answer.citations == () and answer.sources[0].paper.id == "icml2025-00"
    assert any("absent-detail model" in n for n in answer.notes)
    stated = assistant.ask(PROVIDER)  # its look-alike is not refused (which sentence answers is not this model's call)
    assert not stated.abstained and stated.citations[0].paper_id == "icml2025-00"


def test_an_llm_is_asked_and_a_resolution_it_invents_is_replaced_by_the_refusal(bundled_settings: Settings):
    fake = ScriptedChatModel(["The Planet Labs imagery has a ground resolution of 3 metres per pixel [1]."])
    a = open_assistant(bundled_settings.replace(llm="openai"), chat_model=fake)
    answer = a.ask(RESOLUTION)
    assert len(fake.calls) == 1  # no refusal before the model speaks
    assert answer.abstained and answer.backend == "extractive" and "3 metres" not in answer.text


def test_a_stored_model_with_other_features_is_refused_in_one_line():
    stored = json.loads(MODEL.read_text(encoding="utf-8"))
    with pytest.raises(ValueError, match="rerun make fit-absent"):
        model_from(stored | {"features": list(FEATURES[:-1])})
