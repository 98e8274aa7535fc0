"""Load an evaluation question set: JSONL, one question object a line.

Fields: ``id`` and ``question`` (required, non-blank strings); ``type`` (string, default ``"untyped"``);
``gold`` (list of paper ids; absent or null: the question is not scored on retrieval/abstention, ``[]``: the
corpus cannot answer it); ``must_include`` and ``must_not_include`` (lists of strings, ``|`` separates
alternatives). Unknown fields are kept in ``extra`` and otherwise ignored. Blank lines are skipped.
A malformed line raises RagError naming the file and the line: ``questions.jsonl:12: invalid JSON ...``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rag.errors import RagError

__all__ = ["DEFAULT_QUESTIONS", "Question", "load_questions", "parse_question"]

DEFAULT_QUESTIONS = Path(__file__).resolve().parent / "sets" / "icml2025" / "dev.jsonl"
DEFAULT_TYPE = "untyped"
_KNOWN = frozenset({"id", "question", "type", "gold", "must_include", "must_not_include"})


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    type: str = DEFAULT_TYPE
    gold: tuple[str, ...] | None = None
    must_include: tuple[str, ...] = ()
    must_not_include: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False, repr=False)

    @property
    def answerable(self) -> bool | None:
        """True/False from ``gold``; None when gold is absent."""
        return None if self.gold is None else len(self.gold) > 0


class _Invalid(ValueError):
    """A field problem; the loader adds file and line."""


def _string(obj: dict[str, Any], name: str, *, required: bool, default: str | None = None) -> str:
    value = obj.get(name)
    if value is None:
        if required:
            raise _Invalid(f"missing required field '{name}'")
        return default or ""
    if not isinstance(value, str):
        raise _Invalid(f"field '{name}' must be a string, got {type(value).__name__}")
    if not value.strip():
        raise _Invalid(f"field '{name}' is blank")
    return value


def _strings(obj: dict[str, Any], name: str) -> tuple[str, ...] | None:
    value = obj.get(name)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _Invalid(f"field '{name}' must be a list of strings")
    return tuple(value)


def parse_question(obj: Any) -> Question:
    """One question from a decoded JSON value; ValueError with a one-line reason when it is invalid."""
    if not isinstance(obj, dict):
        raise _Invalid(f"expected a JSON object, got {type(obj).__name__}")
    return Question(
        id=_string(obj, "id", required=True).strip(),
        question=_string(obj, "question", required=True),
        type=_string(obj, "type", required=False, default=DEFAULT_TYPE).strip(),
        gold=_strings(obj, "gold"),
        must_include=_strings(obj, "must_include") or (),
        must_not_include=_strings(obj, "must_not_include") or (),
        extra={k: v for k, v in obj.items() if k not in _KNOWN},
    )


def load_questions(path: str | Path) -> list[Question]:
    """All questions of a JSONL file, in file order. RagError (file:line: reason) on the first bad line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise RagError(f"question file not found: {path}") from None
    except IsADirectoryError:
        raise RagError(f"question file {path} is a directory; give a .jsonl file") from None
    except UnicodeDecodeError as exc:
        raise RagError(f"question file {path} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise RagError(f"cannot read question file {path}: {exc.strerror or exc}") from None

    questions: list[Question] = []
    first_line: dict[str, int] = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RagError(f"{where}: invalid JSON: {exc.msg} (column {exc.colno})") from None
        try:
            q = parse_question(obj)
        except _Invalid as exc:
            raise RagError(f"{where}: {exc}") from None
        if q.id in first_line:
            raise RagError(f"{where}: duplicate id '{q.id}' (first used on line {first_line[q.id]})")
        first_line[q.id] = lineno
        questions.append(q)
    if not questions:
        raise RagError(f"question file {path} holds no questions")
    return questions
