"""JSON Lines: one object a line, read line by line (a JSONL corpus may be several GB)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator

from rag.corpus.source_file import Source
from rag.corpus.text_io import FILTERED_OUT, Fields, Record, as_object
from rag.errors import CorpusError

_SURROGATE = re.compile(rb"\xed[\xa0-\xbf][\x80-\xbf]")  # U+D800..U+DFFF written as if it were a character
Convert = Callable[[dict[str, object]], Fields | str]


def line_or_reason(source: Source, raw: bytes, offset: int) -> tuple[str, str | None]:
    """(the line's text, None), or ("", why) for one record carrying an encoded lone surrogate (a broken DOI from an
    exporter): a bad record, not a bad file. A binary, UTF-16 or Latin-1 file is not read at all (CorpusError)."""
    try:
        return source.line_text(raw, offset), None
    except CorpusError:
        bad = _SURROGATE.search(raw)
        if bad is None:
            raise
        return "", f"not UTF-8 text (a lone surrogate at offset {offset + bad.start()})"


def json_lines(source: Source) -> Iterator[tuple[int, object | str, bool]]:
    """(line number, decoded value or why the line is not JSON, whether it decoded) for each non-blank line.
    A line that lacks one of `source.options.needles` is never decoded: it is yielded as FILTERED_OUT."""
    needles = tuple(n.encode("utf-8") for n in source.options.needles)
    for number, raw, offset in source.raw_lines():
        if needles and not all(n in raw.lower() for n in needles):
            if raw.strip():
                yield number, FILTERED_OUT, True
            continue
        line, bad = line_or_reason(source, raw, offset)
        if bad is not None:
            yield number, bad, False
            continue
        if not line.strip():
            continue
        try:
            yield number, json.loads(line), True
        except json.JSONDecodeError as e:
            yield number, f"invalid JSON ({e.msg})", False
        except RecursionError:
            yield number, "invalid JSON (nested too deeply)", False
        except ValueError as e:
            yield number, f"invalid JSON ({e})", False


def read_lines_as(source: Source, convert: Convert | None) -> Iterator[Record]:
    """Every line as a record, through `convert` (an outside format's fields -> ours) when given."""
    for number, value, ok in json_lines(source):
        if value is FILTERED_OUT or not ok:
            yield number, value  # type: ignore[misc]  # FILTERED_OUT or the reason
            continue
        obj = as_object(value)
        yield number, obj if isinstance(obj, str) or convert is None else convert(obj)


def read_jsonl(source: Source) -> Iterator[Record]:
    return read_lines_as(source, None)
