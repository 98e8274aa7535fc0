"""Checksums of the derived files (the docstore and BM25 directories), so an edited, zeroed or truncated copy is
noticed instead of answering wrongly.

Each directory is written with `integrity.json`: the index fingerprint it was built for and, per file, its size,
its SHA-256 and the SHA-256 of a fixed sample of blocks. Opening checks cheaply (`full=False`): every size, the
whole hash of files up to FULL_HASH_BYTES and the sampled hash of larger ones; `rag index` and `rag index
--verify` check every byte. A copy that fails is rebuilt from the vector store by the caller, with a note.
The index fingerprint itself (`fingerprint`) is the hash of every chunk id with its metadata hash.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Protocol, TypeVar

MANIFEST = "integrity.json"
FULL_HASH_BYTES = 16 * 1024 * 1024  # up to this size a file is hashed whole even at open (~20 ms)
SAMPLE_BLOCKS = 64
BLOCK = 64 * 1024


def fingerprint(items: Iterable[tuple[str, str]]) -> str:
    """The index fingerprint: every (chunk id, metadata hash), in id order."""
    h = hashlib.sha256()
    for cid, mh in sorted(items):
        h.update(f"{cid}\0{mh}\n".encode())
    return h.hexdigest()[:32]


def _hashes(path: Path, size: int, full: bool) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        if full or size <= SAMPLE_BLOCKS * BLOCK:
            while block := f.read(1 << 20):
                h.update(block)
        else:  # evenly spaced blocks, the first and the last included
            for i in range(SAMPLE_BLOCKS):
                f.seek(i * (size - BLOCK) // (SAMPLE_BLOCKS - 1))
                h.update(f.read(BLOCK))
    return h.hexdigest()


def write_manifest(directory: Path, fingerprint: str) -> None:
    """Record every file of a directory that has just been written (call it before the directory is swapped in)."""
    files = {}
    for path in sorted(p for p in directory.iterdir() if p.is_file() and p.name != MANIFEST):
        size = path.stat().st_size
        files[path.name] = {"size": size, "sha256": _hashes(path, size, True), "sample": _hashes(path, size, False)}
    (directory / MANIFEST).write_text(json.dumps({"fingerprint": fingerprint, "files": files}, indent=1))


def problem(directory: Path, fingerprint: str | None, *, full: bool) -> str | None:
    """None when the directory holds what was written for `fingerprint`; else what is wrong, in words."""
    try:
        manifest = json.loads((directory / MANIFEST).read_text())
        files = dict(manifest["files"])
    except FileNotFoundError:
        return f"{MANIFEST} is missing (no checksum to check it against)"
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return f"{MANIFEST} is unreadable ({type(exc).__name__})"
    if fingerprint is not None and manifest.get("fingerprint") != fingerprint:
        return "its checksum was written for another index"
    for name, want in files.items():
        path = directory / name
        try:
            size = path.stat().st_size
            if size != want["size"]:
                return f"{name} is {size:,} bytes, not {want['size']:,}"
            whole = full or size <= FULL_HASH_BYTES
            if _hashes(path, size, whole) != want["sha256" if whole else "sample"]:
                return f"{name} does not match its checksum"
        except FileNotFoundError:
            return f"{name} is missing"
        except (OSError, KeyError, TypeError) as exc:
            return f"{name} cannot be checked ({type(exc).__name__})"
    return None


class _Stamped(Protocol):
    fingerprint: str


T = TypeVar("T", bound=_Stamped)


def trusted(loaded: T | None, directory: Path, what: str, warn: Callable[[str], None] | None, *,
            full: bool) -> T | None:  # fmt: skip
    """`loaded` (a LexicalIndex or DocStore read from `directory`) when its files pass the check, else None, with
    a one-line note through `warn` saying what failed."""
    if loaded is None:
        return None
    wrong = problem(directory, loaded.fingerprint, full=full)
    if wrong is None:
        return loaded
    if warn is not None:
        warn(f"the {what} under {directory} failed its check ({wrong}); rebuilding it")
    return None
