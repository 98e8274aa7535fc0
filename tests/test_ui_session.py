"""The UI's session logic without gradio: turns in the state, start/retry/undo/stop, what a visitor may pick
(ui.form_inputs), the follow-up history, the exports, and the page's header, library and filter chip."""

from __future__ import annotations

from typing import Any

import pytest

from rag.errors import QuestionError
from rag.settings import Settings
from rag.types import SUPPORTED, Paper
from tests.test_ui_render import VIEW, answer, hit, paper, turn
from ui import session
from ui.chat_flow import stop_turn
from ui.form_inputs import capped_k, describe_filters, offered, read_options
from ui.message import render_message
from ui.page import IndexInfo, render_filter_chip, render_header, render_library
from ui.turns import Turn, conversation, with_turn


def chat_with(*turns: Turn) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    history: list[dict[str, Any]] = []
    state: dict[str, Any] = {}
    for t in turns:
        history += [{"role": "user", "content": f"{t.question} &lt;x&gt;"},
                    {"role": "assistant", "content": render_message(t, VIEW)}]  # fmt: skip
        state = with_turn(state, t)
    return history, state


def test_start_shows_the_question_literally_and_skips_blank_ones() -> None:
    history, state = session.start("<b>Why?</b>", [], {})
    assert history == [{"role": "user", "content": "&lt;b&gt;Why?&lt;/b&gt;"}] and state["ask"] == "<b>Why?</b>"
    assert session.start("   ", history, state) == (history, {**state, "ask": None})


def test_undo_and_retry_drop_the_turn_of_the_removed_answer() -> None:
    a1 = turn(answer("One [1].", [hit(paper("a"))], [1]), aid="a1")
    a2 = turn(answer("Two [1].", [hit(paper("b"))], [1]), aid="a2")
    history, state = chat_with(a1, a2)
    kept, after, question = session.undo(history, state)
    assert len(kept) == 2 and [t.aid for t in after["turns"]] == ["a1"] and question == "q? <x>"
    kept, after = session.retry(history, state)
    assert len(kept) == 3 and [t.aid for t in after["turns"]] == ["a1"] and after["ask"] == "q? <x>"
    assert session.undo([], {}) == ([], {}, "")


def test_follow_up_history_uses_verified_text_never_markup() -> None:
    a1 = turn(answer("A & B [1].", [hit(paper("a"))], [1]), aid="a1")
    failed = Turn("a2", "broken", error="the LLM endpoint is unreachable")
    history, state = chat_with(a1, failed)
    assert conversation(history, state) == [{"role": "user", "content": "q? <x>"},
                                            {"role": "assistant", "content": "A & B [1]."},
                                            {"role": "user", "content": "broken <x>"}]  # fmt: skip


def test_stop_marks_the_pending_turn_and_keeps_its_text() -> None:
    pending = Turn("a1", "q?", hits=(hit(paper()),), searched=True, text="Half an ans")
    history, state = chat_with(pending)
    history2, state2 = stop_turn(history, {**state, "pending": "a1"}, VIEW)
    assert "Stopped (incomplete)" in history2[-1]["content"] and "Half an ans" in history2[-1]["content"]
    assert state2["turns"][0].stopped and state2["pending"] is None
    assert stop_turn(history, {**state, "pending": None}, VIEW) == (history, {**state, "pending": None})


def test_exports_and_likes_read_the_verified_answers(settings: Settings) -> None:
    a1 = turn(answer("One [1].", [hit(paper("a", title="Alpha"))], [1]), aid="a1")
    history, state = chat_with(a1, Turn("a2", "x", error="failed"))
    md = session.export_markdown(state)
    assert md.startswith("# Conversation\n\n## q?") and "**References**" in md and "Alpha" in md
    bib = session.cited_bibtex(state, lambda pid: Paper(pid, "Alpha, whole", "The whole abstract."))
    assert bib.startswith("@misc{a,") and "The whole abstract." in bib
    assert session.cited_bibtex({}, lambda pid: None).startswith("% none")
    assert session.latest_copy(state, VIEW).startswith("One [1].")
    assert session.latest_copy({}, VIEW) == session.NOTHING_YET
    liked = session.liked_turn(state, [history[1]["content"]])
    assert liked is not None and liked.aid == "a1"
    assert session.liked_turn(state, history[3]["content"]) is None  # a failed answer takes no feedback


