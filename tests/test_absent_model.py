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

OPTIMIZER = "Which optimizer trains the two networks of Dual-Arch?"  # a dev question (icml2025/dev_absent.jsonl)


def test_a_detail_the_close_papers_never_give_is_refused_with_the_closest_papers(assistant):
    answer = assistant.ask(OPTIMIZER)
    assert answer.abstained and answer.citations == () and answer.sources
    assert any("absent-detail model" in n for n in answer.notes)
    stated = assistant.ask("By what percentage is Dual-Arch more compact in parameters?")  # its look-alike: answered
    assert not stated.abstained and "87%" in stated.text


def test_an_llm_is_asked_and_an_optimizer_it_invents_is_replaced_by_the_refusal(bundled_settings: Settings):
    fake = ScriptedChatModel(["Dual-Arch trains both of its networks with AdamW [1]."])
    a = open_assistant(bundled_settings.replace(llm="openai"), chat_model=fake)
    answer = a.ask(OPTIMIZER)
    assert len(fake.calls) == 1  # no refusal before the model speaks
    assert answer.abstained and answer.backend == "extractive" and "AdamW" not in answer.text


def test_a_stored_model_with_other_features_is_refused_in_one_line():
    stored = json.loads(MODEL.read_text(encoding="utf-8"))
    with pytest.raises(ValueError, match="rerun make fit-absent"):
        model_from(stored | {"features": list(FEATURES[:-1])})
