"""A PDF's extracted text -> a paper: reading order and (with --full-text) its sections (the abstract:
rag.corpus.pdf_abstract).

Works on the text pypdf lays out per page (rag.corpus.pdf): one string per page in which each text line keeps
its horizontal position. Two-column pages are recognised by a gutter, a run of blank character columns near
the middle shared by many lines, and read column by column; lines that cross the gutter (titles, full-width
abstracts, figures' captions) separate the bands that are read that way. No PDF library is needed here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.corpus.pdf_tables import lines_text
from rag.types import Section

# a line-end hyphen after these is a real one ("well-trained"), not a word split by the typesetter
_COMPOUND_HEADS = frozenset(
    "well self non semi multi cross state end fine low high large small long short one two three data task "
    "real half full zero few open closed pair point class sample case time"
    .split()
)  # fmt: skip
_NUMBERED_RE = re.compile(r"^(?:\d{1,2}(?:\.\d{1,2}){0,3}\.?|[IVX]{1,5}\.|[A-H]\.?)\s+(\S.{0,90})$")
_KNOWN = {
    "introduction", "related work", "related works", "background", "preliminaries", "method", "methods",
    "methodology", "approach", "model", "experiments", "experimental setup", "evaluation", "results",
    "discussion", "limitations", "conclusion", "conclusions", "future work", "acknowledgments",
    "acknowledgements", "references", "bibliography", "appendix", "appendices", "supplementary material",
}  # fmt: skip
_FORMULA_RE = re.compile(r"[=+<>{}|\\^_∈∑←→]|//")
# a table of contents' line: "3.1 Flocking Model ...... 13"
_CONTENTS_RE = re.compile(r"(?:\.\s?){5,}\s*[\dIVXivx]+\s*$")
# an appendix's first section at the top of a page after the references, without an "Appendix" heading: "A. QMIX",
# "A Proofs" (not a reference's first line: "A. Smith. Title" has a full stop, "A. Smith, B. Jones" a comma)
_FIRST_APPENDIX_RE = re.compile(r"^A\.?\s+[A-Z][^,.]{0,80}$")
APPENDIX_TOP_LINES = 3  # the lines at the top of a page where that heading is looked for
_APPENDIX_RE = re.compile(r"^(appendix|appendices|supplementary material)\b.{0,60}$", re.IGNORECASE)
_REFERENCES = {"references", "bibliography", "works cited", "literature cited", "references and notes"}
MERGED_WIDTH = 105  # median characters per layout line from which a page may be two columns run together
MERGED_RATIO = 0.65  # plain mode's median line against layout mode's when the columns were run together
EDGE_LINES = 3  # lines at the top and at the bottom of a page where running headers and footers sit
RUNNING_SHARE = 0.4
SIDEBAR_FROM = 0.2  # a first page's narrow sidebar (a fifth of the width and more) beside a one-column body
MIN_NUMBERED = 8  # a page's lines opening with a number, from which they may be a manuscript's line numbers ...
NUMBERED_SHARE = 0.6  # ... when they are this share of its lines, and this share of them rise one by one
_LINE_NUMBER_RE = re.compile(r"^\s*(\d{1,4})(?:\s+\S|\s*$)")  # a numbered line, or a number alone (a blank line's)
MAX_COLUMN_DEPTH = 1  # a column split once more (sidebar | column | column), no further


def _gutter(lines: Sequence[str], first: float = 0.3) -> int | None:
    """The character column of a two-column page's gutter, or None for a one-column page (`first`: the share of the
    width from which a gutter is looked for)."""
    text_lines = [line for line in lines if line.strip()]
    width = max((len(line) for line in text_lines), default=0)
    if len(text_lines) < 6 or width < 40:
        return None
    counts = {}
    for c in range(int(width * first), int(width * 0.7) + 1):
        counts[c] = sum(
            1
            for line in text_lines
            if len(line) > c + 2 and line[c - 1 : c + 2] == "   " and line[: c - 1].strip() and line[c + 2 :].strip()
        )
    best = max(counts.values(), default=0)
    if best < max(4, 0.3 * len(text_lines)):
        return None
    plateau = [c for c, n in counts.items() if n == best]
    return plateau[len(plateau) // 2]


def _median_width(text: str) -> int:
    widths = sorted(len(line.strip()) for line in text.split("\n") if len(line.strip()) > 20)
    return widths[len(widths) // 2] if widths else 0


def wide_without_gutter(layout: str) -> bool:
    """A page whose layout lines are as long as a two-column page's, with no gutter between columns."""
    return _median_width(layout) >= MERGED_WIDTH and _gutter([line.rstrip() for line in layout.split("\n")]) is None


