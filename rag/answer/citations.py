"""The citation protocol: sources are numbered [1]..[k] in the prompt; the answer's markers are parsed
afterwards; markers that point at no retrieved source are removed and counted; the cited list is built
from index metadata, never from model text."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.text import split_sentences
from rag.types import Citation, Hit

REFUSAL = "The indexed papers do not answer this question."

# [1], [1, 2], [1,2,3], [1-3], [1–3]; also the common model habits "[Source 1]" and "[source 2]"
_MARKER = re.compile(r"\[(?:sources?\s*)?(\d+(?:\s*[,;\u2013-]\s*\d+)*)\]", re.IGNORECASE)


def _numbers(group: str) -> list[int]:
    out: list[int] = []
    for part in re.split(r"\s*[,;]\s*", group):
        bounds = re.split(r"\s*[\u2013-]\s*", part)
        if len(bounds) == 2 and bounds[0].isdigit() and bounds[1].isdigit():
            lo, hi = int(bounds[0]), int(bounds[1])
            out.extend(range(lo, hi + 1) if 0 < hi - lo < 20 else [lo, hi])
        elif part.isdigit():
            out.append(int(part))
    return out


def parse_markers(text: str) -> list[int]:
    """Source numbers cited in the text, in order of first appearance, without duplicates."""
    seen: list[int] = []
    for m in _MARKER.finditer(text):
        for n in _numbers(m.group(1)):
            if n not in seen:
                seen.append(n)
    return seen


def clean_markers(text: str, valid: set[int]) -> tuple[str, int]:
    """Rewrite markers as [n][m] keeping only valid numbers; return the text and how many were removed."""
    removed = 0

    def fix(m: re.Match[str]) -> str:
        nonlocal removed
        keep = []
        for n in _numbers(m.group(1)):
            if n in valid and n not in keep:
                keep.append(n)
            elif n not in valid:
                removed += 1
        return "".join(f"[{n}]" for n in keep)

    cleaned = _MARKER.sub(fix, text)
    cleaned = re.sub(r"[ \t]+([.,;:])", r"\1", cleaned)
    return re.sub(r"[ \t]{2,}", " ", cleaned).strip(), removed


def strip_markers(sentence: str) -> str:
    return re.sub(r"\s+([.,;:!?])", r"\1", _MARKER.sub("", sentence)).strip()


def _is_heading(line: str) -> bool:
    """Lines such as "**Continual learning**" or "## Methods:" carry no claim."""
    if _MARKER.search(line) or len(line) > 80:
        return False
    return line.startswith("#") or line.endswith(":") or (line.startswith("**") and line.rstrip(":").endswith("**"))


def answer_sentences(text: str, keep_whole: Sequence[str] = ()) -> list[str]:
    """Sentences (and bullet lines) of an answer, markers kept: the units the support check judges.
    Phrases in `keep_whole` (paper titles such as "How Contaminated Is Your Benchmark? ...") are never split."""
    protected = {f"\x00{i}\x00": t for i, t in enumerate(keep_whole) if re.search(r"[.!?]\s", t)}
    for key, title in protected.items():
        text = text.replace(title, key)
    out: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or _is_heading(line):
            continue
        if line.startswith(("- ", "* ", "\u2022 ")):
            out.append(line)
            continue
        # a marker placed after the full stop belongs to the sentence before it
        line = re.sub(r"([.!?])\s*((?:\[\d[^\]]*\])+)", r" \2\1", line)
        out.extend(split_sentences(line))
    for key, title in protected.items():
        out = [sentence.replace(key, title) for sentence in out]
    return out


def citations_for(numbers: Sequence[int], hits: Sequence[Hit]) -> tuple[Citation, ...]:
    """Citation records for the cited source numbers, from the hits' metadata."""
    out = []
    for n in numbers:
        if 1 <= n <= len(hits):
            hit = hits[n - 1]
            paper = hit.paper
            out.append(Citation(n=n, paper_id=paper.id, title=paper.title, url=paper.url, page=hit.page,
                                page_end=hit.page_end))  # fmt: skip
    return tuple(out)


_MARKER_RUN = re.compile(r"(?:\s*\[(?:sources?\s*)?\d+(?:\s*[,;\u2013-]\s*\d+)*\])+", re.I)


def clauses_by_marker(sentence: str) -> list[tuple[str, tuple[int, ...]]]:
    """The sentence cut after each run of markers: (text, the source numbers its markers give). Text after the
    last run belongs to the last clause. One run: one clause. (The verify stage's attribution reads these.)"""
    out: list[tuple[str, tuple[int, ...]]] = []
    pos = 0
    for m in _MARKER_RUN.finditer(sentence):
        out.append((sentence[pos : m.start()], tuple(parse_markers(m.group()))))
        pos = m.end()
    if out and sentence[pos:].strip(" .;:!?"):
        text, numbers = out[-1]
        out[-1] = (text + sentence[pos:], numbers)
    return out
