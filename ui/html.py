"""Small HTML helpers every renderer uses: escaping, safe links, a paper's byline. No gradio here.

Every piece of text from a paper, a question or an answer goes through `esc` (or `txt`, which also cleans
LaTeX leftovers for reading) before it is put into HTML, and a URL becomes a link only when it is absolute
http or https. No text is ever handed to a Markdown renderer: the chat renders our HTML as it is.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from rag.safe_text import safe_url as text_safe_url
from rag.types import Paper
from ui.display import readable

MAX_AUTHORS = 6


def esc(text: object) -> str:
    """HTML-escape anything (None -> "") so it renders as text, quotes included."""
    return html.escape("" if text is None else str(text), quote=True)


def txt(text: object) -> str:
    """Escaped and cleaned for reading (`10\\%` -> `10%`)."""
    return esc(readable("" if text is None else str(text)))


def safe_url(url: str | None) -> str | None:
    """The URL, escaped for an attribute, when it is an absolute http(s) URL (rag.safe_text, the gate every
    output shares); else None."""
    safe = text_safe_url(url)
    return None if safe is None else esc(safe)


def ext_link(url: str | None, label: str, cls: str = "ext", more: str = "") -> str:
    """A link to an http(s) URL in a new tab; `more`: words only a screen reader reads, after the label (a text,
    not aria-label: the chat's HTML sanitiser removes aria attributes)."""
    href = safe_url(url)
    if href is None:
        return ""
    extra = f'<span class="sr-only">{esc(more)}</span>' if more else ""
    return f'<a class="{cls}" href="{href}" target="_blank" rel="noopener noreferrer">{esc(label)}{extra}</a>'


def paper_links(paper: Paper) -> str:
    """ "Paper ↗" and "Code ↗", read out with their paper's title (a list of identical "Paper" links says nothing)."""
    said = f": {readable(paper.title)} (opens in a new tab)"
    links = (ext_link(paper.url, "Paper ↗", more=said), ext_link(paper.code_url, "Code ↗", more=said))
    return " ".join(x for x in links if x)


def authors_line(authors: Sequence[str]) -> str:
    names = list(authors)
    text = ", ".join(names[:MAX_AUTHORS])
    return text + (" et al." if len(names) > MAX_AUTHORS else "")


def venue_year(paper: Paper) -> str:
    """ "ICML 2025" (not "ICML 2025 · 2025"), "NeurIPS · 2024", "2024" or ""."""
    venue, year = (paper.venue or "").strip(), str(paper.year) if paper.year else ""
    if venue and year and year in venue:
        return venue
    return " · ".join(x for x in (venue, year) if x)


def paper_meta(paper: Paper) -> str:
    """ "Authors · Venue Year", escaped."""
    return " · ".join(txt(p) for p in (authors_line(paper.authors), venue_year(paper)) if p)
