"""What the chat's buttons do to a session, as plain functions of (chat history, session state). No gradio here.

start, retry, undo and clear keep the chat, the session's turns and with them the sources panel in step: a
turn whose message left the chat leaves the state too. The export functions read the verified answers only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rag.errors import RagError
from rag.export import bibtex_entries, cited_papers, conversation_markdown
from rag.types import Paper
from ui.cards import render_paper
from ui.evidence import closest, evidence
from ui.message import View, copy_text, user_message
from ui.turns import Turn, aid_in, answered, find, last_question, synced, turns_of

History = list[dict[str, Any]]
NOTHING_YET = "Ask a question first: there is no answer to copy yet."


def start(message: str | None, history: History | None, state: dict[str, Any] | None) -> tuple[History, dict]:
    """The question goes into the chat (shown literally) and into state["ask"] for the answer step."""
    question = (message or "").strip()
    if not question:
        return list(history or []), {**(state or {}), "ask": None}
    return [*(history or []), {"role": "user", "content": user_message(question)}], {**(state or {}), "ask": question}


def retry(history: History | None, state: dict[str, Any] | None) -> tuple[History, dict]:
    """Ask the last question again: its answer leaves the chat and the state."""
    last = last_question(history)
    if last is None:
        return list(history or []), {**(state or {}), "ask": None}
    kept = list(history or [])[: last[0] + 1]
    return kept, {**synced(state, kept), "ask": last[1]}


def undo(history: History | None, state: dict[str, Any] | None) -> tuple[History, dict, str]:
    """Take back the last question and its answer; the question returns to the input box."""
    last = last_question(history)
    if last is None:
        return list(history or []), dict(state or {}), ""
    kept = list(history or [])[: last[0]]
    return kept, {**synced(state, kept), "ask": None, "pending": None}, last[1]


def liked_turn(state: dict[str, Any] | None, value: Any) -> Turn | None:
    """The turn a thumbs up/down was given to (by the id in the message's HTML)."""
    if isinstance(value, dict):
        value = value.get("value") or value.get("content") or value.get("text")
    turn = find(state, aid_in(value))
    return turn if turn is not None and turn.answer is not None else None


def latest_copy(state: dict[str, Any] | None, view: View) -> str:
    done = [t for t in turns_of(state) if t.answer is not None]
    return copy_text(done[-1].answer, view) if done and done[-1].answer is not None else NOTHING_YET


def export_markdown(state: dict[str, Any] | None) -> str:
    """The whole conversation with each answer's references (rag.export.conversation_markdown)."""
    return conversation_markdown(answered(state))


def cited_bibtex(state: dict[str, Any] | None, lookup: Callable[[str], Paper | None]) -> str:
    """BibTeX of every paper the conversation's answers cite, once each, with its whole abstract."""
    papers = [p for a in answered(state) for p in cited_papers(a, lookup)]
    return bibtex_entries(papers) or "% none of the answers cites a paper yet\n"


def paper_dialog(lookup: Callable[[str], Paper | None], state: dict[str, Any] | None, data: dict[str, Any]) -> str:
    """The abstract dialog for a click on "Show abstract": by (answer id, source number) from a message or a
    card, its evidence marked; by paper id from the library."""
    paper_id, marks = str(data.get("paper_id") or "")[:256], []
    turn, n = find(state, str(data.get("aid") or "")), str(data.get("n") or "")
    if turn is not None and n.isdigit() and 1 <= int(n) <= len(turn.sources):
        paper_id = turn.sources[int(n) - 1].paper.id
        if turn.answer is not None:
            marks = evidence(turn.answer, int(n)) or closest(turn.answer, int(n))
    if not paper_id:
        return ""
    try:
        return render_paper(lookup(paper_id), paper_id, marks)
    except RagError as exc:  # a store error: say so in the dialog
        return render_paper(None, f"{paper_id} ({exc})")
