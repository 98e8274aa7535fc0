"""Abbreviations an abstract defines itself, by the Schwartz-Hearst algorithm (Schwartz & Hearst, "A simple
algorithm for identifying abbreviation definitions in biomedical text", PSB 2003).

Two patterns: "long form (SF)" and, less often, "SF (long form)". A short form is one or two words of at most ten
characters holding a letter and starting with a letter or digit. Its long form is found by walking the short
form's letters and digits from the last to the first and, for each, looking leftwards through the words before
the parenthesis for the same character; the first one must start a word. The long form is then the text from that
word on, at most min(|SF| + 5, 2|SF|) words. Nothing here is tuned to a corpus: it is the published algorithm.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_PAREN = re.compile(r"\(([^()]{1,120})\)")
_WORD = re.compile(r"\S+")
MAX_SHORT = 10


@dataclass(frozen=True)
class Abbreviation:
    short: str  # "KDS"
    long: str  # "Kernel Divergence Score"
    start: int  # where the definition ("long form (SF)" or "SF (long form)") starts in the text
    end: int  # ... and ends


def _valid_short(short: str) -> bool:
    return (
        2 <= len(short) <= MAX_SHORT
        and len(short.split()) <= 2
        and short[0].isalnum()
        and any(c.isalpha() for c in short)
        and not short.lower().startswith(("e.g", "i.e", "http"))
    )


def best_long_form(short: str, long: str) -> str | None:
    """Schwartz and Hearst's `findBestLongForm`: the shortest end of `long` whose words hold the short form's
    characters in order, the first at the start of a word (None when there is none)."""
    s, i = len(short) - 1, len(long) - 1
    while s >= 0:
        c = short[s].lower()
        if not c.isalnum():
            s -= 1
            continue
        while i >= 0 and (long[i].lower() != c or (s == 0 and i > 0 and long[i - 1].isalnum())):
            i -= 1
        if i < 0:
            return None
        i -= 1
        s -= 1
    start = max(long.rfind(" ", 0, i + 1), long.rfind("\u00a0", 0, i + 1)) + 1
    return long[start:]


def _accept(short: str, long: str | None) -> bool:
    if not long:
        return False
    words = long.split()
    return (
        len(long) > len(short)
        and len(words) <= min(len(short) + 5, 2 * len(short))
        and short.lower() not in (w.lower() for w in words)
        and long[0].isalnum()
    )


def abbreviations(text: str) -> tuple[Abbreviation, ...]:
    """Every abbreviation `text` defines, in order (cached: an abstract is asked about again and again)."""
    return _abbreviations(text)


@lru_cache(maxsize=4096)
def _abbreviations(text: str) -> tuple[Abbreviation, ...]:
    found: list[Abbreviation] = []
    for m in _PAREN.finditer(text):
        inside = re.split(r"[;,]\s", m.group(1).strip())[0].strip()
        before = text[: m.start()].rstrip(" ~\u00a0")
        words = [w for w in _WORD.finditer(before)]
        if _valid_short(inside):  # long form (SF)
            limit = min(len(inside) + 5, 2 * len(inside))
            window = words[-limit:]
            if window:
                candidate = before[window[0].start() :]
                long = best_long_form(inside, candidate)
                if long and _accept(inside, long):
                    found.append(Abbreviation(inside, long, len(before) - len(long), m.end()))
                    continue
        if len(inside.split()) > 2 and words:  # SF (long form)
            short = words[-1].group(0).strip("\"'")
            if _valid_short(short) and any(c.isupper() for c in short):
                long = best_long_form(short, inside)
                if long is not None and long == inside and _accept(short, long):
                    found.append(Abbreviation(short, long, words[-1].start(), m.end()))
    return tuple(found)
