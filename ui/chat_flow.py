"""Turns from the Assistant's event stream, for the chat page and for the `/respond` API. No gradio here.

    run_turn(...)      -> Turn snapshots: searching, retrieved, streaming (at most every THROTTLE_S), final
    chat_updates(...)  -> (chat history, session state) for the page, the last message replaced as it grows
    api_updates(...)   -> (message HTML, API history, session state) for gradio_client callers

Errors become a ⚠ turn: a RagError says what went wrong in one line, anything else is logged with its traceback
and shown as GENERIC_ERROR.
"""

from __future__ import annotations

import sys
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from rag.answer.assistant import Assistant
from rag.errors import RagError
from rag.ports import Message
from rag.types import AnswerEvent, DeltaEvent, SourcesEvent
from ui.form_inputs import Options
from ui.message import View, render_message
from ui.turns import Turn, aid_in, conversation, new_aid, with_turn

GENERIC_ERROR = "Something went wrong while answering; the details are in the server log."
THROTTLE_S = 0.05  # streamed text is re-rendered at most this often (a long answer would be O(n^2) otherwise)


def run_turn(
    assistant: Assistant | None, question: str, history: list[Message], options: Callable[[], Options], aid: str,
    missing: str | None = None,
) -> Iterator[Turn]:  # fmt: skip
    turn = Turn(aid, question)
    if assistant is None:  # no index yet (ui.live_index): say so instead of answering from nothing
        yield replace(turn, error=f"Nothing to answer from: {missing or 'there is no index'}. The top of the page "
                                  "says how to index papers.")  # fmt: skip
        return
    try:
        opts = options()
        turn = replace(turn, filters=opts.filters.describe() if opts.filters else "", k_note=opts.k_note)
        yield turn
        events = assistant.ask_stream(question, history, llm=opts.llm, model=opts.model, k=opts.k,
                                      filters=opts.filters, summary=opts.summary)  # fmt: skip
        shown = 0.0
        for event in events:
            if isinstance(event, SourcesEvent):
                turn = replace(turn, standalone=event.standalone_question, hits=event.hits, searched=True)
                yield turn
            elif isinstance(event, DeltaEvent):
                turn = replace(turn, text=turn.text + event.text)
                if time.monotonic() - shown >= THROTTLE_S:
                    shown = time.monotonic()
                    yield turn
            elif isinstance(event, AnswerEvent):
                yield replace(turn, answer=event.answer, standalone=event.answer.standalone_question)
                return
    except RagError as exc:
        yield replace(turn, error=str(exc))
    except Exception:
        traceback.print_exc(file=sys.stderr)
        yield replace(turn, error=GENERIC_ERROR)


def _message(turn: Turn, view: View) -> dict[str, Any]:
    return {"role": "assistant", "content": render_message(turn, view)}


def chat_updates(
    assistant: Assistant | None, view: View, history: list[dict[str, Any]], state: dict[str, Any],
    options: Callable[[], Options], missing: str | None = None,
) -> Iterator[tuple[list[dict[str, Any]], dict[str, Any]]]:  # fmt: skip
    """The page's chat: `history` ends with the question (ui.session.start put it there and in state["ask"])."""
    question = state.get("ask")
    if not question:
        yield history, state
        return
    aid, state = new_aid({**state, "ask": None})
    past = conversation(history[:-1], state)
    for turn in run_turn(assistant, question, past, options, aid, missing):
        state = {**with_turn(state, turn), "pending": None if turn.done else aid}
        yield [*history, _message(turn, view)], state


def stop_turn(history: list[dict[str, Any]], state: dict[str, Any], view: View) -> tuple[list[Any], dict[str, Any]]:
    """Stop pressed: the answer being written keeps its text, marked stopped (incomplete), with its sources."""
    pending = next((t for t in (state or {}).get("turns") or [] if t.aid == (state or {}).get("pending")), None)
    if pending is None or pending.done:
        return history, state
    stopped = replace(pending, stopped=True)
    state = {**with_turn(state, stopped), "pending": None}
    at = next((i for i in range(len(history) - 1, -1, -1) if aid_in(history[i].get("content")) == stopped.aid), None)
    history = list(history)
    if at is None:
        history.append(_message(stopped, view))
    else:
        history[at] = _message(stopped, view)
    return history, state


def api_updates(
    assistant: Assistant | None, view: View, message: str, history: list[Message] | None,
    state: dict[str, Any] | None, options: Callable[[], Options], missing: str | None = None,
) -> Iterator[tuple[str, list[Message], dict[str, Any], Turn]]:  # fmt: skip
    """The `/respond` API: the message HTML as it grows; the session's plain-text history is kept by the caller."""
    history = list(history or [])
    aid, state = new_aid(state)
    turn = Turn(aid, message)
    for turn in run_turn(assistant, message, history, options, aid, missing):
        state = with_turn(state, turn)
        yield render_message(turn, view), history, state, turn
    history.append({"role": "user", "content": message})
    if turn.answer is not None:
        history.append({"role": "assistant", "content": turn.answer.text})
    yield render_message(turn, view), history, state, turn
