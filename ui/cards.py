"""The sources side panel and the abstract dialog, as HTML. No gradio here.

The panel holds one section per answer of the session (`<section class="turn-sources" data-aid="a3">`), the
latest shown; the page's script shows the section of the message the reader points at or clicks. A card shows
the sentences the citation check matched (not the start of the abstract), the cosine similarity against the
`min_relevance` threshold, and says when the source is cited only by unsupported sentences.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.answer.citations import strip_markers
from rag.text import pages_label
from rag.types import Hit, Paper
from ui.evidence import cited_numbers, closest, evidence, unsupported_only
from ui.html import esc, paper_links, paper_meta, txt
from ui.turns import Turn

UNSUPPORTED_ONLY = "cited only by a sentence its sources do not support"


def relevance(hit: Hit, min_relevance: float) -> str:
    """ "similarity 0.58" with a bar and a tick at the threshold; "below the threshold" under it."""
    if hit.dense_score is None:
        return '<span class="rel" title="found by keywords only (no similarity score)">keyword match</span>'
    sim = hit.dense_score
    fill, tick = max(0.0, min(1.0, sim)) * 100, max(0.0, min(1.0, min_relevance)) * 100
    tip = f"cosine similarity of question and passage; below {min_relevance:.2f} counts as not relevant"
    bar = (f'<span class="rel-bar" aria-hidden="true"><span class="rel-fill" style="width:{fill:.0f}%"></span>'
           f'<span class="rel-min" style="left:{tick:.0f}%"></span></span>')  # fmt: skip
    below = ' <span class="below">below the relevance threshold</span>' if sim < min_relevance else ""
    return f'<span class="rel" title="{esc(tip)}">similarity {sim:.2f}{bar}</span>{below}'


def where(hit: Hit) -> str:
    """ "p. 4" for a full-text chunk, else ""."""
    return pages_label(hit.page, hit.page_end)


def passage(turn: Turn, n: int, hit: Hit) -> tuple[str, str]:
    """(label, escaped sentences) a card quotes: the evidence, the closest sentences, or the passage's start."""
    a = turn.answer
    if a is not None and (found := evidence(a, n)):
        return "Evidence", " ".join(txt(s) for s in found)
    if a is not None and (found := closest(a, n)):
        return "Closest sentence (does not support the claim)", " ".join(txt(s) for s in found)
    return "From the passage", txt(hit.text)


def source_card(turn: Turn, n: int, hit: Hit, min_relevance: float) -> str:
    p, aid = hit.paper, turn.aid
    label, quoted = passage(turn, n, hit)
    flag = ""
    if turn.answer is not None and unsupported_only(turn.answer, n):
        flag = f'<div class="flag-unsupported">⚠ {UNSUPPORTED_ONLY}</div>'
    meta = " · ".join(x for x in (paper_meta(p), esc(where(hit))) if x)
    cls = "src-card" + (" unsupported-only" if flag else "") + (" quoted" if label == "Evidence" else "")
    return (
        f'<article class="{cls}" id="p-{aid}-{n}" data-paper-id="{esc(p.id)}">'
        f'<div class="src-head"><span class="src-num">{n}</span><div class="src-title">{txt(p.title)}</div></div>'
        + (f'<div class="src-meta">{meta}</div>' if meta else "")
        + flag
        + f'<div class="src-label">{esc(label)}</div><blockquote class="src-passage">{quoted}</blockquote>'
        f'<div class="src-actions">{paper_links(p)}<button type="button" class="show-abstract" '
        f'data-paper-id="{esc(p.id)}" data-aid="{aid}" data-n="{n}">Show abstract</button>'
        f'<span class="src-id">{esc(p.id)} · {relevance(hit, min_relevance)}</span></div></article>'
    )


