"""CSV records read from numbered physical lines, so that one broken record costs that record and no more.

`csv.reader` decides where a record ends; this module decides what a broken one costs. Each record is read with
the physical lines it spans. When it is broken (a csv.Error, the wrong number of fields, or a quoted field that
runs away), or when a well-formed quoted field spans lines that look like rows of their own, the lines after its
first are parsed again on their own:

- they are all good rows (or a record still open at their end): the quote on the first line was never closed.
  That line alone is the bad record and reading resumes on the next line, so the rows the quote swallowed are
  read as rows.
- none is a good row: the record really spans those lines and is broken as a whole; reading resumes after it.
- some are and some are not: no line is a safe place to resume, and the read stops with CorpusError even with
  --skip-bad (skipping would guess, and a wrong guess loses rows or indexes pieces of an abstract as papers).

What is a "good row" besides its field count? Paper tables have columns of short space-free values (ids, years,
DOIs, URLs): their shapes (`p1234` -> `a9`, `2020` -> `9`) are learned from the rows read so far. A line inside
a legitimate multi-line abstract that has the right number of commas still fails those shapes ("We show that A"
is no id), while a swallowed row fits them. A well-formed multi-line record is questioned only when the file has
such a column: in a table of free text alone a swallowed row and a paragraph with commas look the same, and the
record is kept as it is (RELIABILITY.md, known limits).

Memory: one record's lines at a time; a quoted field stops after RUNAWAY_ROWS lines in a row that are good rows,
or after RECORD_CHARS characters.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass

RUNAWAY_ROWS = 16  # continuation lines in a row that read as rows: the quote before them is not closed
RECORD_CHARS = 16 << 20  # a record never holds more (long abstracts are judged by max_abstract_chars, far below)
MAX_SHAPES = 8  # a column with more shapes than this is free text
_TOKEN_CHARS = 64
_DIGITS = re.compile(r"[0-9]+")
_LETTERS = re.compile(r"[^\W\d_]+")
_NOT_TOKEN = re.compile(r'[\s"]')
SAMPLE_AFTER = 1000  # rows whose shapes are all learned; then every 16th (whether a column is free text: every row)

Line = tuple[int, str]  # (physical line number, its text with its line ending)


class Unrecoverable(Exception):
    """No safe line to resume at; the message says why (the caller adds file and line)."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


class _Runaway(Exception):
    pass


def shape(value: str) -> str | None:
    """`p1234` -> `a9`, `10.1/x.2` -> `9.9/a.9`, "" -> ""; None for free text (spaces, quotes, long values)."""
    if len(value) > _TOKEN_CHARS or _NOT_TOKEN.search(value):
        return None
    return _LETTERS.sub("a", _DIGITS.sub("9", value))


class Profile:
    """What each column's values looked like so far: free text, or space-free tokens of a few known shapes."""

    def __init__(self, width: int, free: set[int] | None = None) -> None:
        self.width = width
        self.free = set(free or ())  # columns of free text: any value fits
        self.shapes: list[set[str] | None] = [set() for _ in range(width)]  # None: too many to know
        self._rows = 0

    def learn(self, row: list[str], one_line_only: bool = False) -> None:
        self._rows += 1
        sample = self._rows <= SAMPLE_AFTER or self._rows % 16 == 0  # shapes settle early; this keeps reading fast
        for j, value in enumerate(row):
            if j in self.free or (one_line_only and ("\n" in value or "\r" in value)):
                continue
            if len(value) > _TOKEN_CHARS or _NOT_TOKEN.search(value):
                self.free.add(j)
                continue
            seen = self.shapes[j]
            if sample and seen is not None and (s := _LETTERS.sub("a", _DIGITS.sub("9", value))) not in seen:
                self.shapes[j] = seen | {s} if len(seen) < MAX_SHAPES else None

    def with_own(self, row: list[str]) -> Profile:
        """A copy that also learned the row's one-line fields: the shape of a record's own id counts even when it
        is the first record of the file."""
        trial = Profile(self.width, self.free)
        trial.shapes, trial._rows = list(self.shapes), 0
        trial.learn(row, one_line_only=True)
        return trial

    @property
    def has_tokens(self) -> bool:
        return any(shapes != set() for j, shapes in enumerate(self.shapes) if j not in self.free)

    def fits(self, row: list[str]) -> bool:
        """The right number of fields; without a token column, that is all. With one, every token column holds a
        token, and at least one holds a non-empty value of a shape seen there before (an id like the others)."""
        if len(row) != self.width:
            return False
        tokens = [j for j in range(self.width) if j not in self.free and self.shapes[j] != set()]
        if not tokens:
            return True
        values = [(shape(row[j]), self.shapes[j]) for j in tokens]
        if any(s is None for s, _ in values):
            return False
        return any(s and (seen is None or s in seen) for s, seen in values)


def blank(row: list[str]) -> bool:
    return not any(cell.strip() for cell in row)


