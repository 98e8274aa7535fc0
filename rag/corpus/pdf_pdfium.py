"""PDF pages as fixed-width text from PDFium's character positions (pypdfium2, the one module that imports it).

PDFium reads a page's text in C at about a twelfth of pypdf's CPU (BENCHMARKS.md section 11), but gives it in
the file's order, one line at a time, without the columns side by side that the reading-order code
(rag.corpus.pdf_layout) finds gutters, table cells and paragraph breaks in. So this module lays the page out the
way pypdf's layout mode does (its fixed_width_page and y_coordinate_groups): each word at the column its x position
gives, words whose baselines differ by less than a font height on one line unless they overlap (two columns whose
baselines are offset), and blank lines for vertical gaps. Rotated text (an axis label) and the text inside a Form
XObject (a figure LaTeX includes: its ticks, legend and title) are left out, as layout mode leaves them out; a page
drawn whole as one Form XObject thus lays out empty, and the caller reads its plain text, as with pypdf. A hyphen
PDFium marks at a line's end (U+FFFE) is written back as "-" at the end of the line, so the reading code undoes
line-end hyphenation as it does for pypdf's text.

Used for every page after the first (rag.corpus.pdf); the first page, where the title is read from the type sizes
of pypdf's text runs, the arXiv stamp from its plain text and a sidebar apart from the abstract, stays with pypdf.
A file PDFium cannot open is read with pypdf, as is every page when pypdfium2 is missing.
"""

from __future__ import annotations

import ctypes
import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO

_WORD = re.compile(r"[^\s\ufffe]+\ufffe?|\ufffe")
SCALE_WEIGHT = 1.25  # pypdf's fixed character width: the mean rendered width per character / 1.25
WORD_GAP = 1.5  # a gap between words up to this many mean character widths is a space, wider ones are laid out
MAX_BLANK = 4  # blank lines written for one vertical gap
EDGE = 2.0  # points around a figure's box: PDFium fits it to the glyphs, a label's origin may sit on its edge
MAX_ANGLE = 0.05  # radians from upright (or from 2*pi) for a word to count as upright text


@contextmanager
def opened(file: BinaryIO) -> Iterator[Any | None]:
    """The PDF as a PDFium document (None when PDFium cannot open it: the pages are then read with pypdf)."""
    try:
        import pypdfium2
    except ImportError:
        yield None
        return
    file.seek(0)
    try:
        document = pypdfium2.PdfDocument(file.read())
    except Exception:  # damaged or encrypted: pypdf has read it already, its pages stay with pypdf
        yield None
        return
    try:
        yield document
    finally:
        document.close()


Word = tuple[float, float, int, str, float]  # x, baseline y, first char index, text, right edge (0: unknown)


def _figures(page: Any) -> list[tuple[float, float, float, float]]:
    """The boxes (left, bottom, right, top) of the page's Form XObjects: an embedded figure (a plot's ticks,
    legend and title) as LaTeX includes one. Layout mode does not read into them either."""
    import pypdfium2.raw as raw

    boxes = []
    left, bottom, right, top = (ctypes.c_float() for _ in range(4))
    for i in range(raw.FPDFPage_CountObjects(page.raw)):
        obj = raw.FPDFPage_GetObject(page.raw, i)
        if raw.FPDFPageObj_GetType(obj) == raw.FPDF_PAGEOBJ_FORM and raw.FPDFPageObj_GetBounds(
            obj, ctypes.byref(left), ctypes.byref(bottom), ctypes.byref(right), ctypes.byref(top)
        ):
            boxes.append((left.value - EDGE, bottom.value - EDGE, right.value + EDGE, top.value + EDGE))
    return boxes


