"""One JSONL record per answered question, for later inspection. Never holds secrets."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from rag.types import Answer

_LOCK = threading.Lock()


def record(answer: Answer) -> dict[str, object]:
    return {"time": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **answer.to_record()}


def append(path: Path, answer: Answer) -> None:
    """Append one record; a failure to log never fails the answer."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps(record(answer), ensure_ascii=False)
        with _LOCK, path.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")
    except OSError:
        pass