class _Feed:
    """Numbered lines for csv.reader. Keeps the lines of the record being read (`taken`), takes lines given back
    first, and stops a record whose quoted field runs away."""

    def __init__(self, lines: Iterator[str], profile: Profile | None) -> None:
        self._lines = lines
        self._again: list[Line] = []  # lines to read again, last first
        self._number = 0
        self.profile = profile
        self.taken: list[Line] = []
        self._chars = self._rows = 0

    def begin(self) -> None:
        self.taken, self._chars, self._rows = [], 0, 0

    def again(self, lines: list[Line]) -> None:
        self._again.extend(reversed(lines))

    def __iter__(self) -> _Feed:
        return self

    def __next__(self) -> str:
        if self._again:
            line = self._again.pop()
        else:
            text = next(self._lines)  # StopIteration: csv.reader ends the file (or the record, with an error)
            self._number += 1
            line = (self._number, text)
        self.taken.append(line)
        if len(self.taken) > 1:
            self._chars += len(line[1])
            self._rows = self._rows + 1 if self.profile and _good_alone(line[1], self.profile) else 0
            if self._rows >= RUNAWAY_ROWS or self._chars > RECORD_CHARS:
                raise _Runaway
        return line[1]


def _good_alone(text: str, profile: Profile) -> bool:
    try:
        rows = list(csv.reader([text], strict=True))
    except csv.Error:
        return False
    return len(rows) == 1 and not blank(rows[0]) and profile.fits(rows[0])


@dataclass(frozen=True)
class _Reparse:
    good: int
    bad: int
    open_at_end: bool


def _reparse(lines: list[Line], profile: Profile) -> _Reparse:
    """The records in `lines` read on their own: how many are good rows, how many are not, and whether the last
    one is still open (a quoted field that goes on past them)."""
    ended = False

    def texts() -> Iterator[str]:
        nonlocal ended
        yield from (text for _, text in lines)
        ended = True

    reader = csv.reader(texts(), strict=True)
    good = bad = 0
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return _Reparse(good, bad, False)
        except csv.Error:
            if ended:  # the end of `lines` came inside a quoted field
                return _Reparse(good, bad, True)
            bad += 1
            continue
        if not blank(row):
            good, bad = (good + 1, bad) if profile.fits(row) else (good, bad + 1)


class CsvRecords:
    """(first line, fields) for every record after the header, or (first line, why it is bad)."""

    def __init__(self, lines: Iterator[str], free_text: Collection[str] = ()) -> None:
        """`free_text`: header names (lower case) of columns known to hold text (abstract, title...)."""
        self._feed = _Feed(lines, None)
        self._free_text = free_text
        self._reader = csv.reader(self._feed, strict=True)

    def header(self) -> tuple[int, list[str] | str] | None:
        """The first non-blank record as it is (no resynchronising: the header defines the width)."""
        while True:
            self._feed.begin()
            try:
                row = next(self._reader)
            except StopIteration:
                return None
            except (csv.Error, _Runaway) as e:
                return self._feed.taken[0][0], f"malformed CSV ({_why(e)})"
            if not blank(row):
                free = {j for j, name in enumerate(row) if name.strip().lower() in self._free_text}
                self._feed.profile = Profile(len(row), free)
                return self._feed.taken[0][0], row

    def __iter__(self) -> Iterator[tuple[int, list[str] | str]]:
        feed, profile = self._feed, self._feed.profile
        assert profile is not None, "read the header first"
        while True:
            feed.begin()
            problem: str | None = None
            try:
                row = next(self._reader)
            except StopIteration:
                return
            except (csv.Error, _Runaway) as e:
                row, problem = [], f"malformed CSV ({_why(e)})"
            taken = feed.taken
            if problem is None and blank(row):
                continue
            if problem is None and len(row) != profile.width:
                problem = f"row has {len(row)} fields; the header has {profile.width}"
            first, last = taken[0][0], taken[-1][0]
            judge = profile if problem or len(taken) == 1 else profile.with_own(row)
            if len(taken) == 1 or (problem is None and not judge.has_tokens):
                if problem is None:
                    profile.learn(row)
                yield first, problem or row
                continue
            verdict = _reparse(taken[1:], judge)
            if verdict.good and verdict.bad:
                raise Unrecoverable(first, _mixed(first, last, problem))
            if problem is None and (verdict.bad or verdict.open_at_end or not verdict.good):
                profile.learn(row)  # a legitimate multi-line record
                yield first, row
            elif not verdict.bad or verdict.open_at_end:  # the quote on the first line was never closed
                feed.again(taken[1:])
                yield first, _unclosed(first, last, problem is None)
            else:  # none of them is a row: one record over several lines, broken as a whole
                yield first, f"{problem} in the record on lines {first}-{last}"


def _why(e: Exception) -> str:
    return "a quoted field runs away" if isinstance(e, _Runaway) else str(e)


def _unclosed(first: int, last: int, well_formed: bool) -> str:
    if well_formed:  # the quoted field closes, but the lines it swallowed read as rows
        return (f"malformed CSV (a quote on this line closes only on line {last} and the lines between read as "
                f"rows: an unclosed quote? reading resumes on line {first + 1})")  # fmt: skip
    return f"malformed CSV (a quote on this line is never closed; reading resumes on line {first + 1})"


def _mixed(first: int, last: int, problem: str | None) -> str:
    return (
        f"{problem or 'malformed CSV (a quoted field spans lines that read as rows)'}: lines {first}-{last} "
        "mix lines that read as rows with lines that do not, so no line is a safe place to resume (--skip-bad "
        f"cannot skip this); fix the quotes from line {first} on"
    )
