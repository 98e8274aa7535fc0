"""A small, forgiving BibTeX reader: entries, @string macros, `#` concatenation and LaTeX accents.

`parse_bibtex` yields a `BibEntry` per entry, or a `BibProblem` for an entry it cannot read, and
carries on after it. It never raises and never recurses, whatever the input.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class BibEntry:
    line: int  # line of the entry's "@"
    type: str  # lower case: "article", "inproceedings"...
    key: str  # "" when the entry has none
    fields: dict[str, str]  # lower-case names; values with LaTeX markup removed
    authors: tuple[str, ...]


@dataclass(frozen=True)
class BibProblem:
    line: int
    reason: str


class _Malformed(Exception):
    pass


class _Macros(dict[str, str]):
    """@string definitions, with a budget so macros that refer to macros cannot blow up memory."""

    def __init__(self, budget: int) -> None:
        super().__init__(_MONTHS)
        self.budget = budget

    def expand(self, word: str) -> str:
        value = self.get(word.lower(), word)
        self.budget -= len(value)
        if self.budget < 0:
            raise _Malformed("@string macros expand to too much text")
        return value


_ENTRY = r"@[ \t]*([A-Za-z][\w-]*)\s*([{(])"
_AT_RE = re.compile(_ENTRY)
_SCAN_RE = re.compile(r"[{}()]|\n[ \t]*" + _ENTRY)
_NAME_RE = re.compile(r"[^\s=,{}\"#()]+")
_WORD_RE = re.compile(r"[^\s,#{}\"=]+")
_SPACE_RE = re.compile(r"[\s,]*")
_VALUE_TOKEN_RE = re.compile(r'[{}"]')
_MONTHS = {m[:3].lower(): m for m in ("January", "February", "March", "April", "May", "June", "July", "August",
                                      "September", "October", "November", "December")}
VERBATIM_FIELDS = frozenset({"url", "doi", "eprint", "arxiv_id", "code_url", "archiveprefix"})

_ACCENTS = {'"': "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303", "=": "\u0304",
            ".": "\u0307", "c": "\u0327", "v": "\u030c", "u": "\u0306", "H": "\u030b", "k": "\u0328",
            "r": "\u030a", "d": "\u0323", "b": "\u0331"}
_SYMBOLS = {"ss": "ß", "o": "ø", "O": "Ø", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "aa": "å", "AA": "Å",
            "l": "ł", "L": "Ł", "i": "ı", "j": "ȷ", "LaTeX": "LaTeX", "TeX": "TeX", "ldots": "…", "dots": "…",
            "textendash": "–", "textemdash": "—", "textbackslash": "\\", "textasciicircum": "^",
            "textless": "<", "textgreater": ">",
            "textasciitilde": "\ue002"}
_DROPPED = frozenset({"textbf", "textit", "emph", "textsc", "texttt", "textrm", "textsf", "textup", "textsl", "mathrm",
                      "mathbf", "mathit", "mathcal", "mathsf", "mathtt", "mbox", "url", "href", "bf", "it", "em", "sc",
                      "tt", "rm", "sf"})
_ESCAPES = {"&": "&", "%": "%", "$": "$", "_": "_", "#": "#", "{": "\ue000", "}": "\ue001", " ": " ", "\\": " "}
_ESCAPE_RE = re.compile(r"\\([&%$_#{} \\])")
_PUNCT_ACCENT_RE = re.compile(r"""\\(["'`^~=.])\s*(\{\s*\\?[A-Za-z]\s*\}|\\[ij](?![A-Za-z])|[A-Za-z])""")
_LETTER_ACCENT_RE = re.compile(r"\\([cvuHkrdb])(?:\s*\{\s*(\\?[A-Za-z])\s*\}|\s+([A-Za-z]))")
_COMMAND_RE = re.compile(r"\\([A-Za-z]+)\*?(?:\{\}|\s*)")
_AND_RE = re.compile(r"\s+and\s+", re.IGNORECASE)
_COMMA_RE = re.compile(r",")


def latex_to_text(value: str) -> str:
    """`{B}ERT` -> `BERT`, `M{\\"u}ller` -> `Müller`, `\\emph{x}` -> `x`; best effort, never fails."""
    text = _ESCAPE_RE.sub(lambda m: _ESCAPES[m.group(1)], value)
    text = _PUNCT_ACCENT_RE.sub(lambda m: _accent(m.group(1), m.group(2)), text)
    text = _LETTER_ACCENT_RE.sub(lambda m: _accent(m.group(1), m.group(2) or m.group(3)), text)
    text = _COMMAND_RE.sub(_command, text)
    text = text.replace("~", " ").replace("{", "").replace("}", "")
    text = text.replace("\ue000", "{").replace("\ue001", "}").replace("\ue002", "~")
    return unicodedata.normalize("NFC", text)


def latex_verbatim(value: str) -> str:
    """For urls, DOIs and arXiv ids: only undo escapes and drop grouping braces."""
    text = re.sub(r"\\([&%$_#~])", r"\1", value)
    return "".join(text.replace("{", "").replace("}", "").split())


def _accent(mark: str, letter: str) -> str:
    base = letter.strip("{} \t\r\n\\")
    return base + _ACCENTS[mark]


def _command(m: re.Match[str]) -> str:
    name = m.group(1)
    if name in _SYMBOLS:
        return _SYMBOLS[name]
    return "" if name in _DROPPED else name + (" " if m.group().endswith((" ", "\t", "\n")) else "")


def _split_top(value: str, sep: re.Pattern[str]) -> list[str]:
    """Split `value` at matches of `sep` that are outside braces."""
    parts, start, depth, pos = [], 0, 0, 0
    for m in sep.finditer(value):
        depth += value.count("{", pos, m.start()) - value.count("}", pos, m.start())
        pos = m.start()
        if depth <= 0:
            parts.append(value[start:m.start()])
            start = m.end()
    parts.append(value[start:])
    return parts


def split_names(value: str) -> tuple[str, ...]:
    """`Müller, Anna and Bob Smith and others` -> ("Anna Müller", "Bob Smith")."""
    names = []
    for raw in _split_top(value, _AND_RE):
        parts = [" ".join(latex_to_text(p).split()) for p in _split_top(raw, _COMMA_RE)]
        parts = [p for p in parts if p]
        if not parts or (len(parts) == 1 and parts[0].lower() == "others"):
            continue
        # "Last, First" and "Last, Jr, First" -> "First Last Jr"
        names.append(" ".join([parts[-1], parts[0], *parts[1:-1]]) if len(parts) > 1 else parts[0])
    return tuple(names)


def _entry_end(text: str, start: int, opener: str) -> tuple[int | None, int]:
    """(index of the closing delimiter, None) or (None, where to resume) when the entry is unbalanced."""
    closer = "}" if opener == "{" else ")"
    depth = 0
    for m in _SCAN_RE.finditer(text, start):
        token = m.group()
        if token == "{":
            depth += 1
        elif token == "}":
            if depth == 0:
                return (m.start(), m.end()) if closer == "}" else (None, m.end())
            depth -= 1
        elif token == ")":
            if depth == 0 and closer == ")":
                return m.start(), m.end()
        elif token != "(":  # a new entry starts on a later line before this one closed
            return None, m.start() + 1
    return None, len(text)


def _closing(body: str, i: int) -> int:
    """Index of the `}` or `"` that ends the value opening at `body[i]`."""
    depth = 0
    for m in _VALUE_TOKEN_RE.finditer(body, i + 1):
        c = m.group()
        if c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                if body[i] == "{":
                    return m.start()
                raise _Malformed("unbalanced braces")
            depth -= 1
        elif depth == 0 and body[i] == '"':
            return m.start()
    raise _Malformed("unbalanced braces" if body[i] == "{" else "unterminated quoted value")


def _parse_body(body: str, macros: _Macros) -> tuple[str, dict[str, str]]:
    n = len(body)
    comma = body.find(",")
    head = body if comma < 0 else body[:comma]
    key, i = ("", 0) if "=" in head else (head.strip(), n if comma < 0 else comma + 1)
    fields: dict[str, str] = {}
    while True:
        i = _SPACE_RE.match(body, i).end()  # type: ignore[union-attr]  # always matches
        if i >= n:
            return key, fields
        m = _NAME_RE.match(body, i)
        if not m:
            raise _Malformed(f"expected a field name, found {body[i]!r}")
        name = m.group().lower()
        i = _skip(body, m.end())
        if i >= n or body[i] != "=":
            raise _Malformed(f"expected '=' after field {name[:40]!r}")
        parts = []
        while True:
            i = _skip(body, i + 1)
            if i >= n:
                raise _Malformed(f"field {name[:40]!r} has no value")
            if body[i] in '{"':
                end = _closing(body, i)
                parts.append(body[i + 1:end])
                i = end + 1
            else:
                w = _WORD_RE.match(body, i)
                if not w:
                    raise _Malformed(f"field {name[:40]!r} has no value")
                parts.append(macros.expand(w.group()))
                i = w.end()
            i = _skip(body, i)
            if i >= n or body[i] != "#":
                break
        fields.setdefault(name, "".join(parts))
        if i < n and body[i] != ",":
            raise _Malformed(f"expected ',' after field {name[:40]!r}")


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i].isspace():
        i += 1
    return i


def parse_bibtex(text: str) -> Iterator[BibEntry | BibProblem]:
    macros = _Macros(budget=10 * len(text) + 1_000_000)
    pos, line, counted = 0, 1, 0
    while (m := _AT_RE.search(text, pos)) is not None:
        line += text.count("\n", counted, m.start())
        counted = m.start()
        kind = m.group(1).lower()
        end, resume = _entry_end(text, m.end(), m.group(2))
        if end is None:
            if kind != "comment":
                yield BibProblem(line, f"unbalanced braces in @{kind[:30]} entry")
            pos = resume
            continue
        pos = resume
        if kind in ("comment", "preamble"):
            continue
        try:
            key, raw = _parse_body(text[m.end():end], macros)
        except _Malformed as e:
            yield BibProblem(line, f"malformed @{kind[:30]} entry: {e}")
            continue
        if kind == "string":
            macros.update((k, v) for k, v in raw.items())
            continue
        fields = {k: latex_verbatim(v) if k in VERBATIM_FIELDS else latex_to_text(v) for k, v in raw.items()}
        authors = split_names(raw.get("author", ""))
        yield BibEntry(line, kind, key, fields, authors)
