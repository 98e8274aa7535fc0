"""ui.saved (issue 24 item 9): what the browser keeps of a conversation, and what comes back from it.

A real answer makes the round trip whole; what comes back from the browser's storage is data, rendered again
(escaped), so an edited copy cannot put HTML into the page; a copy that does not read back costs nothing.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from rag.answer.assistant import Assistant
from ui.message import View, render_message
from ui.saved import SAVED_TURNS, dump, load
from ui.turns import Turn


def _turns(assistant: Assistant) -> list[Turn]:
    answer = assistant.ask("How many wells are in the Alberta dataset?")
    done = Turn("a1", answer.question, standalone=answer.standalone_question, hits=answer.sources, searched=True,
                text=answer.text, answer=answer)  # fmt: skip
    failed = Turn("a2", "<b>second</b>", error="the index is gone")
    return [done, failed, Turn("a3", "still streaming", text="Part")]


def test_a_conversation_comes_back_as_it_was(assistant: Assistant) -> None:
    turns = _turns(assistant)
    saved = json.loads(json.dumps(dump({"turns": turns, "seq": 3})))  # what localStorage holds: JSON
    assert [t["aid"] for t in saved["turns"]] == ["a1", "a2"]  # an unfinished answer is not kept
    history, state = load(saved, View()) or ([], {})
    back = state["turns"]
    answer = back[0].answer
    assert answer is not None and turns[0].answer is not None
    assert replace(answer, sources=()) == replace(turns[0].answer, sources=())
    assert [h.paper.id for h in answer.sources] == [h.paper.id for h in turns[0].answer.sources]
    assert back[1] == turns[1] and state["seq"] == 3
    assert history[1]["content"] == render_message(turns[0], View())  # the same message, rendered again
    assert history[2]["content"] == "&lt;b&gt;second&lt;/b&gt;"


def test_only_the_last_turns_are_kept(assistant: Assistant) -> None:
    done = _turns(assistant)[1]
    many = [replace(done, aid=f"a{i}") for i in range(1, 31)]
    saved = dump({"turns": many, "seq": 30})
    assert len(saved["turns"]) == SAVED_TURNS and saved["turns"][-1]["aid"] == "a30"


def test_an_edited_copy_puts_no_html_into_the_page(assistant: Assistant) -> None:
    saved: dict[str, Any] = json.loads(json.dumps(dump({"turns": _turns(assistant)[:1], "seq": 1})))
    item = saved["turns"][0]
    item["question"] = '<img src=x onerror="window.__xss=1">'
    item["answer"]["text"] = "<script>window.__xss=2</script> 213,000 wells [1]"
    item["answer"]["sources"][0]["paper"]["title"] = "<svg onload=window.__xss=3>"
    item["answer"]["sources"][0]["paper"]["url"] = "javascript:window.__xss=4"
    history, _ = load(saved, View()) or ([], {})
    page = " ".join(m["content"] for m in history)
    assert "<img" not in page and "<script" not in page and "<svg" not in page and "javascript:" not in page
    assert "&lt;script&gt;" in page


def test_a_copy_that_does_not_read_back_is_ignored(assistant: Assistant) -> None:
    good = json.loads(json.dumps(dump({"turns": _turns(assistant)[:2], "seq": 2})))
    broken = json.loads(json.dumps(good))
    broken["turns"][0]["answer"]["sources"] = "not a list"
    history, state = load(broken, View()) or ([], {})
    assert [t.aid for t in state["turns"]] == ["a2"]  # the turn that reads back stays
    for junk in (None, "x", [], {"v": 99, "turns": []}, {"v": 1, "turns": "no"}, {"v": 1, "turns": [{"aid": 3}]},
                 dump({})):  # fmt: skip
        assert load(junk, View()) is None
