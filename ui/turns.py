"""One chat session's answers, kept in its gr.State: a Turn per question, found again by the id its message carries.

A turn holds the question, what was searched for and retrieved, the text streamed so far and, once verified, the
Answer. Its chat message is `<div class="answer" id="a3">…</div>`, so a click, a like, an undo or a retry finds
the turn it belongs to, and every answer keeps its own sources. No gradio here.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

from rag.ports import Message
from rag.types import Answer, Hit

KEPT = 50  # turns per session (older ones lose their sources panel, copy text and feedback record)
_AID = re.compile(r'<div class="answer[^"]*" id="(a\d+)"')
_TAG = re.compile(r"<[^>]+>")


@dataclass(frozen=True)
class Turn:
    aid: str  # "a3": the id of the message in the page
    question: str
    standalone: str = ""  # what was searched for (the follow-up rewritten), once known
    hits: tuple[Hit, ...] = ()  # what was retrieved, once known
    searched: bool = False
    text: str = ""  # the raw text streamed so far (not verified)
    answer: Answer | None = None  # the verified answer
    error: str | None = None  # shown instead of an answer
    stopped: bool = False  # the reader pressed Stop: `text` is all there is
    filters: str = ""  # the active filters, described ("year ≥ 2030")
    k_note: str = ""  # "20 sources, the most allowed here (asked for 99)"

    @property
    def done(self) -> bool:
        return self.answer is not None or self.error is not None or self.stopped

    @property
    def sources(self) -> tuple[Hit, ...]:
        return self.answer.sources if self.answer is not None else self.hits


def turns_of(state: dict[str, Any] | None) -> list[Turn]:
    return list((state or {}).get("turns") or [])


def with_turn(state: dict[str, Any] | None, turn: Turn) -> dict[str, Any]:
    """A new state with `turn` replacing the turn of the same id, or appended (the oldest beyond KEPT dropped)."""
    turns = turns_of(state)
    at = next((i for i, t in enumerate(turns) if t.aid == turn.aid), None)
    if at is None:
        turns.append(turn)
    else:
        turns[at] = turn
    return {**(state or {}), "turns": turns[-KEPT:]}


def new_aid(state: dict[str, Any] | None) -> tuple[str, dict[str, Any]]:
    seq = int((state or {}).get("seq") or 0) + 1
    return f"a{seq}", {**(state or {}), "seq": seq}


def find(state: dict[str, Any] | None, aid: str | None) -> Turn | None:
    return next((t for t in turns_of(state) if t.aid == aid), None) if aid else None


def answered(state: dict[str, Any] | None) -> list[Answer]:
    return [t.answer for t in turns_of(state) if t.answer is not None]


def text_of(content: Any) -> str:
    """A chat message's content as a string (gradio may hand it back as a list of content blocks)."""
    if isinstance(content, list | tuple):
        return " ".join(text_of(c) for c in content)
    if isinstance(content, dict):
        return str(content.get("text") or content.get("value") or "")
    return content if isinstance(content, str) else ""


def aid_in(content: Any) -> str | None:
    m = _AID.search(text_of(content))
    return m.group(1) if m else None


def synced(state: dict[str, Any] | None, history: list[dict[str, Any]] | None) -> dict[str, Any]:
    """Only the turns whose message is still in the chat (after an undo, a retry or a clear)."""
    present = {aid_in(m.get("content")) for m in history or [] if m.get("role") == "assistant"}
    return {**(state or {}), "turns": [t for t in turns_of(state) if t.aid in present]}


def user_text(content: Any) -> str:
    """A user message as typed: the chat holds it escaped (ui.message.user_message)."""
    return html.unescape(text_of(content)).strip()


def conversation(history: list[dict[str, Any]] | None, state: dict[str, Any] | None) -> list[Message]:
    """The chat as plain-text messages for follow-up rewriting: each answer's verified text, never its markup.
    Failed and stopped answers are left out (their question stays)."""
    out: list[Message] = []
    for m in history or []:
        role, content = m.get("role"), m.get("content")
        if role == "user":
            text = user_text(content)
        elif role == "assistant":
            turn = find(state, aid_in(content))
            if turn is not None:
                text = turn.answer.text if turn.answer is not None and not turn.error else ""
            else:  # a message of another making: its text without markup
                text = html.unescape(_TAG.sub("", text_of(content))).strip()
                text = "" if text.startswith("⚠") else text
        else:
            continue
        if text:
            out.append({"role": role, "content": text})
    return out


def last_question(history: list[dict[str, Any]] | None) -> tuple[int, str] | None:
    """(index, text) of the last user message."""
    for i in range(len(history or []) - 1, -1, -1):
        if (history or [])[i].get("role") == "user":
            return i, user_text((history or [])[i].get("content"))
    return None
