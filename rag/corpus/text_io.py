"""Shared by every corpus reader: bytes -> text with clear errors, one-line messages, small names.

A reader, `Path -> Iterator[Record]`, turns a file into raw records: a line number and a dict of fields, or the
reason the record is unreadable. Problems with the whole file (binary, not UTF-8, ...) raise CorpusError.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from rag.errors import CorpusError

Fields = dict[str, object]
Record = tuple[int, Fields | str]  # (line number, fields) or (line number, why the record is bad)
# what a reader yields for a record it did not decode because it cannot pass the --where filter (counted, not read)
FILTERED_OUT: Fields = {"__filtered_out__": True}

_UNPRINTABLE_RE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
_JSON_TYPES = {list: "an array", str: "a string", int: "a number", float: "a number", bool: "a boolean"}


def _escaped(char: str) -> str:
    if "\udc80" <= char <= "\udcff":  # a byte of a file name that is not UTF-8 (Python's surrogateescape)
        return f"\\x{ord(char) - 0xDC00:02x}"
    return char.encode("unicode_escape").decode("ascii")


def one_line(message: str) -> str:
    """Escape control characters and line separators so a message stays on one line; a file name's bytes that
    are not UTF-8 read as `\\xe9`."""
    return _UNPRINTABLE_RE.sub(lambda m: _escaped(m.group()), message)


def shown(path: Path | str) -> str:
    """A path as text any output can carry: `caf\\xe9.jsonl` for a name whose byte 0xe9 is not UTF-8."""
    try:
        return os.fsencode(path).decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a lone surrogate that no file name can hold (a path typed in Python)
        return one_line(str(path))


def corpus_error(message: str) -> CorpusError:
    return CorpusError(one_line(message))


def json_kind(value: object) -> str:
    """How a JSON value is named in messages: "a string", "an array", "null"..."""
    return "null" if value is None else _JSON_TYPES.get(type(value), type(value).__name__)


def slugify(text: str) -> str:
    """File stem -> id prefix: lower case, other characters than a-z 0-9 _ become "-"."""
    return re.sub(r"[^a-z0-9_]+", "-", text.lower()).strip("-_")[:80].strip("-_") or "paper"


def check_bytes(path: Path, data: bytes, offset: int) -> None:
    if offset == 0 and data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise corpus_error(f"{path}: UTF-16 text; convert it to UTF-8")
    nul = data.find(b"\0")
    if nul >= 0:
        raise corpus_error(f"{path}: looks like a binary file (NUL byte at offset {offset + nul})")


def decode(path: Path, data: bytes, offset: int) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise corpus_error(
            f"{path}: not UTF-8 text (byte 0x{data[e.start]:02x} at offset {offset + e.start}); convert it to UTF-8"
        ) from None
    return text.removeprefix("\ufeff") if offset == 0 else text


def as_object(value: object) -> Fields | str:
    return value if isinstance(value, dict) else f"expected a JSON object, found {json_kind(value)}"
