"""The fixed parts of the page as HTML: the header (what is indexed), the library of indexed papers, and the
chip that shows the active filters outside the settings drawer. No gradio here."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rag.types import Paper
from ui.html import authors_line, esc, paper_links, txt, venue_year

LIBRARY_MAX = 2000  # papers listed in the library tab; a bigger index says how many more there are


@dataclass(frozen=True)
class IndexInfo:
    collection: str
    papers: int | None  # None: could not be counted
    indexed_at: str | None  # "2026-12-03T14:23:05Z", or None when the index does not say
    stale: bool = False  # an update did not finish
    missing: str | None = None  # why there is no index to answer from (ui.live_index), None when there is one
    home: str = ""  # the data directory, for the commands the page suggests ("" on a team's page: ui.operator)
    operator: bool = True  # the page offers to index the sample papers (ui.operator)


def render_missing(info: IndexInfo, sample: int) -> str:
    """The page of an index that is missing or empty: what is wrong, what is elsewhere, how to index (the sample
    papers from the page: the operator only)."""
    where = f"--home {info.home} " if info.home else ""
    offer = f", or index the {sample} sample papers that come with rag into this collection:" if info.operator else "."
    return (
        '<div class="missing-index" role="alert"><p class="missing-what">⚠ Nothing to answer from: '
        f"{esc(info.missing)}.</p><p>Index your papers with <code>rag index FILES {esc(where)}--collection "
        f"{esc(info.collection)}</code> (this page picks them up by itself), start the UI with the "
        f"<code>--home</code> or <code>--collection</code> you meant{offer}</p></div>"
    )


def render_header(info: IndexInfo, sample: int = 19) -> str:
    count = "the index" if info.papers is None else f"{info.papers:,} paper{'s' if info.papers != 1 else ''}"
    when = f" · indexed {esc(info.indexed_at[:10])}" if info.indexed_at else ""
    warn = ""
    if info.missing:
        count, warn = "no papers", render_missing(info, sample)
    elif info.papers == 0:
        warn = '<p class="banner">⚠ The index is empty: add papers with <code>rag index FILES</code>.</p>'
    elif info.stale:
        warn = '<p class="banner">⚠ An index update did not finish; run <code>rag index</code> again.</p>'
    return (
        '<div class="app-header"><h1>Paper QA</h1>'
        f'<p class="index-line">Collection <b>{esc(info.collection)}</b> · {esc(count)}{when}</p>'
        '<p class="how">Every claim cites its paper as [n]; sentences no cited source supports are marked ⚠.</p>'
        f"{warn}</div>"
    )


def render_library(papers: Sequence[Paper], total: int | None = None) -> str:
    """Every indexed paper (up to LIBRARY_MAX): title (opens the abstract), authors, venue and year, links."""
    shown = list(papers)[:LIBRARY_MAX]
    total = len(papers) if total is None else total
    rows = []
    for p in sorted(shown, key=lambda p: (-(p.year or 0), p.title.casefold())):
        search = esc(" ".join([p.title, *p.authors, str(p.year or ""), p.venue or ""]).casefold())
        rows.append(
            f'<li class="lib-item" data-search="{search}"><button type="button" class="show-abstract lib-title" '
            f'data-paper-id="{esc(p.id)}">{txt(p.title)}</button><div class="lib-meta">'
            + " · ".join(txt(x) for x in (authors_line(p.authors), venue_year(p)) if x)
            + f'</div><div class="lib-links">{paper_links(p)}<span class="src-id">{esc(p.id)}</span></div></li>'
        )
    more = f'<p class="lib-more">Showing {len(shown):,} of {total:,} papers.</p>' if total > len(shown) else ""
    return (
        '<div class="library"><input type="search" class="lib-filter" placeholder="Filter by title, author, year"'
        f' aria-label="Filter the indexed papers"><p class="lib-count">{total:,} indexed '
        f'paper{"s" if total != 1 else ""}</p><ul class="lib-list">{"".join(rows)}</ul>{more}</div>'
    )


def render_filter_chip(described: str, problem: str = "") -> str:
    """ "Filters: year ≥ 2030 [Clear]" when filters are set, a warning when one is not valid, else nothing."""
    if problem:
        return f'<div class="filter-chip bad" role="status">⚠ {esc(problem)}</div>'
    if not described:
        return ""
    return (f'<div class="filter-chip" role="status"><span>Filters: {esc(described)}</span>'
            '<button type="button" class="clear-filters" aria-label="Clear the filters">Clear ✕</button></div>')
