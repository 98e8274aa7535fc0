"""A PDF's first page -> its title and identifiers (issue 35). No PDF library is needed here: rag.corpus.pdf hands
over the text runs pypdf saw (size, position, upright or not) and the page's text.

Title: the lines set in the largest upright type in the top half of page 1, all of them (two-line titles), with
the runs of one line joined as set (small capitals come as separate runs); never a running header ("Published as
a conference paper at ..."). The PDF's metadata title is used only when page 1 shows it too: producers leave
internal file codes and "Microsoft Word - draft.docx" there.

Identifiers: arXiv id and year from arXiv's side stamp (rotated: only pypdf's plain mode keeps it), else the year
a journal's first page prints (copyright, "Published"/"Accepted" date, citation line), and a DOI, also when the
line breaks inside it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import NamedTuple

_ARXIV_STAMP_RE = re.compile(r"arXiv:(\d{4}\.\d{4,5})(?:v\d+)?\s*\[[^\]]+\]\s*\d{1,2}\s+[A-Z][a-z]{2}\s+(\d{4})")
_DOI_RE = re.compile(r"\b(10\.\d{4,9}/[-._;()/:A-Za-z0-9]+[A-Za-z0-9])")
_DOI_TAIL_RE = re.compile(r"([./_-]?)[ \t]*\n[ \t]*([-._;()/:A-Za-z0-9]+)(?=\s|$)")
_Y = r"((?:19|20)\d{2})\b"
_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?"
_YEAR_CUES = (  # where a journal's first page prints its year: copyright, dates, the citation line
    re.compile(r"(?:©|\bcopyright)\s*(?:©\s*)?" + _Y, re.IGNORECASE),
    re.compile(r"\b(?:published|accepted)(?:\s+online)?:?\s+(?:\d{1,2}\s+)?(?:[A-Z][a-z]+\.?\s+)?(?:\d{1,2},?\s+)?"
               + _Y, re.IGNORECASE),  # fmt: skip
    re.compile(r"\b((?:19|20)\d{2})\s*[;,]\s*\d{1,4}\s*[:(]"),  # "Postgrad Med J 2010;86:272", "BMC ... 2014, 14:1"
    re.compile(r"\(((?:19|20)\d{2})\)\s*,?\s*\d{1,4}\s*[,:]"),  # "Clinical Science (2014) 126, 305"
    # a venue line: "Proceedings of the 36th International Conference on Machine Learning, ..., 2019", "35th Conference
    # on Neural Information Processing Systems (NeurIPS 2021)"
    re.compile(r"\b(?:Conference|Symposium|Workshop|Proceedings)\b[^\n]{0,120}?\b((?:19|20)\d{2})\b"),
    re.compile(r"\b[A-Z][A-Za-z]+\s?['’]\d{2}\b[^\n]{0,60}?\b((?:19|20)\d{2})\b"),  # "UIST '13, October 8-11, 2013"
    re.compile(r"·\s*" + _MONTH + r"\s+" + _Y),  # a cover page's "Article in Nature · May 2015"
    re.compile(r"\b(?:this version )?posted\s+(?:on\s+)?" + _MONTH + r"\s+\d{1,2},?\s+" + _Y, re.IGNORECASE),
    # a preprint server's header: "medRxiv preprint doi: ...; this version posted December 12, 2024."
    re.compile(r"^[ \t]*" + _MONTH + r"[ \t]+" + _Y + r"[ \t]*$", re.MULTILINE),  # a title page's date: "March 2018"
)
_BAD_TITLES = re.compile(r"^(untitled|microsoft word|title|document\d*|\S+\.(docx?|tex|dvi|pdf))\b", re.IGNORECASE)
_RUNNING_HEADER = re.compile(
    r"^(published|accepted|under review|preprint|to appear|proceedings|workshop|in proceedings|journal of|vol\.)"
    r"|\b(conference paper|under review|preprint|copyright|licen[cs]e|all rights reserved)\b",
    re.IGNORECASE,
)
_ARTICLE_TYPE = re.compile(
    r"(?:(?:original|research|review|brief|short|case|clinical|technical|methods?)\s+)*"
    r"(?:article|paper|report|communication|letter|review)(?:\s+open access)?",
    re.IGNORECASE,
)  # a journal's label of the kind of article, set in the title's type on a line of its own
_CHAPTER_NUMBER = re.compile(r"^(?:chapter\s+)?\d{1,2}\.?\s+(?=[A-Z][a-z])", re.IGNORECASE)
MIN_TITLE_RATIO = 1.15  # the title's type is at least this much larger than the body's
SMALL_CAPS = 0.78  # a title line set in small capitals only: its largest run against the title's capitals
MASTHEAD_WORDS = 3  # a line of at most this many words in the largest type may be a journal's name ...
MASTHEAD_NEXT = 0.6  # ... when the next type size, at least this share of it, sets a longer block (the title)


class Run(NamedTuple):
    """One piece of text as the page draws it: font size (scaled), baseline height, and whether it is upright."""

    size: float
    y: float
    text: str
    upright: bool = True


def _norm(text: str) -> str:
    return " ".join(text.split())


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", unicodedata.normalize("NFKC", text).casefold())


def good_title(title: object) -> str | None:
    if not isinstance(title, str):
        return None
    title = _norm(unicodedata.normalize("NFKC", title))
    if len(title) < 4 or _BAD_TITLES.match(title) or _RUNNING_HEADER.search(title):
        return None
    return title


def title_from_runs(runs: Sequence[Run], height: float) -> str | None:
    """The largest upright type in the top half of the page, every line of it, when it stands out from the body.
    A size whose lines lie apart in several places is a figure's labels, not a title. A short line in the largest
    type gives way to a longer block: one set above it (it was a figure's label on page 1), or the next size down
    (it was a journal's name, "BMC Bioinformatics", above the title)."""
    upright = [r for r in runs if r.upright and r.text.strip()]
    if len(upright) < 2:
        return None
    sizes = sorted(r.size for r in upright)
    body = sizes[len(sizes) // 2]
    top = [r for r in upright if r.y > height / 2 and not _RUNNING_HEADER.search(r.text)]
    candidates: list[tuple[float, list[str], int]] = []  # (size, its lines, top baseline) of each type size that
    for size in sorted({r.size for r in top if r.size >= MIN_TITLE_RATIO * body}, reverse=True):  # stands out
        if candidates and size >= 0.95 * candidates[-1][0]:
            continue  # the same type, set a little smaller
        lines, scattered, y = _title_block([r for r in top if r.size <= size / 0.95], size)
        if not scattered:
            candidates.append((size, lines, y))
    if not candidates:
        return None
    size, lines, y = candidates[0]
    longer = [c for c in candidates[1:] if len(" ".join(c[1]).split()) > MASTHEAD_WORDS]
    if longer and len(" ".join(lines).split()) <= MASTHEAD_WORDS:
        above = [c for c in longer if c[2] > y]
        if above:
            lines = above[0][1]
        elif longer[0] is candidates[1] and candidates[1][0] >= MASTHEAD_NEXT * size:
            lines = candidates[1][1]
    kept = [line for line in lines if not _ARTICLE_TYPE.fullmatch(line)]  # "Research Article" set above the title
    return good_title(_join_lines(kept or lines))


def _title_block(top: Sequence[Run], biggest: float) -> tuple[list[str], bool, int]:
    """The lines set in `biggest` type from its highest line down (a line of small capitals has no run at the full
    size), whether more of that type sits elsewhere on the page (a figure's labels), and the highest baseline."""
    first = max(round(r.y) for r in top if r.size >= 0.95 * biggest)
    full = {round(r.y) for r in top if r.size >= 0.95 * biggest}
    capitals = {round(r.y) for r in top if r.size >= SMALL_CAPS * biggest and r.text.upper() == r.text}
    mixed = {round(r.y) for r in top if r.size >= SMALL_CAPS * biggest and r.text.upper() != r.text}
    # a line joins in the full type, or in small capitals only (an author line a size down is not the title)
    baselines = sorted({y for y in full | (capitals - mixed) if y <= first}, reverse=True)
    block = [first]
    for y in baselines[1:]:  # consecutive lines only: a later big line is something else
        if block[-1] - y > 2.2 * biggest:
            break
        block.append(y)
    elsewhere = any(r.size >= 0.95 * biggest and round(r.y) not in block for r in top)
    lines = []
    for y in block:  # every run on a title line (small capitals are smaller runs on the same baseline)
        line = "".join(r.text for r in top if round(r.y) == y and r.size >= 0.6 * biggest)  # fmt: skip
        lines.append(_norm(line))
    return lines, elsewhere, first


def _join_lines(lines: Sequence[str]) -> str:
    out = ""
    for line in lines:
        if out.endswith("-") and line[:1].isalpha() and out[-2:-1].isalpha():
            out = out[:-1] + line  # "RE-" + "THINKING": a word the title broke
        else:
            out = f"{out} {line}" if out else line
    return out


def choose_title(meta: object, by_size: str | None, page_text: str) -> str | None:
    """The metadata title when page 1 shows (nearly) every word of it, else the title set in the largest type (a
    chapter's number before it left out: "7 Active Inference in Discrete Time")."""
    candidate = good_title(meta)
    if candidate:
        words = _words(candidate)
        shown = set(_words(page_text[:4000]))
        if words and sum(w in shown for w in words) >= 0.8 * len(words):
            return without_chapter_number(candidate)
    return without_chapter_number(by_size) if by_size else by_size


def without_chapter_number(title: str) -> str:
    return _CHAPTER_NUMBER.sub("", title)


def identifiers(first_page: str) -> dict[str, str]:
    """arXiv id and year from arXiv's side stamp, and a DOI (joined across a line break), when page 1 shows them."""
    found: dict[str, str] = {}
    if m := _ARXIV_STAMP_RE.search(first_page):
        found["arxiv_id"], found["year"] = m.group(1), m.group(2)
    if "year" not in found and (years := [int(y) for m in _YEAR_CUES for y in m.findall(first_page)]):
        found["year"] = str(max(years))  # the latest: a first page also shows when the work was received
    if m := _DOI_RE.search(first_page):
        doi = m.group(1) + _doi_rest(first_page[m.end() :])
        # layout text may glue the page number on: "...03.0111" where the plain text reads "...03.011 1"
        shorter = min((d for d in _DOI_RE.findall(first_page) if doi.startswith(d) and doi[len(d) :].isdigit()),
                      key=len, default=doi)  # fmt: skip
        found["doi"] = shorter if len(doi) - len(shorter) <= 2 else doi
    return found


def _doi_rest(after: str) -> str:
    """The part of a DOI on the next line: "10.1371/journal." / "pone.0254321". Only a separator at the break, or
    a next line that is one DOI-like token (a digit and a dot or slash in it) continues it; "Keywords" or
    "1 Introduction" on the next line does not."""
    m = _DOI_TAIL_RE.match(after)
    if not m:
        return ""
    sep, tail = m.group(1), m.group(2).rstrip(".,;)")
    return sep + tail if sep or (re.search(r"\d", tail) and re.search(r"[./]", tail)) else ""