def _heading(turn: Turn) -> tuple[str, list[int], list[int]]:
    """(heading, the numbers shown first, the numbers folded away)."""
    every = list(range(1, len(turn.sources) + 1))
    a = turn.answer
    if turn.error:
        return "No sources for this message", [], []
    if not turn.sources:
        if turn.filters and (a is not None or turn.searched):
            return f"No paper matches your filters: {turn.filters}", [], []
        return ("No indexed paper matches the question" if a is not None or turn.searched else "Searching…"), [], []
    count = f"{len(every)} paper{'s' if len(every) != 1 else ''}"
    if a is None:
        return f"Retrieved {count} · " + ("the answer was stopped" if turn.stopped else "answering…"), every, []
    cited = cited_numbers(a)
    if a.abstained or not cited:
        return ("Closest papers · none of them answers the question" if a.abstained else "Retrieved papers"), every, []
    return f"Cited source{'s' if len(cited) != 1 else ''} ({len(cited)})", cited, [n for n in every if n not in cited]


def turn_section(turn: Turn, number: int, min_relevance: float, visible: bool) -> str:
    heading, first, folded = _heading(turn)
    cards = "".join(source_card(turn, n, turn.sources[n - 1], min_relevance) for n in first)
    if folded:
        cards += (f'<details class="src-others"><summary>Also retrieved, not cited ({len(folded)})</summary>'
                  + "".join(source_card(turn, n, turn.sources[n - 1], min_relevance) for n in folded)
                  + "</details>")  # fmt: skip
    question = txt(turn.question[:160] + ("…" if len(turn.question) > 160 else ""))
    return (
        f'<section class="turn-sources" data-aid="{turn.aid}"{"" if visible else " hidden"}>'
        f'<div class="sources-for">Answer {number}: <q>{question}</q></div>'
        f'<div class="sources-heading">{esc(heading)}</div>{cards}</section>'
    )


def render_panel(turns: Sequence[Turn], min_relevance: float, selected: str | None = None) -> str:
    """Every answer's sources; the selected answer's (default: the latest) shown."""
    if not turns:
        return render_empty()
    show = selected if any(t.aid == selected for t in turns) else turns[-1].aid
    sections = "".join(turn_section(t, i, min_relevance, t.aid == show) for i, t in enumerate(turns, 1))
    return f'<div class="sources-panel">{sections}</div>'


def render_empty(message: str = "The sources of each answer appear here.") -> str:
    return f'<div class="sources-panel"><div class="sources-empty">{esc(message)}</div></div>'


def _find(text: str, sentence: str, start: int = 0) -> tuple[int, int] | None:
    at = text.find(sentence, start)
    if at >= 0:
        return at, at + len(sentence)
    words = re.findall(r"\w+", strip_markers(sentence))
    if not words:
        return None
    m = re.compile(r"(?<!\w)" + r"\W+".join(re.escape(w) for w in words) + r"(?!\w)[.!?]?").search(text, start)
    return (m.start(), m.end()) if m else None


def highlight(text: str, sentences: Sequence[str]) -> str:
    """Escaped text with each of `sentences` wrapped in <mark class="evidence">."""
    spans = sorted(s for s in (_find(text, x) for x in sentences) if s is not None)
    out, pos = [], 0
    for s, e in spans:
        if s < pos:
            continue
        out += [txt(text[pos:s]), f'<mark class="evidence">{txt(text[s:e])}</mark>']
        pos = e
    return "".join(out) + txt(text[pos:])


def render_paper(paper: Paper | None, paper_id: str = "", highlights: Sequence[str] = ()) -> str:
    """The whole abstract of one paper as a dialog over the page, the cited evidence marked."""
    if paper is None:
        inner = f'<h2 class="paper-title">Paper not found</h2><p>No paper with id {esc(paper_id)} is in the index.</p>'
    else:
        note = '<p class="paper-note">Marked: the sentences the answer\'s citation check matched.</p>'
        inner = (
            f'<h2 class="paper-title">{txt(paper.title)}</h2>'
            f'<div class="paper-meta">{paper_meta(paper)}</div>'
            f'<div class="paper-links">{paper_links(paper)}<span class="src-id">{esc(paper.id)}</span></div>'
            f'<div class="paper-abstract-label">Abstract</div>'
            f'<p class="paper-abstract">{highlight(paper.abstract, highlights)}</p>' + (note if highlights else "")
        )
    return (
        '<div class="paper-modal" role="dialog" aria-modal="true" aria-label="Paper abstract">'
        '<div class="paper-backdrop" data-close="1"></div><div class="paper-box">'
        '<button type="button" class="paper-close" data-close="1" aria-label="Close">✕</button>'
        f"{inner}</div></div>"
    )
