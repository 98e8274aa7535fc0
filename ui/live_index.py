"""The index the web UI answers from, as it is now. No gradio here.

- Opened when it exists: a missing, empty or mistyped index (`--home`, `--collection`) is never filled with the
  bundled sample papers behind the visitor's back. The page says so (`missing`), names the other collections of
  the data directory, and offers to index the 19 sample papers into this collection (`index_sample`); an index
  that appears meanwhile (`rag index` in another terminal) is opened at the next question or page refresh.
- Re-counted when another process re-indexes: `snapshot()` lets the retriever look for a re-index
  (`Retriever.refresh_if_reindexed`, at most every `ui_refresh_s`) and counts the papers again only when the
  fingerprint of what it searches changed: the header never promises papers a search cannot find yet.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rag.answer.assistant import Assistant
from rag.errors import IndexMissingError, RagError
from rag.factory import Chats, build_index, open_assistant, open_store
from rag.index.docstore import DocStore
from rag.settings import BUNDLED_CORPUS, DEFAULT_MIN_RELEVANCE, Settings
from rag.types import Paper
from ui.message import View
from ui.operator import REFUSED, OperatorOnly
from ui.page import IndexInfo
from ui.startup import index_info

RETRY_S = 2.0  # how often a missing index is looked for again


@dataclass(frozen=True)
class Snapshot:
    """What the header and the library show, and the stamp it was counted at."""

    info: IndexInfo
    papers: list[Paper] = field(default_factory=list)
    stamp: str = ""


def sample_count() -> int:
    with BUNDLED_CORPUS.open(encoding="utf-8") as f:
        return sum(1 for line in f if line.strip())


def other_collections(settings: Settings) -> list[tuple[str, int]]:
    """(name, papers) of the other collections this data directory holds local copies of."""
    found = []
    for docs_dir in sorted(settings.index_dir.glob("docs-*")) if settings.index_dir.is_dir() else []:
        name = docs_dir.name.removeprefix("docs-")
        if name == settings.collection or name.endswith("-rebuild"):
            continue
        try:
            docs = DocStore.load(docs_dir)
            papers = sum(1 for cid in docs.ids if cid.endswith(":0")) if docs is not None else 0
        except (OSError, ValueError, RagError):
            continue
        if papers:
            found.append((name, papers))
    return found


class LiveIndex:
    """The Assistant over the configured index, or why there is none; thread-safe."""

    def __init__(self, settings: Settings, opener: Callable[..., Assistant] = open_assistant,
                 assistant: Assistant | None = None, operator: bool = True) -> None:  # fmt: skip
        """Opens the index now, unless given the `assistant` to serve (an index opened elsewhere). Not the
        `operator`'s (ui.operator): no path in what it says, and no indexing."""
        self.settings, self.opener, self.operator = settings, opener, operator
        self.chats: Any = assistant.chats if assistant is not None else Chats(settings)
        self._assistant: Assistant | None = assistant
        self._lock = threading.Lock()
        self._tried_at = 0.0
        self.missing: str | None = None
        self._snapshot: Snapshot | None = None
        if assistant is None:
            self._open()

    def _open(self) -> None:
        """Open the index if there is one with papers in it; else record why not. An index built with another
        embedder is the operator's to fix: raised (the message says how)."""
        self._tried_at = time.monotonic()
        s = self.settings
        try:
            assistant = self.opener(s, chats=self.chats)
        except IndexMissingError:
            if (s.chroma_url or s.index_dir.is_dir()) and open_store(s).exists():
                raise  # built with another embedder: the message says what to do
            home = str(s.home) if self.operator else "the server's data directory"
            where = "on the Chroma server" if s.chroma_url else f"in {home}"
            gone = not s.chroma_url and not s.home.is_dir()
            self.missing = self._why(f"the data directory {s.home} does not exist" if gone and self.operator
                                     else "the server's data directory does not exist" if gone
                                     else f"there is no collection '{s.collection}' {where}")  # fmt: skip
            return
        if assistant.retriever.store.count() == 0:
            at = f" at {s.home}" if self.operator else ""
            self.missing = self._why(f"the collection '{s.collection}'{at} is empty")
            return
        self._assistant, self.missing = assistant, None

    def _why(self, what: str) -> str:
        others = other_collections(self.settings)
        named = "; ".join(f"'{name}' ({n:,} paper{'s' if n != 1 else ''})" for name, n in others)
        return what + (f". This data directory also holds {named}" if named else "")

    def current(self) -> Assistant | None:
        """The Assistant, opening the index first if it has appeared since the last look."""
        if self._assistant is None and time.monotonic() - self._tried_at >= RETRY_S:
            with self._lock:
                if self._assistant is None:
                    self._open()
        return self._assistant

    def index_sample(self, progress: Callable[[int, int], None] | None = None) -> str:
        """Index the bundled sample papers into this collection (only while it has none). Returns a line. Raises
        OperatorOnly on a page that is not the operator's (the button is not there: a crafted call)."""
        if not self.operator:
            raise OperatorOnly(REFUSED)
        with self._lock:
            if self._assistant is not None:
                return "This collection already has papers."
            report = build_index(self.settings, progress=progress)
            self._open()
        return report.line()

    def view(self) -> View:
        """What rendering needs, with the relevance floor in force: calibrated on the library at index time, or the
        min_relevance setting; the index may appear or be rebuilt while the UI runs, so it is read per turn."""
        assistant = self.current()
        if assistant is not None:
            return View(assistant.floors().relevance)
        setting = self.settings.retrieval.min_relevance
        return View(DEFAULT_MIN_RELEVANCE if setting is None else setting)

    def paper(self, paper_id: str) -> Paper | None:
        assistant = self.current()
        return assistant.retriever.paper(paper_id) if assistant is not None else None

    def snapshot(self) -> Snapshot:
        """The header's and the library's contents, counted again only when the index changed."""
        assistant = self.current()
        s = self.settings
        if assistant is None:
            return Snapshot(IndexInfo(s.collection, 0, None, missing=self.missing,
                                      home=str(s.home) if self.operator else "", operator=self.operator))
        retriever = assistant.retriever
        retriever.refresh_if_reindexed(every_s=s.ui.ui_refresh_s)
        # the fingerprint of what the retriever searches: the page counts anew once searches see the new papers
        stamp = str(getattr(retriever.lexical, "fingerprint", "") or "")
        cached = self._snapshot
        if cached is None or cached.stamp != stamp:
            info, papers = index_info(assistant, s)
            cached = self._snapshot = Snapshot(info, papers, stamp)
        return cached

    def close(self) -> None:
        if self._assistant is not None:
            self._assistant.close()
        elif callable(getattr(self.chats, "close", None)):
            self.chats.close()
