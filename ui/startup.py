"""Open the Assistant the web UI serves: when there is no index, or it is empty, build the bundled corpus first.

Also the test-only RAG_UI_FAKE_LLM hook (scripted replies instead of a real LLM). No gradio here.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from rag.answer import Assistant
from rag.chat import ChatModel
from rag.errors import ConfigError, IndexMissingError
from rag.settings import Settings


def _fake_chat_model() -> ChatModel | None:
    """TEST-ONLY hook: RAG_UI_FAKE_LLM=<path to a JSON list of scripted replies, or {"replies": [...],
    "delay_s": 0.05}> answers with rag.fakes.ScriptedChatModel instead of a real LLM. Never set it in use."""
    path = os.environ.get("RAG_UI_FAKE_LLM")
    if not path:
        return None
    from rag.fakes import ScriptedChatModel

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"RAG_UI_FAKE_LLM: cannot read {path}: {exc}") from None
    spec = data if isinstance(data, dict) else {"replies": data}
    print("RAG_UI_FAKE_LLM is set: answers come from scripted test replies", file=sys.stderr, flush=True)
    return ScriptedChatModel([str(r) for r in spec.get("replies", [])], delay_s=float(spec.get("delay_s", 0)))


def _build_bundled(settings: Settings, why: str) -> None:
    from rag.indexer import build_index

    print(f"{why}: indexing the bundled corpus before starting the UI…", flush=True)
    shown = [-1]

    def progress(done: int, total: int) -> None:
        pct = 100 * done // max(total, 1)
        if pct // 10 != shown[0] // 10 or done == total:
            shown[0] = pct
            print(f"  embedded {done}/{total} chunks ({pct}%)", flush=True)

    print(build_index(settings, progress=progress).line(), flush=True)


def open_assistant(settings: Settings) -> Assistant:
    """The Assistant over the index; builds the bundled corpus first when there is no index or it is empty."""
    chat_model = _fake_chat_model()
    try:
        assistant = Assistant(settings, chat_model=chat_model)
    except IndexMissingError as exc:
        from rag.store import VectorStore

        if VectorStore(settings).exists():
            raise  # built with another embedder: the message says what to do
        _build_bundled(settings, f"No index yet ({exc})")
        return Assistant(settings, chat_model=chat_model)
    if assistant.retriever.store.count() == 0:
        assistant.close()
        _build_bundled(settings, f"The index at {settings.index_dir} is empty")
        assistant = Assistant(settings, chat_model=chat_model)
    return assistant
