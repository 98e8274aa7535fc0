"""Thumbs up / down on answers, appended as one JSON object per line to <home>/feedback.jsonl.

Thread-safe within a process (one lock around each append); each record is written with a single
`write` call in append mode, so lines from concurrent processes do not interleave in practice.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

_LOCK = threading.Lock()


def feedback_path(home: Path) -> Path:
    return home / "feedback.jsonl"


def record_feedback(
    home: Path,
    question: str,
    answer_text: str,
    liked: bool,
    backend: str,
    cited_ids: Sequence[str],
) -> dict[str, Any]:
    """Append one feedback record and return it."""
    record: dict[str, Any] = {
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "question": question,
        "answer": answer_text,
        "liked": bool(liked),
        "backend": backend,
        "cited_ids": list(cited_ids),
    }
    line = json.dumps(record, ensure_ascii=False) + "\n"
    path = feedback_path(home)
    with _LOCK:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as fh:
            fh.write(line)
    return record


def read_feedback(home: Path) -> list[dict[str, Any]]:
    """All records so far (skipping a torn last line, if any)."""
    path = feedback_path(home)
    if not path.exists():
        return []
    out = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(raw))
        except json.JSONDecodeError:
            continue
    return out