def _words(page: Any, textpage: Any) -> tuple[list[Word], float]:
    """Each upright word outside the figures, and the fixed character width."""
    import pypdfium2.raw as raw

    handle = textpage.raw
    text = textpage.get_text_range()
    figures = _figures(page)
    x, y = ctypes.c_double(), ctypes.c_double()
    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    words: list[Word] = []
    widths, chars = 0.0, 0
    for m in _WORD.finditer(text):
        start = raw.FPDFText_GetCharIndexFromTextIndex(handle, m.start())
        if start < 0:
            continue
        angle = raw.FPDFText_GetCharAngle(handle, start)  # a rotated axis label may share a line with tick labels
        if angle >= 0 and min(angle, 2 * math.pi - angle) > MAX_ANGLE:
            continue
        if not raw.FPDFText_GetCharOrigin(handle, start, ctypes.byref(x), ctypes.byref(y)):
            continue
        if any(fx0 <= x.value <= fx1 and fy0 <= y.value <= fy1 for fx0, fy0, fx1, fy1 in figures):
            continue
        word = m.group().replace("\ufffe", "-")
        end = raw.FPDFText_GetCharIndexFromTextIndex(handle, m.end() - 1)
        boxed = end >= 0 and raw.FPDFText_GetCharBox(
            handle, end, ctypes.byref(left), ctypes.byref(right), ctypes.byref(bottom), ctypes.byref(top)
        )
        ends = boxed and right.value > x.value
        if ends:
            widths += right.value - x.value
            chars += len(word)
        words.append((x.value, y.value, start, word, right.value if ends else 0.0))
    if not words or not chars:
        return [], 1.0  # no text, or all of it in figures (a page drawn as one Form XObject): the caller reads plain
    return words, widths / (chars * SCALE_WEIGHT)


def layout_text(page: Any) -> str:
    """The page as pypdf's layout mode would write it (columns side by side, cells apart); "" without text."""
    import pypdfium2.raw as raw

    textpage = page.get_textpage()
    try:
        words, char_width = _words(page, textpage)
        size: dict[int, float] = {}
        groups: dict[int, list[Word]] = {}
        for word in sorted(words, key=lambda w: -w[1]):
            groups.setdefault(int(-word[1]), []).append(word)

        matrix = raw.FS_MATRIX()

        def height(group: list[Word]) -> float:
            """The rendered font height of the group's first word, as pypdf's layout mode takes it: the font size
            times the text matrix's vertical scale (the size alone is 1 where the matrix scales the type)."""
            index = group[0][2]
            if index not in size:
                scale = math.hypot(matrix.c, matrix.d) if raw.FPDFText_GetMatrix(textpage.raw, index, matrix) else 1
                size[index] = float(raw.FPDFText_GetFontSize(textpage.raw, index)) * (scale or 1.0)
            return size[index]

        rows: list[tuple[int, list[Word]]] = []
        last_cols: set[int] = set()
        for key, group in groups.items():  # pypdf's merge: a baseline offset below a font height, no x overlap
            cols = {int(w[0]) for w in group}
            if rows and not cols & last_cols and abs(key - rows[-1][0]) < min(height(group), height(rows[-1][1])):
                rows[-1][1].extend(group)
                last_cols |= cols
            else:
                rows.append((key, list(group)))
                last_cols = cols
        lines: list[str] = []
        last_key = 0
        for key, group in rows:
            if lines and (fh := height(group)) > 0:
                lines.extend([""] * min(MAX_BLANK, max(0, int(abs(key - last_key) / fh) - 1)))
            last_key = key
            line, end = "", -math.inf
            for wx, _, _, text, right in sorted(group, key=lambda w: w[0]):
                if wx - end < WORD_GAP * char_width * SCALE_WEIGHT:  # the next word of the same run of text
                    line += " " + text
                else:  # a gap wider than a space: the word sits at its column (a cell, the other column)
                    line += " " * max(int(wx // char_width) - len(line), 1 if line else 0) + text
                end = right or wx + len(text) * char_width * SCALE_WEIGHT
            lines.append(line.rstrip())
        return "\n".join(lines)
    finally:
        textpage.close()


def plain_text(page: Any) -> str:
    """The page's text in the file's order, one line at a time (pypdf's plain mode, as PDFium gives it)."""
    textpage = page.get_textpage()
    try:
        return str(textpage.get_text_range()).replace("\r\n", "\n").replace("\ufffe", "-\n")
    finally:
        textpage.close()

