"""Papers read once per `rag index` run: the first pass keeps each paper it reads in an unnamed temporary file, the
second reads them back from it instead of reading the files again (for PDFs read with their full text, extraction
is nearly all of a pass's reading cost, and ran twice before). One paper is in memory at a time; the file is
removed when the spool is closed (and by the system if the process dies: it has no name).
"""

from __future__ import annotations

import pickle
import tempfile
from collections.abc import Iterable, Iterator

from rag.types import Paper


class PaperSpool:
    """`keep(papers)` passes the papers through, keeping each; `replay()` yields the kept ones in order."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile(prefix="rag-index-papers-")  # noqa: SIM115  # closed by close(); 0600, unlinked
        self.count = 0
        self.kept = False  # a whole first pass was kept

    def keep(self, papers: Iterable[Paper]) -> Iterator[Paper]:
        for paper in papers:
            pickle.dump(paper, self._file, protocol=pickle.HIGHEST_PROTOCOL)
            self.count += 1
            yield paper
        self.kept = True

    def replay(self) -> Iterator[Paper]:
        """The papers kept, read back one at a time (only this process wrote the file)."""
        self._file.flush()
        self._file.seek(0)
        for _ in range(self.count):
            yield pickle.load(self._file)  # noqa: S301  # our own unnamed temporary file

    def close(self) -> None:
        self._file.close()
