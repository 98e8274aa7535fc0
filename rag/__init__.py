"""Question answering over research-paper abstracts, with verified citations.

    import rag
    settings = rag.load_settings()
    rag.build_index(settings)                  # the bundled corpus, or rag.build_index(settings, ["my.bib"])
    hits = rag.search(settings, "oil wells from satellites")
    answer = rag.ask("How many wells are in the Alberta dataset?", settings=settings)
    assistant = rag.open_assistant(settings)   # holds the index and models for many questions

Names are imported lazily so `rag --help` and `rag search` start fast.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "load_settings": "rag.settings",
    "Settings": "rag.settings",
    "build_index": "rag.factory",
    "open_retriever": "rag.factory",
    "open_assistant": "rag.factory",
    "search": "rag.factory",
    "ask": "rag.factory",
    "IndexReport": "rag.index.indexer",
    "Retriever": "rag.retrieve.retriever",
    "Filters": "rag.filters",
    "Assistant": "rag.answer.assistant",
    "RagError": "rag.errors",
    "Paper": "rag.types",
    "Hit": "rag.types",
    "Answer": "rag.types",
    "Citation": "rag.types",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'rag' has no attribute {name!r}")
