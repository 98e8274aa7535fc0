"""A conversation kept in the visitor's browser (gr.BrowserState: localStorage, per browser, never on the server),
so a reload does not lose it. No gradio here.

Only data is kept: each turn's question, what was retrieved and the verified answer. On restore the chat messages
and the sources panel are rendered again from it (ui.message, ui.cards escape every piece of text), so nothing
read back from the browser's storage reaches the page as HTML. The last SAVED_TURNS turns are kept; a paper's full
text (PDF sections) is left out, as the retrieved passages are what the page shows.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any, Union

from rag.types import Answer, Hit
from ui.message import View, render_message, user_message
from ui.turns import Turn, turns_of

SAVED_TURNS = 20
VERSION = 1
History = list[dict[str, Any]]


def _plain(value: Any) -> Any:
    """Dataclasses -> dicts, tuples -> lists: JSON-safe values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _slim(hit: Hit) -> Hit:
    return dataclasses.replace(hit, paper=dataclasses.replace(hit.paper, body=()))


def _for_storage(turn: Turn) -> Turn:
    answer = turn.answer
    if answer is not None:
        answer = dataclasses.replace(answer, sources=tuple(_slim(h) for h in answer.sources))
    hits = () if answer is not None else tuple(_slim(h) for h in turn.hits)  # an answer carries its own sources
    return dataclasses.replace(turn, answer=answer, hits=hits)


def dump(state: dict[str, Any] | None) -> dict[str, Any]:
    """What the browser keeps of a session: its finished turns (an empty list overwrites an older copy)."""
    turns = [t for t in turns_of(state) if t.done][-SAVED_TURNS:]
    return {"v": VERSION, "seq": int((state or {}).get("seq") or 0), "turns": [_plain(_for_storage(t)) for t in turns]}


def _build(kind: Any, value: Any) -> Any:
    """A value of type `kind` from its plain form (the inverse of _plain for the types a Turn holds)."""
    if value is None:
        return None
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin in (Union, types.UnionType):
        for option in (a for a in args if a is not type(None)):
            try:
                return _build(option, value)
            except (TypeError, ValueError, KeyError):
                continue
        raise ValueError(f"no type of {kind} fits")
    if origin is tuple:
        if not isinstance(value, list):
            raise TypeError("expected a list")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_build(args[0], v) for v in value)
        return tuple(_build(a, v) for a, v in zip(args, value, strict=True))
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        if not isinstance(value, dict):
            raise TypeError(f"expected an object for {kind.__name__}")
        hints = typing.get_type_hints(kind)
        names = {f.name for f in dataclasses.fields(kind) if f.init}
        return kind(**{k: _build(hints[k], v) for k, v in value.items() if k in names})
    if kind in (str, int, float, bool):
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise TypeError(f"expected {kind.__name__}")
    return value


def load(saved: Any, view: View) -> tuple[History, dict[str, Any]] | None:
    """(chat history, session state) rebuilt from what the browser kept; None when there is nothing usable."""
    if not isinstance(saved, dict) or saved.get("v") != VERSION or not isinstance(saved.get("turns"), list):
        return None
    turns: list[Turn] = []
    for item in saved["turns"][-SAVED_TURNS:]:
        try:
            turn = _build(Turn, item)
        except (TypeError, ValueError, KeyError):
            continue  # a turn that does not read back (an older shape) is left out, not the conversation
        if isinstance(turn, Turn) and (turn.answer is None or isinstance(turn.answer, Answer)):
            turns.append(turn)
    if not turns:
        return None
    history: History = []
    for turn in turns:
        history.append({"role": "user", "content": user_message(turn.question)})
        history.append({"role": "assistant", "content": render_message(turn, view)})
    seq = max([int(saved.get("seq") or 0)] + [int(t.aid[1:]) for t in turns if t.aid[1:].isdigit()])
    return history, {"turns": turns, "seq": seq}
