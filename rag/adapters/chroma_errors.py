"""Chroma's failures in words a user can act on, without importing chromadb (its errors are recognised by their
text): a read-only data directory, a damaged chroma.sqlite3, a full disk, a server that never answers.

Chroma reports all of them as one `InternalError` whose message comes from SQLite or from its Rust core, e.g.
"attempt to write a readonly database", "file is not a database", "Error in compaction: Failed to apply logs to
the metadata segment" (what a full disk gave here).
"""

from __future__ import annotations

import shutil
import urllib.error
import urllib.request
from pathlib import Path

from rag.errors import RagError, StorageError, StoreUnavailableError

LOW_SPACE_BYTES = 64 * 1024 * 1024
_READ_ONLY = ("readonly database", "read-only file system", "permission denied", "os error 30", "os error 13")
_DAMAGED = ("not a database", "database disk image is malformed", "no such table", "file is encrypted")
_FULL = ("disk is full", "no space left", "os error 28", "error in compaction", "failed to apply logs")


def _free_bytes(path: Path | None) -> int | None:
    probe = path
    while probe is not None and not probe.exists() and probe != probe.parent:
        probe = probe.parent
    try:
        return shutil.disk_usage(probe).free if probe is not None else None
    except OSError:
        return None


def storage_problem(exc: BaseException, where: str, path: Path | None = None) -> RagError | None:
    """The StorageError for a Chroma failure about its files (None: something else, left as it is)."""
    text = " ".join(str(exc).split())[:200]
    low = text.lower()
    if any(s in low for s in _READ_ONLY):
        return StorageError(
            f"the index at {where} cannot be written ({text}); Chroma writes to its directory even to search: use "
            "a writable data directory (--home, RAG_HOME) or fix its permissions"
        )
    if any(s in low for s in _DAMAGED):
        return StorageError(
            f"the index database under {where} is damaged ({text}); move that directory aside and run "
            "`rag index` to build the index again"
        )
    if any(s in low for s in _FULL):
        free = _free_bytes(path)
        disk = (
            f"the disk is full ({free / 1e6:.1f} MB free)" if free is not None and free < LOW_SPACE_BYTES
            else "the disk may be full"
        )  # fmt: skip
        return StorageError(
            f"Chroma could not write its files under {where} ({text}): {disk}; free some space and run `rag index` "
            "again to complete the update (the chunks already written stay searchable)"
        )
    return None


def heartbeat(base: str, shown: str, timeout_s: float) -> None:
    """Ask a Chroma server's heartbeat with a timeout: StoreUnavailableError when it refuses or stays silent.
    An HTTP error status is left to the client (the server answered; it may want authentication)."""
    try:
        with urllib.request.urlopen(f"{base}/api/v2/heartbeat", timeout=timeout_s):
            return
    except urllib.error.HTTPError:
        return
    except (urllib.error.URLError, OSError) as exc:  # TimeoutError is an OSError; URLError wraps one
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, TimeoutError):
            raise StoreUnavailableError(
                f"the Chroma server at {shown} did not answer within {timeout_s:g} s (chroma_timeout_s); is it stuck?"
            ) from None
        raise StoreUnavailableError(
            f"cannot reach the Chroma server at {shown} ({type(reason).__name__}); is `chroma run` up?"
        ) from None