def test_paper_dialog_finds_the_paper_a_message_cited() -> None:
    from rag.types import SentenceCheck

    p = paper("a", abstract="Intro. The key sentence. End.")
    checks = (SentenceCheck("K [1].", (1,), SUPPORTED, evidence=((1, "The key sentence."),)),)
    _, state = chat_with(turn(answer("K [1].", [hit(p)], [1], sentence_checks=checks), aid="a1"))
    html = session.paper_dialog(lambda pid: p if pid == "a" else None, state, {"aid": "a1", "n": "1"})
    assert '<mark class="evidence">The key sentence.</mark>' in html
    assert "Paper not found" in session.paper_dialog(lambda pid: None, state, {"paper_id": "../etc/passwd"})
    assert session.paper_dialog(lambda pid: None, state, {"aid": "a9", "n": "x"}) == ""


def test_only_allowed_and_usable_backends_and_models_are_offered(settings: Settings) -> None:
    why = {"openai": "no OpenAI-compatible endpoint is configured", "local": "llama-cpp-python is not installed"}
    default = offered(settings, why.get)
    assert default.backends == ("auto",) and default.models == ("",) and default.hidden == ()
    s = settings.replace(ui_backends="extractive, openai, local", ui_models="big, small", model="small")
    c = offered(s, why.get)
    assert c.backends == ("extractive",) and c.models == ("small", "big")
    assert c.hidden_line() == f"openai: {why['openai']}; local: {why['local']}"
    o = read_options(c, s.retrieval.k, "", "", "", "", "", "", "", False)
    assert (o.llm, o.model, o.k, o.filters, o.summary) == ("extractive", "small", None, None, None)
    for backend, model in (("openai", ""), ("extractive", "huge")):
        with pytest.raises(QuestionError, match="not offered here"):
            read_options(c, s.retrieval.k, backend, model, 5, "", "", "", "", False)


@pytest.mark.parametrize(("typed", "k", "note"), [(99, 20, "20 sources, the most allowed here (asked for 99)"),
                                                  (0, 1, "1 source, the fewest possible (asked for 0)"),
                                                  (7, 7, ""), (5, None, "")])  # fmt: skip
def test_k_beyond_the_range_is_capped_and_said(settings: Settings, typed: int, k: int | None, note: str) -> None:
    c = offered(settings, lambda b: None)
    o = read_options(c, settings.retrieval.k, "", "", typed, "", "", "", "", False)
    assert (o.k, o.k_note) == (k, note)
    assert capped_k(99, c) == (20, "99 is out of range: capped at 20 (1 to 20)") and capped_k("x", c)[0] == 5


def test_filter_chip_describes_the_filters_or_the_mistake() -> None:
    assert describe_filters("2030", "", "", "") == ("year ≥ 2030", "")
    assert describe_filters("soon", "", "", "")[1] == "'Year from' must be a year, like 2024"
    assert "Filters: year ≥ 2030" in render_filter_chip("year ≥ 2030") and "Clear" in render_filter_chip("year ≥ 2030")
    assert render_filter_chip("") == "" and "⚠" in render_filter_chip("", "bad <year>")


def test_header_and_library_say_what_is_indexed() -> None:
    head = render_header(IndexInfo("papers", 19, "2026-12-03T14:23:05Z"))
    assert "Collection <b>papers</b> · 19 papers · indexed 2026-12-03" in head
    assert "index is empty" in render_header(IndexInfo("papers", 0, None))
    assert "did not finish" in render_header(IndexInfo("x<y", 5, None, stale=True)) and "x&lt;y" in render_header(
        IndexInfo("x<y", 5, None))
    lib = render_library([paper("a", title="<b>Alpha</b>", year=2024), paper("b", title="Beta")], total=3)
    assert lib.index("Beta") < lib.index("&lt;b&gt;Alpha") and "<b>Alpha" not in lib  # newest first, escaped
    assert 'data-paper-id="a"' in lib and 'href="https://arxiv.org/abs/a"' in lib and "Showing 2 of 3 papers" in lib


def test_the_factory_says_why_a_backend_cannot_answer(settings: Settings) -> None:
    from rag.factory import Chats

    chats = Chats(settings)
    assert chats.unavailable("extractive") is None and chats.unavailable("auto") is None
    assert "no OpenAI-compatible endpoint" in (chats.unavailable("openai") or "")
    assert Chats(settings.replace(openai_base_url="http://127.0.0.1:9/v1")).unavailable("openai") is None
    local = chats.unavailable("local")  # None on a machine with `make setup-local`
    assert local is None or "\n" not in local and len(local) < 120


def test_the_index_records_when_it_was_built(bundled_settings: Settings) -> None:
    import re

    from rag.factory import open_assistant
    from ui.startup import index_info

    assistant = open_assistant(bundled_settings.replace(llm="extractive"))
    try:
        info, papers = index_info(assistant, bundled_settings)
    finally:
        assistant.close()
    assert info.papers == 19 and len(papers) == 19 and info.collection == "papers"
    assert info.indexed_at and re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", info.indexed_at)
