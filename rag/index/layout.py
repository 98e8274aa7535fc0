"""Where one collection's files live under the data directory. The indexer writes them, the retriever reads
them; neither needs the other to know the paths."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Layout:
    index_dir: Path  # <home>/index
    collection: str

    @property
    def chroma_dir(self) -> Path:
        """Embedded Chroma's directory (shared by every collection under this home)."""
        return self.index_dir / "chroma"

    @property
    def lexical_dir(self) -> Path:
        return self.index_dir / f"bm25-{self.collection}"

    @property
    def docs_dir(self) -> Path:
        return self.index_dir / f"docs-{self.collection}"

    @property
    def calibration_file(self) -> Path:
        """The relevance floors derived from the collection (rag.index.calibration), with the fingerprint they fit."""
        return self.index_dir / f"calibration-{self.collection}.json"

    @property
    def dirty_marker(self) -> Path:
        """Present while an index update runs; left behind by one that did not finish."""
        return self.index_dir / f"{self.collection}.updating"

    @property
    def rebuild_collection(self) -> str:
        """The collection a `--rebuild` fills before it is swapped in."""
        return f"{self.collection}-rebuild"
