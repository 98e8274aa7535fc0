"""A progress bar for long work (tqdm on stderr), shown only when stderr is a terminal or RAG_PROGRESS=1."""

from __future__ import annotations

import os
import sys
from types import TracebackType
from typing import Any


class ProgressBar:
    def __init__(self, desc: str, unit: str = "it") -> None:
        self.desc = desc
        self.unit = unit
        self._bar: Any = None
        self.enabled = sys.stderr.isatty() or os.environ.get("RAG_PROGRESS") == "1"

    def __enter__(self) -> ProgressBar:
        return self

    def update(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self._bar is None:
            from tqdm import tqdm

            self._bar = tqdm(total=total, desc=self.desc, unit=self.unit, file=sys.stderr, dynamic_ncols=True)
        self._bar.update(done - self._bar.n)

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        if self._bar is not None:
            self._bar.close()
