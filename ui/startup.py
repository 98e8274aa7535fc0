"""What the page says about the index it answers from. No gradio here. (Opening it: ui.live_index.)"""

from __future__ import annotations

import time

from rag.answer.assistant import Assistant
from rag.factory import indexed_papers, layout_of
from rag.settings import Settings
from rag.types import Paper
from ui.page import LIBRARY_MAX, IndexInfo


def index_info(assistant: Assistant, settings: Settings) -> tuple[IndexInfo, list[Paper]]:
    """What the header says about the index, and the papers the library lists (the first LIBRARY_MAX of them).
    Cosmetic: a store that cannot be read here gives "the index" and an empty list, never a failed start. Read
    fresh each time: another process may have re-indexed since the last count."""
    papers: list[Paper] = []
    count: int | None = 0
    try:
        for paper in indexed_papers(settings, store=assistant.retriever.store):
            count = (count or 0) + 1
            if len(papers) < LIBRARY_MAX:
                papers.append(paper)
    except Exception:
        count = None
    indexed_at: str | None = None
    layout = layout_of(settings)
    try:
        indexed_at = str(assistant.retriever.store.fresh_info().get("indexed_at") or "") or None
        if indexed_at is None and layout.docs_dir.exists():  # an index built before it was recorded
            indexed_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(layout.docs_dir.stat().st_mtime))
    except Exception:
        pass
    return IndexInfo(settings.collection, count, indexed_at, layout.dirty_marker.exists()), papers
