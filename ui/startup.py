"""Open the Assistant the web UI serves: when there is no index, or it is empty, build the bundled corpus first.
No gradio here."""

from __future__ import annotations

from rag.answer.assistant import Assistant
from rag.errors import IndexMissingError
from rag.factory import build_index, open_assistant, open_store
from rag.settings import Settings


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
