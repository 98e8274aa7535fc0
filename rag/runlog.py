"""One JSONL record per answered question, for later inspection. Never holds secrets."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from rag.types import Answer

_LOCK = threading.Lock()


def record(answer: Answer) -> dict[str, object]:
    return {
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "question": answer.question,
        "standalone_question": answer.standalone_question,
        "mode": answer.mode,
        "hits": [h.paper.id for h in answer.sources],
        "cited": [c.paper_id for c in answer.citations],
        "abstained": answer.abstained,
        "unsupported": len(answer.unsupported),
        "removed_citations": answer.removed_citations,
        "complete": answer.complete,
        "backend": answer.backend,
        "model": answer.model,
        "prompt": answer.prompt,
        "usage": {"prompt_tokens": answer.usage.prompt_tokens, "completion_tokens": answer.usage.completion_tokens},
        "latency_s": round(answer.latency_s, 4),
        "notes": list(answer.notes),
    }


def append(path: Path, answer: Answer) -> None:
    """Append one record; a failure to log never fails the answer."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps(record(answer), ensure_ascii=False)
        with _LOCK, path.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")
    except OSError:
        pass
