"""Swap a complete directory into place, so readers in other processes see the old file set or the new one,
never a mix (the BM25 index and the local docstore are rebuilt this way)."""

from __future__ import annotations

import shutil
from pathlib import Path


def swap_dir(tmp: Path, directory: Path) -> None:
    """Replace `directory` by the complete `tmp` beside it."""
    old = directory.with_name(directory.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if directory.exists():
        directory.rename(old)
    tmp.rename(directory)
    shutil.rmtree(old, ignore_errors=True)