def columns_run_together(layout: str, plain: str) -> bool:
    """pypdf's layout mode glued a two-column page's columns line by line ("...in theright column..."): its lines
    are about twice as long as the plain mode's, and no gutter separates them."""
    return wide_without_gutter(layout) and _median_width(plain) < MERGED_RATIO * _median_width(layout)


def reading_order(page_text: str, sidebars: bool = False, depth: int = 0) -> list[str]:
    """A page's lines in reading order, whitespace collapsed; "" marks a paragraph break. With `sidebars` (a first
    page), a column is itself looked at for a gutter once more: a journal's narrow sidebar (affiliations, dates,
    licence) beside a two-column body is a third column, read apart rather than line by line with the abstract
    beside it. Other pages are not split further: a table's columns would be taken for a sidebar."""
    lines = [line.rstrip() for line in page_text.replace("\r", "").split("\n")]
    if depth == 0:
        lines = without_line_numbers(lines)
    gutter = _gutter(lines, SIDEBAR_FROM if sidebars and depth == 0 else 0.3)
    if gutter is None:
        return lines_text(lines)
    out: list[str] = []
    left: list[str] = []
    right: list[str] = []
    wide: list[str] = []  # full-width lines in a row (a title, a wide table), read as one block

    def flush() -> None:
        for column in (left, right):
            if sidebars and depth < MAX_COLUMN_DEPTH and _gutter(column) is not None:
                out.extend(reading_order("\n".join(column), sidebars, depth + 1))
            else:
                out.extend(lines_text(column))
            column.clear()

    def flush_wide() -> None:
        out.extend(lines_text(wide))
        wide.clear()

    for line in lines:
        if not line.strip():
            if wide:
                wide.append("")
            for column in (left, right):
                if column and column[-1].strip():
                    column.append("")
            continue
        crosses = any(ch != " " for ch in line[gutter - 1 : gutter + 2])  # a full-width line, but in a column split
        if crosses and (depth == 0 or len(line) > gutter + 2):  # once more a line may just touch the inner gutter
            flush()
            wide.append(line)
            continue
        flush_wide()
        for column, part in ((left, line[:gutter]), (right, line[gutter:])):
            if part.strip():
                column.append(part)
    flush_wide()
    flush()
    return out


def without_line_numbers(lines: Sequence[str]) -> list[str]:
    """The lines without a manuscript's line numbers ("36      Abstract"): when most of a page's lines open with a
    number, and those numbers mostly rise one by one."""
    found = [(i, m) for i, line in enumerate(lines) if (m := _LINE_NUMBER_RE.match(line))]
    filled = sum(1 for line in lines if line.strip())
    numbers = [int(m.group(1)) for _, m in found]
    rising = sum(b == a + 1 for a, b in zip(numbers, numbers[1:], strict=False))
    if len(found) < MIN_NUMBERED or len(found) < NUMBERED_SHARE * filled or rising < NUMBERED_SHARE * len(found):
        return list(lines)
    out = list(lines)
    for i, m in found:
        out[i] = " " * m.end(1) + lines[i][m.end(1) :]  # blanked, so the columns keep their places
    return out


def _edge_key(line: str) -> str:
    return re.sub(r"\d+", "#", line.casefold())


