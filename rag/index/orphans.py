"""Collections left behind by a `--rebuild` that did not finish (killed with SIGKILL, a crash, a full disk).

A rebuild fills `<collection>-rebuild` beside the live collection, records its fingerprint when complete, then
drops the live collection and renames itself. Killed before that, it leaves a half-filled orphan that nothing
reads and nothing removed; killed between the drop and the rename, it leaves the complete new index under the
wrong name and no live one. The next `rag index` (under the writer lock) settles both.
"""

from __future__ import annotations

from collections.abc import Callable

from rag.index.layout import Layout
from rag.ports import VectorStore


def recover_rebuild(live: VectorStore, layout: Layout, note: Callable[[str], None] | None = None) -> None:
    """Finish the swap of a complete rebuild whose live collection is gone; drop any other leftover."""
    leftover = live.sibling(layout.rebuild_collection)
    if not leftover.exists():
        return
    orphan = leftover.open()
    if not live.exists() and orphan.info.get("lexical_fingerprint"):
        orphan.rename(layout.collection)
        message = f"finished an interrupted --rebuild: its complete collection '{layout.rebuild_collection}' is now "
        message += f"'{layout.collection}'"
    else:
        chunks = orphan.count()
        orphan.drop()
        message = f"removed '{layout.rebuild_collection}' ({chunks:,} chunks), left by a --rebuild that did not finish"
    if note is not None:
        note(message)
