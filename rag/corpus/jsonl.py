"""JSON Lines: one paper object a line, read line by line (a JSONL corpus may be large)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from rag.corpus.text_io import Record, as_object, check_bytes, decode


def read_jsonl(path: Path) -> Iterator[Record]:
    with path.open("rb") as f:
        offset = 0
        for number, raw in enumerate(f, 1):
            check_bytes(path, raw, offset)
            line = decode(path, raw, offset)
            offset += len(raw)
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as e:
                yield number, f"invalid JSON ({e.msg})"
            except RecursionError:
                yield number, "invalid JSON (nested too deeply)"
            except ValueError as e:
                yield number, f"invalid JSON ({e})"
            else:
                yield number, as_object(value)