def drop_running_lines(pages: Sequence[Sequence[str]]) -> list[list[str]]:
    """The pages without their running headers and footers: a line among the first or last EDGE_LINES of a page
    that recurs (page numbers aside) at the edge of at least RUNNING_SHARE of the pages, and at least 3 of them."""
    edges: list[set[str]] = []
    for lines in pages:
        text = [line for line in lines if line]
        edges.append({_edge_key(line) for line in text[:EDGE_LINES] + text[-EDGE_LINES:]})
    counts: dict[str, int] = {}
    for keys in edges:
        for key in keys:
            counts[key] = counts.get(key, 0) + 1
    running = {key for key, n in counts.items() if n >= max(3, RUNNING_SHARE * len(pages))}
    out = []
    for lines in pages:
        filled = [i for i, line in enumerate(lines) if line]
        edge = set(filled[:EDGE_LINES] + filled[-EDGE_LINES:])
        out.append([line for i, line in enumerate(lines) if i not in edge or _edge_key(line) not in running])
    return out


def heading_title(line: str) -> str | None:
    """The title of a section heading line ("3.1 Training" -> "Training"), or None when it is no heading."""
    text = line.strip()
    if not text or len(text) > 100 or text.endswith((".", ",", ";")) and not text.rstrip(".").isupper():
        return None
    if text.lower().strip(" .:") in _KNOWN or _APPENDIX_RE.match(text):
        return text.strip(" .:")
    m = _NUMBERED_RE.match(text)
    if not m:
        return None
    title = m.group(1).strip()
    words = title.split()
    alpha = [w for w in words if re.search(r"[A-Za-z]{2}", w)]
    if not title[0].isupper() or len(words) > 12 or len(alpha) < max(1, 0.7 * len(words)):
        return None
    if _FORMULA_RE.search(title):  # a numbered line of an algorithm or an equation: "26 L = LX + λLU"
        return None
    return title


def paragraph_text(lines: Sequence[str]) -> str:
    out = ""
    for line in lines:
        if not line:
            continue
        if out.endswith("-") and line[:1].islower():
            head = re.findall(r"[A-Za-z]+$", out[:-1])
            compound = bool(head) and (head[0].lower() in _COMPOUND_HEADS or "-" in out.rsplit(" ", 1)[-1][:-1])
            out = out + line if compound else out[:-1] + line  # "well-" + "trained"; "repre-" + "sentation"
        else:
            out = f"{out} {line}" if out else line
    return out


def sections(pages: Sequence[Sequence[str]], start_page: int, start_line: int) -> list[Section]:
    """The body from line `start_line` of page index `start_page` on, as one Section per heading and page; the
    references section is dropped (up to an appendix heading, or an appendix's first section "A. ..." at the top of
    a page), as are lines that are only a page number and the lines of a table of contents (a thesis's, a
    report's)."""
    out: list[Section] = []
    heading: str | None = None
    in_references = False
    for index in range(start_page, len(pages)):
        current: list[str] = []
        lines = pages[index][start_line if index == start_page else 0 :]
        top = [i for i, line in enumerate(lines) if line][:APPENDIX_TOP_LINES]
        for i, line in enumerate(lines):
            title = None if _CONTENTS_RE.search(line) else heading_title(line)
            if title is None:
                if not in_references and not line.strip().isdigit() and not _CONTENTS_RE.search(line):
                    current.append(line)
                continue
            _close(out, index + 1, heading, current)
            lower = title.lower()
            if lower in _REFERENCES:
                in_references = True
            elif (not in_references or lower.startswith(("appendix", "appendices", "supplementary"))
                  or i in top and _FIRST_APPENDIX_RE.match(line.strip())):  # fmt: skip
                in_references = False
                heading = line.strip()
        _close(out, index + 1, heading, current)
    return out


def _close(out: list[Section], page: int, heading: str | None, lines: list[str]) -> None:
    text = paragraph_text(lines)
    if text:
        out.append(Section(page, heading, text))
    lines.clear()
