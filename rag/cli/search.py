"""`rag search`: the best-matching papers, as lines or as JSON."""

from __future__ import annotations

import argparse

from rag.cli.output import print_json, say
from rag.filters import Filters
from rag.safe_text import safe_url
from rag.settings import Settings
from rag.text import pages_label


def cmd_search(args: argparse.Namespace, settings: Settings, filters: Filters) -> int:
    from rag.factory import open_retriever

    hits = open_retriever(settings, one_shot=True).search(args.query, args.k, filters=filters, mode=args.mode)
    if args.json:
        print_json({
            "query": args.query.encode("utf-8", "replace").decode("utf-8"),  # undecodable argv bytes
            "hits": [
                {
                    "paper_id": h.paper.id,
                    "title": h.paper.title,
                    "url": safe_url(h.paper.url),
                    "score": round(h.score, 4),
                    "dense_score": None if h.dense_score is None else round(h.dense_score, 4),
                    "chunk_id": h.chunk_id,
                    "page": h.page,
                    "page_end": h.page_end,
                    "section": h.section,
                    "text": h.text,
                }
                for h in hits
            ],
        })  # fmt: skip
        return 0
    if not hits:
        say("no matching papers")
    for rank, h in enumerate(hits, 1):
        year = f" ({h.paper.year})" if h.paper.year else ""
        where = f", {pages_label(h.page, h.page_end)}" if h.page is not None else ""
        say(f"{rank:2}. [{h.score:.2f}] {h.paper.title}{year}{where}  {h.paper.id}")
        if url := safe_url(h.paper.url):
            say(f"    {url}")
    return 0
