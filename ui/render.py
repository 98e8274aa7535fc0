"""Pure HTML rendering for the web UI: answers, source cards, the abstract panel, the copy text.

Every piece of text that comes from a paper, a question or an answer goes through `esc` before it is
put into HTML, and a URL becomes a link only when its scheme is http or https. No gradio here.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

from rag.answer.citations import strip_markers
from rag.types import Answer, Hit, Paper

UNSUPPORTED_TIP = "not supported by the cited sources"
_MARKER = re.compile(r"\[(\d+)\]")
_MAX_AUTHORS = 6


def esc(text: object) -> str:
    """HTML-escape anything (None -> "") so it renders as text, quotes included."""
    return html.escape("" if text is None else str(text), quote=True)


def safe_url(url: str | None) -> str | None:
    """The URL, escaped for an attribute, when it is an absolute http(s) URL; else None."""
    if not url:
        return None
    url = url.strip()
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc or any(c in url for c in "\r\n\t "):
        return None
    return esc(url)


def ext_link(url: str | None, label: str, cls: str = "ext") -> str:
    href = safe_url(url)
    if href is None:
        return ""
    return f'<a class="{cls}" href="{href}" target="_blank" rel="noopener noreferrer">{esc(label)}</a>'


def authors_line(authors: Sequence[str]) -> str:
    names = list(authors)
    text = ", ".join(names[:_MAX_AUTHORS])
    return text + (" et al." if len(names) > _MAX_AUTHORS else "")


def paper_meta(paper: Paper) -> str:
    """ "Authors · Venue · Year", escaped."""
    parts = [authors_line(paper.authors), paper.venue or "", str(paper.year) if paper.year else ""]
    return " · ".join(esc(p) for p in parts if p)


# -- chat messages ------------------------------------------------------------------------------
def render_error(message: str) -> str:
    return "⚠ " + esc(message)


def render_stream(text: str) -> str:
    """The raw deltas while an answer streams (not yet verified)."""
    return esc(text)


def _link_markers(escaped: str, n_sources: int) -> str:
    def link(m: re.Match[str]) -> str:
        n = int(m.group(1))
        if 1 <= n <= n_sources:
            return f'<a class="cite" href="#src-{n}" title="source {n}">[{n}]</a>'
        return m.group(0)

    return _MARKER.sub(link, escaped)


def find_sentence(text: str, sentence: str, start: int = 0) -> tuple[int, int] | None:
    """Where `sentence` (as the support check split it) sits in `text`, markers and spacing aside."""
    words = re.findall(r"\w+", strip_markers(sentence))
    if not words:
        return None
    gap = r"(?:\[\d+\]|\W)+"
    tail = r"(?:\s*\[\d+\])*[.!?]?(?:\s*\[\d+\])*"
    m = re.compile(r"(?<!\w)" + gap.join(re.escape(w) for w in words) + r"(?!\w)" + tail).search(text, start)
    return (m.start(), m.end()) if m else None


def mark_answer(text: str, unsupported: Sequence[str], n_sources: int) -> tuple[str, list[str]]:
    """Escaped answer text with [n] as links to the source cards and unsupported sentences wrapped in
    <span class="unsupported">. Also returns the unsupported sentences that could not be located."""
    spans: list[tuple[int, int]] = []
    unplaced: list[str] = []
    for sentence in unsupported:
        pos, found = 0, None
        while (hit := find_sentence(text, sentence, pos)) is not None:
            if not any(s < hit[1] and hit[0] < e for s, e in spans):
                found = hit
                break
            pos = hit[0] + 1
        if found:
            spans.append(found)
        else:
            unplaced.append(sentence)
    out, pos = [], 0
    for s, e in sorted(spans):
        out.append(_link_markers(esc(text[pos:s]), n_sources))
        out.append(
            f'<span class="unsupported" title="{UNSUPPORTED_TIP}">⚠ {_link_markers(esc(text[s:e]), n_sources)}</span>'
        )
        pos = e
    out.append(_link_markers(esc(text[pos:]), n_sources))
    return "".join(out), unplaced


def render_answer(answer: Answer) -> str:
    """The verified answer as a chat message: body, notes, then which backend answered."""
    body, unplaced = mark_answer(answer.text, answer.unsupported, len(answer.sources))
    notes: list[str] = []
    if not answer.complete:
        notes.append('<p class="incomplete">⚠ The answer stream broke off: this answer is incomplete.</p>')
    if unplaced:
        items = "".join(f"<li>{_link_markers(esc(s), len(answer.sources))}</li>" for s in unplaced)
        notes.append(
            f'<p class="unsupported" title="{UNSUPPORTED_TIP}">⚠ Not supported by the cited sources:</p>'
            f"<ul>{items}</ul>"
        )
    if answer.notes:
        notes.append('<ul class="note-list">' + "".join(f"<li>{esc(n)}</li>" for n in answer.notes) + "</ul>")
    parts = [body]
    if notes:
        parts.append('<div class="answer-notes">' + "".join(notes) + "</div>")
    parts.append(f'<div class="answer-meta">{answer_meta(answer)}</div>')
    return "\n\n".join(parts)


def answer_meta(answer: Answer) -> str:
    model = "" if answer.model in ("", answer.backend) else f" ({esc(answer.model)})"
    cited = len(answer.citations)
    bits = [f"answered by <b>{esc(answer.backend)}</b>{model}"]
    if answer.mode == "summary":
        bits.append("summary mode")
    bits.append(f"{cited} source{'s' if cited != 1 else ''} cited")
    if answer.unsupported:
        bits.append(f"{len(answer.unsupported)} unsupported")
    if answer.checks:
        bits.append("checked " + " + ".join("LLM" if c == "llm" else c for c in answer.checks))
    if answer.latency_s:
        bits.append(f"{answer.latency_s:.1f} s" if answer.latency_s >= 0.1 else f"{answer.latency_s * 1000:.0f} ms")
    return " · ".join(bits)


def plain_text(message: str) -> str:
    """A rendered assistant message back to plain text (for the follow-up history)."""
    text = re.sub(r'<div class="answer-(?:notes|meta)">.*?</div>', "", message, flags=re.DOTALL)
    text = re.sub(r'(<span class="unsupported"[^>]*>)⚠ ', r"\1", text)
    text = re.sub(r"<[^>]+>", "", text)
    return html.unescape(text).strip()


# -- sources panel ------------------------------------------------------------------------------
def source_card(n: int, hit: Hit) -> str:
    p = hit.paper
    pid = esc(p.id)
    links = " ".join(x for x in (ext_link(p.url, "Paper ↗"), ext_link(p.code_url, "Code ↗")) if x)
    meta = paper_meta(p)
    return (
        f'<article class="src-card" id="src-{n}" data-paper-id="{pid}">'
        f'<div class="src-head"><span class="src-num">{n}</span><div class="src-title">{esc(p.title)}</div></div>'
        + (f'<div class="src-meta">{meta}</div>' if meta else "")
        + f'<blockquote class="src-passage">{esc(hit.text)}</blockquote>'
        f'<div class="src-actions">{links}'
        f'<button type="button" class="show-abstract" data-paper-id="{pid}">Show abstract</button>'
        f'<span class="src-id">{pid} · relevance {hit.score:.2f}</span></div></article>'
    )


def _panel(heading: str, cards: str, extra: str = "") -> str:
    return f'<div class="sources-panel"><div class="sources-heading">{heading}</div>{cards}{extra}</div>'


def render_sources_empty(message: str = "Sources of the answer appear here.") -> str:
    return f'<div class="sources-panel"><div class="sources-empty">{esc(message)}</div></div>'


def render_retrieved(hits: Sequence[Hit]) -> str:
    """While the answer is written: every retrieved paper."""
    if not hits:
        return render_sources_empty("No indexed paper matches the question.")
    cards = "".join(source_card(n, h) for n, h in enumerate(hits, 1))
    return _panel(f"Retrieved {len(hits)} paper{'s' if len(hits) != 1 else ''} · answering…", cards)


def render_sources(answer: Answer) -> str:
    """After the answer: the cited papers (the closest ones when it abstained), the rest folded away."""
    hits = answer.sources
    if not hits:
        return render_sources_empty("No indexed paper matches the question.")
    cited = sorted({c.n for c in answer.citations if 1 <= c.n <= len(hits)})
    if answer.abstained or not cited:
        heading = "Closest papers · none of them answers the question" if answer.abstained else "Retrieved papers"
        return _panel(heading, "".join(source_card(n, hits[n - 1]) for n in range(1, len(hits) + 1)))
    cards = "".join(source_card(n, hits[n - 1]) for n in cited)
    others = [n for n in range(1, len(hits) + 1) if n not in cited]
    extra = ""
    if others:
        extra = (
            f'<details class="src-others"><summary>Also retrieved, not cited ({len(others)})</summary>'
            + "".join(source_card(n, hits[n - 1]) for n in others)
            + "</details>"
        )
    return _panel(f"Cited source{'s' if len(cited) != 1 else ''} ({len(cited)})", cards, extra)


def render_paper(paper: Paper | None, paper_id: str = "") -> str:
    """The full abstract of one paper, as a dialog over the page."""
    if paper is None:
        inner = f'<h2 class="paper-title">Paper not found</h2><p>No paper with id {esc(paper_id)} is in the index.</p>'
    else:
        links = " ".join(x for x in (ext_link(paper.url, "Paper ↗"), ext_link(paper.code_url, "Code ↗")) if x)
        inner = (
            f'<h2 class="paper-title">{esc(paper.title)}</h2>'
            f'<div class="paper-meta">{paper_meta(paper)}</div>'
            f'<div class="paper-links">{links}<span class="src-id">{esc(paper.id)}</span></div>'
            f'<div class="paper-abstract-label">Abstract</div><p class="paper-abstract">{esc(paper.abstract)}</p>'
        )
    return (
        '<div class="paper-modal" role="dialog" aria-modal="true" aria-label="Paper abstract">'
        '<div class="paper-backdrop" data-close="1"></div><div class="paper-box">'
        '<button type="button" class="paper-close" data-close="1" aria-label="Close">✕</button>'
        f"{inner}</div></div>"
    )


# -- header and copy text -----------------------------------------------------------------------
def render_header(papers: int | None, stale: bool = False) -> str:
    count = f"{papers:,} indexed paper abstract{'s' if papers != 1 else ''}" if papers is not None else "the index"
    warn = ""
    if papers == 0:
        warn = '<p class="banner">⚠ The index is empty: add papers with <code>rag index FILES</code>.</p>'
    elif stale:
        warn = '<p class="banner">⚠ An index update did not finish; run <code>rag index</code> again.</p>'
    return (
        '<div class="app-header"><h1>Paper QA</h1>'
        f"<p>Answers from {esc(count)}. Every claim cites its paper as [n]; sentences that no cited source "
        f"supports are marked ⚠.</p>{warn}</div>"
    )


def reference_line(n: int, paper: Paper) -> str:
    parts = [f"[{n}] {paper.title}."]
    if paper.authors:
        parts.append(authors_line(paper.authors) + ".")
    venue = " ".join(x for x in (paper.venue or "", f"({paper.year})" if paper.year else "") if x)
    if venue:
        parts.append(venue + ".")
    if paper.url:
        parts.append(paper.url)
    return " ".join(parts)


def answer_with_references(answer: Answer) -> str:
    """Plain text for the clipboard: the answer, then the numbered list of the papers it cites."""
    lines = [answer.text.strip()]
    if answer.unsupported:
        lines.append(f"\n(Not supported by the cited sources: {len(answer.unsupported)} sentence(s).)")
    if answer.citations:
        lines.append("\nReferences")
        for c in sorted(answer.citations, key=lambda c: c.n):
            if 1 <= c.n <= len(answer.sources):
                lines.append(reference_line(c.n, answer.sources[c.n - 1].paper))
    return "\n".join(lines)


# -- page style and the two small scripts (run by gr.HTML's js_on_load; they only trigger events) --
_STATIC = Path(__file__).parent / "static"
CSS = (_STATIC / "app.css").read_text(encoding="utf-8")
SOURCES_JS = (_STATIC / "sources.js").read_text(encoding="utf-8")
PAPER_JS = (_STATIC / "paper.js").read_text(encoding="utf-8")
