"""What one `rag index` run did, and its one-line summary."""

from __future__ import annotations

from dataclasses import dataclass

from rag.types import Calibration


@dataclass(frozen=True)
class IndexReport:
    papers: int
    chunks: int
    embedded: int
    skipped: int  # unchanged, not re-embedded
    removed: int
    seconds: float
    metadata_updated: int = 0
    filtered: int = 0  # records --where/--since left out
    bad: int = 0  # bad records and unreadable files skipped (--skip-bad)
    calibration: Calibration | None = None  # the relevance floors derived from the collection (None: too small)
    unreadable: tuple[str, ...] = ()  # PDFs of a folder skipped as unreadable, each "path: why"
    links_out: int = 0  # links out of an indexed folder, not followed (each named in a warning)

    def line(self) -> str:
        left_out = [f"{n:,} {what}" for n, what in ((self.filtered, "filtered out"), (self.bad, "skipped as bad")) if n]
        floor = self.calibration.describe() if self.calibration else "too few papers to calibrate a relevance floor"
        return (
            f"indexed {self.papers} papers: {self.chunks} chunks, {self.embedded} embedded, "
            f"{self.skipped} unchanged, {self.removed} removed ({self.seconds:.1f}s); {floor}"
            + (f"; records {', '.join(left_out)}" if left_out else "")
            + _unreadable(self.unreadable)
            + (f"; {self.links_out:,} link{'s' if self.links_out > 1 else ''} out of the folder not followed "
               "(named above)" if self.links_out else "")
        )


def _unreadable(files: tuple[str, ...], shown: int = 5) -> str:
    if not files:
        return ""
    more = f"; and {len(files) - shown:,} more (listed above)" if len(files) > shown else ""
    plural = "s" if len(files) > 1 else ""
    return f"; skipped {len(files):,} unreadable file{plural}: " + "; ".join(files[:shown]) + more
