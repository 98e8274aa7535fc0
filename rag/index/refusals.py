"""Why `rag index` refuses a run before it writes anything: text no store could hold, or nothing to index."""

from __future__ import annotations

from rag.corpus import CorpusStats, Selection
from rag.errors import CorpusError, IndexMissingError
from rag.ports import VectorStore


def storable(source: str, paper_id: str, text: str, meta: dict[str, str | int]) -> None:
    """Refuse, in the first pass (nothing written yet), a chunk the store or the docstore could not write: text
    that is not valid Unicode (a lone surrogate). A reader should never let one through; this keeps the promise
    that a run either completes or leaves the index as it was, whatever a reader missed."""
    for name, value in (("text", text), *meta.items()):
        if isinstance(value, str) and not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                shown = value.encode("utf-8", "backslashreplace").decode("ascii", "backslashreplace")
                raise CorpusError(
                    f"{source}: paper {paper_id!r} holds text that cannot be stored as UTF-8 ({name}: '{shown[:60]}'); "
                    "nothing was written"
                ) from None


def nothing_to_index(selection: Selection, stats: CorpusStats, store: VectorStore) -> str:
    """Why a run found no paper, and what indexing nothing would do to the index that is there."""
    if stats.filtered and not stats.records:
        why = f"--where/--since ({selection.describe()}) kept none of the {stats.filtered:,} records"
    elif stats.skipped:
        why = f"all {stats.skipped:,} records or files were skipped as bad"
    else:
        why = "the sources hold no papers"
    try:
        held = len({str(m.get("paper_id")) for _, m in store.open().iter_metadata()}) if store.exists() else 0
    except IndexMissingError:
        held = 0
    keep = f"; the index keeps its {held:,} papers" if held else ""
    return f"nothing to index: {why}{keep} (pass --allow-empty to index nothing, which empties the index)"
