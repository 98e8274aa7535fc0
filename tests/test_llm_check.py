"""The LLM support check: one batched call per answer; it only adds flags; a failed call leaves the offline
verdicts, with a note; `auto` runs it for endpoint answers and never for a scripted fake or the packaged model."""

from __future__ import annotations

import json

from rag.adapters.fakes import ScriptedChatModel
from rag.factory import Chats, open_assistant
from rag.settings import Settings
from rag.verify.second_opinion import parse_verdicts

WELLS = "How many wells are in the Alberta dataset?"
ANSWER = (
    "The curated dataset comprises over 213,000 wells from Alberta [1]. "
    "The wells were identified with medium-resolution multi-spectral satellite imagery [1]."
)


def _verdicts(*supported: bool) -> str:
    return json.dumps({"claims": [{"id": i, "supported": s} for i, s in enumerate(supported, 1)]})


def test_parse_verdicts():
    assert parse_verdicts(_verdicts(True, False, True), 3) == frozenset({1})
    assert parse_verdicts("Sure! " + _verdicts(False) + " Hope this helps.", 1) == frozenset({0})
    assert parse_verdicts('{"claims": [{"id": 7, "supported": false}]}', 2) == frozenset()  # out of range: ignored
    assert parse_verdicts("no json here", 2) is None
    assert parse_verdicts('{"verdict": "fine"}', 2) is None


def test_llm_check_flags_what_the_offline_check_passed(bundled_settings: Settings):
    fake = ScriptedChatModel([ANSWER, _verdicts(True, False)])
    a = open_assistant(bundled_settings.replace(llm="openai", verify="llm"), chat_model=fake)
    answer = a.ask(WELLS)
    assert answer.checks == ("offline", "llm")
    assert len(answer.unsupported) == 1 and "satellite imagery" in answer.unsupported[0]
    flagged = [c for c in answer.sentence_checks if not c.supported]
    assert flagged[0].reason == "the LLM check found it unsupported"
    prompt = fake.calls[1][0]["content"]
    assert "213,000 wells" in prompt and "(cites: [1])" in prompt and "[1] Alberta Wells Dataset" in prompt


def test_an_unusable_llm_check_keeps_the_offline_verdicts_with_a_note(bundled_settings: Settings):
    fake = ScriptedChatModel([ANSWER, "I think they are all fine."])
    answer = open_assistant(bundled_settings.replace(llm="openai", verify="llm"), chat_model=fake).ask(WELLS)
    assert answer.checks == ("offline",) and answer.unsupported == ()
    assert any("not the JSON asked for" in n and "offline only" in n for n in answer.notes)


def test_offline_and_auto_with_a_fake_make_one_call(bundled_settings: Settings):
    for verify in ("offline", "auto"):
        fake = ScriptedChatModel([ANSWER])
        answer = open_assistant(bundled_settings.replace(llm="openai", verify=verify), chat_model=fake).ask(WELLS)
        assert len(fake.calls) == 1 and answer.checks == ("offline",), verify


def test_auto_judges_endpoints_and_user_models_but_not_the_packaged_one(bundled_settings: Settings):
    chats = Chats(bundled_settings)
    openai_like = ScriptedChatModel([], model="gpt")
    openai_like.backend = "openai"
    local = ScriptedChatModel([], model="local")
    local.backend = "local"
    assert chats.capable(openai_like) and not chats.capable(local)
    assert Chats(bundled_settings.replace(local_model_path="/models/qwen-7b.gguf")).capable(local)
    assert not chats.capable(ScriptedChatModel([]))
