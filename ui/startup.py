"""Open the Assistant the web UI serves (when there is no index, or it is empty, build the bundled corpus first),
and read what the page says about the index. No gradio here."""

from __future__ import annotations

import time

from rag.answer.assistant import Assistant
from rag.errors import IndexMissingError
from rag.factory import build_index, indexed_papers, layout_of, open_assistant, open_store
from rag.settings import Settings
from rag.types import Paper
from ui.page import LIBRARY_MAX, IndexInfo


def _build_bundled(settings: Settings, why: str) -> None:
    print(f"{why}: indexing the bundled corpus before starting the UI…", flush=True)
    shown = [-1]

    def progress(done: int, total: int) -> None:
        pct = 100 * done // max(total, 1)
        if pct // 10 != shown[0] // 10 or done == total:
            shown[0] = pct
            print(f"  embedded {done}/{total} chunks ({pct}%)", flush=True)

    print(build_index(settings, progress=progress).line(), flush=True)


def open_ui_assistant(settings: Settings) -> Assistant:
    """The Assistant over the index; builds the bundled corpus first when there is no index or it is empty."""
    try:
        assistant = open_assistant(settings)
    except IndexMissingError as exc:
        if open_store(settings).exists():
            raise  # built with another embedder: the message says what to do
        _build_bundled(settings, f"No index yet ({exc})")
        return open_assistant(settings)
    if assistant.retriever.store.count() == 0:
        assistant.close()
        _build_bundled(settings, f"The index at {settings.index_dir} is empty")
        assistant = open_assistant(settings)
    return assistant


def index_info(assistant: Assistant, settings: Settings) -> tuple[IndexInfo, list[Paper]]:
    """What the header says about the index, and the papers the library lists (the first LIBRARY_MAX of them).
    Cosmetic: a store that cannot be read here gives "the index" and an empty list, never a failed start."""
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
    try:
        indexed_at = str(assistant.retriever.store.info.get("indexed_at") or "") or None
        if indexed_at is None and layout_of(settings).docs_dir.exists():  # an index built before it was recorded
            mtime = layout_of(settings).docs_dir.stat().st_mtime
            indexed_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(mtime))
    except Exception:
        pass
    return IndexInfo(settings.collection, count, indexed_at, assistant.retriever.stale), papers
