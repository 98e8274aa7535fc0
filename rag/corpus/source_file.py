"""One corpus file opened for its reader: bytes read in order, checked, decoded, and counted for progress.

Every reader gets a `Source` and reads through it (whole text, raw lines, text lines or text blocks), so the
same checks apply to every format (binary, UTF-16, not UTF-8, with the byte offset) and the bytes read so far
can be shown as progress. Nothing here holds more than one line or block of the file.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from rag.corpus.text_io import check_bytes, corpus_error, decode

BLOCK_BYTES = 1 << 18
_LONE_CR_RE = re.compile(r"\r(?!\n|$)")


@dataclass(frozen=True)
class ReadOptions:
    """What a reader may be asked besides the bytes: PDFs' full text, and substrings every wanted record's raw
    text must contain (lower case; from `--where`), so line-based readers can skip a line without parsing it."""

    full_text: bool = False
    needles: tuple[str, ...] = ()


class Source:
    def __init__(self, path: Path, options: ReadOptions | None = None, on_read: Callable[[int], None] | None = None):
        self.path = path
        self.options = options or ReadOptions()
        self._on_read = on_read
        self._file: BinaryIO = path.open("rb")

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> Source:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _moved(self) -> None:
        if self._on_read is not None:
            self._on_read(self._file.tell())

    def check_head(self) -> None:
        """Refuse a binary file (a NUL byte in its first 64 KB) before any reader decodes a line of it."""
        head = self._file.read(1 << 16)
        self._file.seek(0)
        check_bytes(self.path, head, 0)

    def binary(self) -> BinaryIO:
        """The raw file, for readers that seek (PDF). Progress is reported when the reader is done."""
        return self._file

    def text(self) -> str:
        """The whole file, checked and decoded (formats that are parsed as a whole: BibTeX, plain text)."""
        data = self._file.read()
        self._moved()
        check_bytes(self.path, data, 0)
        return decode(self.path, data, 0)

    def raw_lines(self) -> Iterator[tuple[int, bytes, int]]:
        """(line number, the line's bytes with its b"\\n", byte offset), unchecked: the caller checks the lines it
        uses with `line_text` (a filtered-out line costs no decoding)."""
        offset = 0
        for number, raw in enumerate(self._file, 1):
            yield number, raw, offset
            offset += len(raw)
            if number % 256 == 0:
                self._moved()
        self._moved()

    def line_text(self, raw: bytes, offset: int) -> str:
        check_bytes(self.path, raw, offset)
        return decode(self.path, raw, offset)

    def text_lines(self) -> Iterator[str]:
        """Decoded lines with their endings, split at \\n, \\r\\n and a lone \\r (what `open(newline="")` gives)."""
        for _, raw, offset in self.raw_lines():
            line = self.line_text(raw, offset)
            if "\r" in line and _LONE_CR_RE.search(line):
                yield from _split_cr(line)
            else:
                yield line

    def blocks(self, size: int = BLOCK_BYTES) -> Iterator[str]:
        """The file's text in blocks of about `size` bytes (a character is never cut in two)."""
        decoder = codecs.getincrementaldecoder("utf-8")()
        offset = 0
        while True:
            data = self._file.read(size)
            self._moved()
            check_bytes(self.path, data, offset)
            buffered = decoder.getstate()[0]
            try:
                text = decoder.decode(data, final=not data)
            except UnicodeDecodeError as e:
                joined = buffered + data
                bad = joined[e.start] if e.start < len(joined) else 0
                raise corpus_error(
                    f"{self.path}: not UTF-8 text (byte 0x{bad:02x} at offset {offset - len(buffered) + e.start}); "
                    "convert it to UTF-8"
                ) from None
            if offset == 0:
                text = text.removeprefix("\ufeff")
            offset += len(data)
            if text:
                yield text
            if not data:
                return


def _split_cr(line: str) -> Iterator[str]:
    start = 0
    for m in _LONE_CR_RE.finditer(line):
        yield line[start : m.end()]
        start = m.end()
    yield line[start:]


def file_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
