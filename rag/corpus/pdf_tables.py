"""Lines of a PDF page's layout text -> sentences, with a table's rows read as rows under their column headers.

pypdf and PDFium lay a page out as text lines that keep each word's horizontal position. A table's row is a line of
3 or more cells set apart by wide gaps (two fifths of them numbers, or all of them one or two capitalised words: a
header). A row is written as its cells joined by " | " and closed with a full stop, so each row reads as a sentence
of its own instead of one run of numbers with the next rows. When two or more rows with the same number of cells
follow a line that is not a row (the table's header, often set with single spaces: "Model Layers Hidden size D
Params"), that line's words are given to the columns they sit over, and each row's cell carries its column's name:
"ViT-Huge | Layers 32 | Hidden size D 1280 | Params 632M." A question about ViT-Huge's parameters then finds the row
that states them. Justified prose also has wide gaps, but lower-case words and few numbers between them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

_LIGATURES = str.maketrans({"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"})
_CELL = re.compile(r"\S+(?: \S+)*")  # a run of words set apart by single spaces
_WORD = re.compile(r"\S+")
_NUMERIC_CELL = re.compile(  # "76.1", "(3.2%)", "0.5 ± 0.1", and with a unit or a size: "15.3ms", "632M", "640×640"
    r"[-+−±~≈<>]?\(?\d[\d.,]*(?:[×x]\d[\d.,]*)?\s*(?:%|[A-Za-zµ]{1,3})?\)?(?:\s*±\s*[\d.,]+%?)?\*?"
)
HEADER_ABOVE = 3  # raw lines above a table's first row where its header line may sit (blank lines between)
MAX_HEADER_CHARS = 160


def norm(line: str) -> str:
    return " ".join(line.translate(_LIGATURES).split())


Cell = tuple[int, int, str]  # start column, end column, text


def _cells(line: str) -> list[Cell]:
    return [(m.start(), m.end(), m.group()) for m in _CELL.finditer(line)]


def _numeric_row(cells: Sequence[Cell]) -> bool:
    """Two fifths of the cells (and at least two) are values."""
    numeric = sum(bool(_NUMERIC_CELL.fullmatch(c[2])) for c in cells)
    return numeric >= 2 and numeric >= 0.4 * len(cells)


def _is_row(cells: Sequence[Cell]) -> bool:
    """A table's row: 3 or more cells, values or (a header) each one or two capitalised words."""
    if len(cells) < 3:
        return False
    header = len(cells) <= 8 and all(len(t.split()) <= 2 and t[0].isupper() or t[0].isdigit() for _, _, t in cells)
    return _numeric_row(cells) or header


def _row(texts: Sequence[str]) -> str:
    return " | ".join(norm(t) for t in texts).rstrip(".") + "."


def _header(line: str, rows: Sequence[Sequence[Cell]]) -> list[str] | None:
    """The column names of `line` over rows of equal cell count: each word goes to the column whose span (the
    rows' cells', widened to halfway to the next column) holds the word's middle. None when the line does not
    name (nearly) every column, or reads as prose or numbers."""
    if len(line.strip()) > MAX_HEADER_CHARS or line.rstrip().endswith((".", ",", ";")):
        return None
    m = len(rows[0])
    starts = [min(r[k][0] for r in rows) for k in range(m)]
    ends = [max(r[k][1] for r in rows) for k in range(m)]
    if any(ends[k] >= starts[k + 1] for k in range(m - 1)):  # the columns overlap: not one table's cells
        return None
    bounds = [(ends[k] + starts[k + 1]) / 2 for k in range(m - 1)]
    names: list[list[str]] = [[] for _ in range(m)]
    for w in _WORD.finditer(line):
        middle = (w.start() + w.end()) / 2
        names[sum(middle > b for b in bounds)].append(w.group())
    named = [" ".join(n) for n in names]
    filled = [n for n in named[1:] if n]
    if len(filled) < m - 1 or any(_NUMERIC_CELL.fullmatch(n) for n in filled):
        return None
    if sum(bool(re.search(r"[A-Za-z]", n)) for n in filled) < 0.6 * len(filled):
        return None
    return named


def lines_text(lines: Sequence[str]) -> list[str]:
    """Each raw layout line as text ("" for a blank one): prose collapsed, a table row as its cells, named by the
    header line above the rows when there is one (that line then gives way to a paragraph break)."""
    out = [norm(line) for line in lines]
    cells = [_cells(line) for line in lines]
    rows = [_is_row(c) for c in cells]
    i = 0
    while i < len(lines):
        if not rows[i]:
            i += 1
            continue
        j = i
        while j < len(lines) and (rows[j] or not lines[j].strip()):
            j += 1
        run = [k for k in range(i, j) if rows[k]]
        for k in run:
            out[k] = _row([c[2] for c in cells[k]])
        width = Counter(len(cells[k]) for k in run if _numeric_row(cells[k])).most_common(1)
        body = [k for k in run if width and len(cells[k]) == width[0][0] and _numeric_row(cells[k])]
        heads = [k for k in run if body and k < body[0]]  # a header set with wide gaps is a row of its own
        above = heads[-1] if heads else next((k for k in range(i - 1, i - 1 - HEADER_ABOVE, -1) if k >= 0
                                              and lines[k].strip()), None)  # fmt: skip
        if len(body) >= 2 and above is not None:
            names = _header(lines[above], [cells[k] for k in body])
            if names is not None:
                for k in body:
                    texts = [c[2] for c in cells[k]]
                    first = texts[0] if not _NUMERIC_CELL.fullmatch(texts[0]) else f"{names[0]} {texts[0]}".strip()
                    out[k] = _row([first, *(f"{n} {t}" for n, t in zip(names[1:], texts[1:], strict=True))])
                out[above] = ""
        i = j
    return out
