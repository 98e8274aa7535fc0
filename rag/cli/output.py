"""What `rag` writes to the terminal: text a model or an abstract cannot use to drive the terminal, and errors as
one line on stderr (plus a JSON object on stdout for `--json` commands).

Model output, abstracts, titles and file names are attacker-controlled. An ESC or a C1 control character in them
would reach the terminal as an escape sequence (clipboard writes through OSC 52, a cleared screen, hidden
hyperlinks), so every C0 control character except newline and tab, DEL and every C1 control character is removed
before anything is printed. JSON output escapes them instead (the data stays intact), and `<`, `>`, `&` too, so
no tag from a title or an answer is in the bytes of a JSON answer a tool might paste into a page.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any, TextIO

from rag.errors import (
    ConfigError,
    CorpusError,
    IndexMissingError,
    LLMError,
    QuestionError,
    RagError,
    StorageError,
    StoreUnavailableError,
    WriterBusyError,
)
from rag.redact import mask_urls_in

# C0 except \t and \n, DEL, C1; lone surrogates (undecodable bytes) cannot be encoded to the terminal at all
_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_JSON_UNSAFE = re.compile(r"[<>&\x7f-\x9f\ud800-\udfff]")  # json.dumps already escapes C0; <>& only occur in strings
KINDS: tuple[tuple[type[BaseException], str], ...] = (
    (ConfigError, "config"), (CorpusError, "corpus"), (IndexMissingError, "index_missing"),
    (StoreUnavailableError, "store_unavailable"), (LLMError, "llm"), (QuestionError, "question"),
    (StorageError, "storage"), (WriterBusyError, "writer_busy"), (RagError, "error"),
)  # fmt: skip


def safe(text: object) -> str:
    """The text with every control character a terminal would act on removed (newline and tab kept)."""
    return _SURROGATE.sub("\ufffd", _UNSAFE.sub("", str(text)))


def say(text: object = "", *, end: str = "\n", err: bool = False, flush: bool = False) -> None:
    """print(), terminal-safe."""
    stream: TextIO = sys.stderr if err else sys.stdout
    print(safe(text), end=end, file=stream, flush=flush)


def json_text(value: Any) -> str:
    """JSON with DEL, C1 controls, lone surrogates and `<>&` escaped as \\uXXXX (json.dumps escapes C0 itself)."""
    text = json.dumps(value, ensure_ascii=False, indent=2)
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def print_json(value: Any) -> None:
    print(json_text(value))


def kind_of(exc: BaseException) -> str:
    return next((kind for cls, kind in KINDS if isinstance(exc, cls)), "error")


def one_line(message: str) -> str:
    """An error message as one terminal-safe line, every URL in it with its credentials masked."""
    return " ".join(safe(mask_urls_in(message)).split())


def report_error(message: str, kind: str, *, as_json: bool) -> None:
    """`error: ...` on stderr; with --json also {"error": ..., "kind": ...} on stdout, so scripts can parse it."""
    line = one_line(message)
    if as_json:
        print_json({"error": line, "kind": kind})
        sys.stdout.flush()
    print(f"error: {line}", file=sys.stderr)
