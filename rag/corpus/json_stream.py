"""JSON read incrementally, one value at a time, with the line each value starts on.

A JSON array of a million papers, or an API page `{"meta": ..., "results": [...]}`, is read block by block:
only the value being decoded (one paper) and one block of text are held. Values are decoded with the standard
library's decoder (`raw_decode`); this module only walks the outer array or object between them. An incremental
parser such as ijson would do the walking too, but it reports no positions, and every message here names
`file:line`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

from rag.corpus.text_io import corpus_error
from rag.errors import CorpusError

MAX_VALUE_CHARS = 64 << 20  # one paper bigger than this is not a paper: refuse it rather than read on
_SPACE_RE = re.compile(r"[ \t\n\r]*")
_COMPACT_AT = 1 << 18


class JsonStream:
    def __init__(self, path: Path, blocks: Iterator[str]) -> None:
        self.path = path
        self._blocks = blocks
        self.buf = ""
        self.pos = 0
        self.eof = False
        self._line = 1  # line number at buf[_counted]
        self._counted = 0
        self.reads = 0  # values decoded or arrays entered: how `members` knows whether its caller read a value

    # -- the buffer -----------------------------------------------------------------------------------------
    def _fill(self, compact: bool = False) -> bool:
        """Append the next block; with `compact` (only between values, where no position is held) first drop
        the text already consumed."""
        if self.eof:
            return False
        block = next(self._blocks, None)
        if block is None:
            self.eof = True
            return False
        if compact:
            self._drop_before(self.pos)
        self.buf += block
        return True

    def _drop_before(self, i: int) -> int:
        """Forget the text before position `i` once there is enough of it; returns where `i` now is."""
        if i <= _COMPACT_AT:
            return i
        self.line_at(i)
        self.buf, self._counted = self.buf[i:], self._counted - i
        self.pos -= i
        return 0

    def line_at(self, i: int) -> int:
        if i < self._counted:  # only happens for positions already passed; recount from the buffer start
            return self._line - self.buf.count("\n", i, self._counted)
        self._line += self.buf.count("\n", self._counted, i)
        self._counted = i
        return self._line

    def where(self, i: int | None = None) -> str:
        return f"{self.path}:{self.line_at(self.pos if i is None else i)}"

    def error(self, reason: str, i: int | None = None) -> CorpusError:
        return corpus_error(f"{self.where(i)}: invalid JSON ({reason})")

    # -- tokens ---------------------------------------------------------------------------------------------
    def peek(self) -> str:
        """The next character that is not whitespace ("" at the end of the file); the position moves to it."""
        while True:
            self.pos = _SPACE_RE.match(self.buf, self.pos).end()  # type: ignore[union-attr]  # always matches
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self._fill(compact=True):
                return ""

    def take(self, char: str) -> bool:
        if self.peek() == char:
            self.pos += 1
            return True
        return False

    def value(self) -> tuple[int, object]:
        """Decode the value that starts at the next character: (its line, the value)."""
        self.peek()
        self.reads += 1
        start = self.pos
        line = self.line_at(start)
        decoder = json.JSONDecoder()
        while True:
            try:
                value, end = decoder.raw_decode(self.buf, start)
            except json.JSONDecodeError as e:
                at = line + self.buf.count("\n", start, e.pos)
                cut_short = e.pos >= len(self.buf) - 16 or e.msg.startswith("Unterminated string")
                if cut_short and len(self.buf) - start < MAX_VALUE_CHARS:
                    start = self._drop_before(start)
                    if self._fill():
                        continue
                if len(self.buf) - start >= MAX_VALUE_CHARS:
                    raise corpus_error(
                        f"{self.path}:{line}: a JSON value larger than {MAX_VALUE_CHARS >> 20} MB"
                    ) from None
                raise corpus_error(f"{self.path}:{at}: invalid JSON ({e.msg})") from None
            except RecursionError:
                raise corpus_error(f"{self.path}:{line}: invalid JSON (nested too deeply)") from None
            except ValueError as e:
                raise corpus_error(f"{self.path}:{line}: invalid JSON ({e})") from None
            if end >= len(self.buf):  # a number at the end of a block may go on in the next
                start = self._drop_before(start)
                if self._fill():
                    continue
                end = len(self.buf)
            self.pos = end
            return line, value

    # -- structures -----------------------------------------------------------------------------------------
    def items(self) -> Iterator[tuple[int, object]]:
        """The elements of the array that starts at the next character, each with its line."""
        if not self.take("["):
            raise corpus_error(f"{self.where()}: expected a JSON array of objects")
        self.reads += 1
        if self.take("]"):
            return
        while True:
            yield self.value()
            c = self.peek()
            if c == ",":
                self.pos += 1
                if self.peek() == "]":
                    raise self.error("trailing comma")
            elif c == "]":
                self.pos += 1
                return
            elif c == "":
                raise self.error("unclosed array")
            else:
                raise self.error("expected ',' or ']'")

    def members(self) -> Iterator[str]:
        """The keys of the object that starts at the next character. After each key the stream stands at its
        value: the caller reads it (`value`, `items`) or leaves it to be skipped."""
        if not self.take("{"):
            raise corpus_error(f"{self.where()}: expected a JSON object")
        if self.take("}"):
            return
        while True:
            if self.peek() != '"':
                raise self.error("expected a property name")
            _, key = self.value()
            if not self.take(":"):
                raise self.error("expected ':'")
            before = self.reads
            yield str(key)
            if self.reads == before:
                self.value()  # not read by the caller: skip it
            c = self.peek()
            if c == ",":
                self.pos += 1
            elif c == "}":
                self.pos += 1
                return
            elif c == "":
                raise self.error("unclosed object")
            else:
                raise self.error("expected ',' or '}'")

    def end(self) -> None:
        """Only whitespace may follow the top-level value."""
        if self.peek() != "":
            raise self.error("extra data")
