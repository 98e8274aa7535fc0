"""A JSON array of paper objects, decoded element by element so each one has a line number."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

from rag.corpus.text_io import Record, as_object, corpus_error, read_text

_JSON_SPACE_RE = re.compile(r"[ \t\n\r]*")


def read_json_array(path: Path) -> Iterator[Record]:
    """A JSON array of objects, decoded element by element so each one has a line number."""
    text = read_text(path)
    decoder = json.JSONDecoder()
    line, counted = 1, 0

    def skip(i: int) -> int:
        return _JSON_SPACE_RE.match(text, i).end()  # type: ignore[union-attr]  # always matches

    def where(i: int) -> str:
        nonlocal line, counted
        line, counted = line + text.count("\n", counted, i), i
        return f"{path}:{line}"

    i = skip(0)
    if i == len(text):
        return
    if text[i] != "[":
        raise corpus_error(f"{where(i)}: expected a JSON array of objects")
    i = skip(i + 1)
    while i < len(text) and text[i] != "]":
        start = where(i)
        try:
            value, end = decoder.raw_decode(text, i)
        except json.JSONDecodeError as e:
            raise corpus_error(f"{path}:{e.lineno}: invalid JSON ({e.msg})") from None
        except (ValueError, RecursionError) as e:
            raise corpus_error(f"{start}: invalid JSON ({e or 'nested too deeply'})") from None
        yield line, as_object(value)
        i = skip(end)
        if i < len(text) and text[i] == ",":
            i = skip(i + 1)
            if i < len(text) and text[i] == "]":
                raise corpus_error(f"{where(i)}: invalid JSON (trailing comma)")
        elif i < len(text) and text[i] != "]":
            raise corpus_error(f"{where(i)}: invalid JSON (expected ',' or ']')")
    if i >= len(text):
        raise corpus_error(f"{where(i)}: invalid JSON (unclosed array)")
    if skip(i + 1) != len(text):
        raise corpus_error(f"{where(i)}: invalid JSON (extra data)")
