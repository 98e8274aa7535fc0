"""Real file-system faults for tests: a tiny tmpfs (a disk that fills up), remounted read-only or larger.

Mounting needs root (CAP_SYS_ADMIN), as in the CI container; where it is not allowed the tests that need it skip,
with the reason in pytest's summary, unless RAG_REQUIRE_DISK_FAULTS=1 (CI), where they fail instead.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def _mount(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["mount", *args], capture_output=True, text=True, timeout=30)


def _cannot_mount(reason: str) -> None:
    """Skip the disk-fault test with its reason, or fail it when RAG_REQUIRE_DISK_FAULTS=1 says it must run."""
    if os.environ.get("RAG_REQUIRE_DISK_FAULTS") == "1":
        pytest.fail(f"RAG_REQUIRE_DISK_FAULTS=1 but {reason}")
    pytest.skip(f"disk-fault test not run: {reason} (RAG_REQUIRE_DISK_FAULTS=1 makes this a failure)")


@contextmanager
def tmpfs(path: Path, size: str) -> Iterator[Path]:
    """A tmpfs of `size` (e.g. "600k") mounted at path for the duration; skips the test when mounting fails (fails
    it under RAG_REQUIRE_DISK_FAULTS=1)."""
    path.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        _cannot_mount("mounting a tmpfs needs root")
    done = _mount("-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(path))
    if done.returncode != 0:
        _cannot_mount(f"cannot mount a tmpfs here: {done.stderr.strip() or f'mount exited {done.returncode}'}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True, timeout=30)


def remount(path: Path, options: str) -> None:
    """Change a tmpfs mounted by `tmpfs`: "ro", "rw", "size=50m"."""
    done = _mount("-o", f"remount,{options}", str(path))
    assert done.returncode == 0, done.stderr
