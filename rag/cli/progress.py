"""Progress for long work on stderr: a tqdm bar when stderr is a terminal (or RAG_PROGRESS=1), otherwise plain
lines at most every `every_s` seconds, so a cron job's log or a CI run still shows that work goes on (a bar
would fill a log with carriage returns)."""

from __future__ import annotations

import os
import sys
import time
from types import TracebackType
from typing import Any, TextIO

PLAIN_EVERY_S = 10.0


def _size(n: float) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} TB"


class ProgressBar:
    """`update(done, total)`, in `unit`s. `unit="B"` shows sizes."""

    def __init__(self, desc: str, unit: str = "it", *, every_s: float | None = None,
                 stream: TextIO | None = None, bar: bool | None = None) -> None:  # fmt: skip
        self.desc = desc
        self.unit = unit
        self.stream = stream
        self.every_s = PLAIN_EVERY_S if every_s is None else every_s
        self._bar: Any = None
        out = stream or sys.stderr
        self.bar = bar if bar is not None else (out.isatty() or os.environ.get("RAG_PROGRESS") == "1")
        self.enabled = True
        self._last_line = time.monotonic()
        self._extra = ""

    def __enter__(self) -> ProgressBar:
        return self

    def note(self, extra: str) -> None:
        """Text shown after the count on plain lines (e.g. "12,345 papers")."""
        self._extra = extra

    def _plain(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self._last_line < self.every_s or done >= total > 0:
            return
        self._last_line = now
        count = f"{_size(done)} of {_size(total)}" if self.unit == "B" else f"{done:,}/{total:,} {self.unit}s"
        pct = f" ({100 * done / total:.0f}%)" if total else ""
        extra = f", {self._extra}" if self._extra else ""
        print(f"{self.desc}: {count}{pct}{extra}", file=self.stream or sys.stderr, flush=True)

    def update(self, done: int, total: int) -> None:
        if not self.bar:
            self._plain(done, total)
            return
        if self._bar is None:
            from tqdm import tqdm

            scale = {"unit_scale": True, "unit_divisor": 1000} if self.unit == "B" else {}
            self._bar = tqdm(total=total, desc=self.desc, unit=self.unit, file=self.stream or sys.stderr,
                             dynamic_ncols=True, **scale)  # fmt: skip
        self._bar.update(done - self._bar.n)
        if self._extra:
            self._bar.set_postfix_str(self._extra, refresh=False)

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        if self._bar is not None:
            self._bar.close()
