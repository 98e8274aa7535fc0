"""One writer at a time: `rag index` (and `rag index --verify`) hold a lock while they write.

Two runs at once on one home left the store, BM25 and the docstore disagreeing (one crashed, the other reported
success). Embedded Chroma is not safe for two writing processes on one directory at all, so the lock is per data
directory there (`index/writer.lock`, whatever the collection); with a Chroma server it is per home and
collection (this machine's BM25 and docstore), plus a lease in the metadata of a small `<collection>-lock`
collection on the server, which writers on other machines see.

- The file lock is an flock(2): the kernel releases it when its holder dies, even by SIGKILL. The file keeps the
  holder's pid, host and start time, so a second writer can say who it waits for, and the next one can tell that
  the previous run did not finish (the file was not cleared) and say it takes over.
- The lease names its holder and holds until a time it renews every LEASE_S / 3 seconds. An expired lease, or
  one held by a dead process on this host, is taken over. Chroma has no compare-and-set, so a lease is written,
  then read back after a pause: of two writers racing for a free lease, the one that reads its own name wins.

A second writer waits up to `lock_wait_s`, then fails with WriterBusyError: "another rag index is running (pid N)".
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from rag.errors import WriterBusyError
from rag.index.layout import Layout
from rag.ports import VectorStore

Note = Callable[[str], None]
LEASE_S = 60.0  # a lease not renewed for this long belongs to a run that is gone
SETTLE_S = 0.5  # between writing a lease and reading it back
POLL_S = 0.2

try:
    import fcntl
except ImportError:  # not POSIX: no file lock (the lease still guards a Chroma server)
    fcntl = None  # type: ignore[assignment]


def _me() -> dict[str, Any]:
    return {"pid": os.getpid(), "host": socket.gethostname(), "started": time.strftime("%Y-%m-%d %H:%M:%S")}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _who(holder: dict[str, Any]) -> str:
    where = f" on {holder['host']}" if holder.get("host") and holder["host"] != socket.gethostname() else ""
    since = f", started {holder['started']}" if holder.get("started") else ""
    return f"pid {holder.get('pid', '?')}{where}{since}"


def _busy(holder: dict[str, Any], waited: float, what: str) -> WriterBusyError:
    return WriterBusyError(
        f"another rag index is running ({_who(holder)}) on {what}; waited {waited:g} s (lock_wait_s): let it "
        "finish, or run again later"
    )


class FileLock:
    """flock(2) on a small file that names its holder."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def _read(self) -> dict[str, Any]:
        try:
            text = self.path.read_text(encoding="utf-8").strip()
            return dict(json.loads(text)) if text else {}
        except (OSError, ValueError, TypeError):
            return {}

    def acquire(self, wait_s: float, note: Note | None, collection: str) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        give_up = time.monotonic() + wait_s
        while fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= give_up:
                    os.close(fd)
                    raise _busy(self._read(), wait_s, f"{self.path.parent.parent}") from None
                time.sleep(POLL_S)
        self._fd = fd
        left = self._read()
        if left and note is not None:  # its holder is gone (we hold the lock) but never cleared it
            note(f"taking over the index lock of a run that did not finish ({_who(left)})")
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps({**_me(), "collection": collection}).encode(), 0)

    def release(self) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)  # cleared: the next writer knows this run finished (the file is kept: see flock)
        os.close(fd)  # releases the flock


class Lease:
    """A writer lease in the metadata of `<collection>-lock` on a Chroma server."""

    def __init__(self, store: VectorStore) -> None:
        self.store = store.sibling(f"{store.name}-lock")
        self.token = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None

    def _holder(self) -> dict[str, Any]:
        info = self.store.fresh_info()
        return {k.removeprefix("lease_"): v for k, v in info.items() if k.startswith("lease_")}

    def _free(self, holder: dict[str, Any]) -> bool:
        if not holder.get("owner") or float(holder.get("until") or 0) < time.time():
            return True
        same_host = holder.get("host") == socket.gethostname()
        return same_host and not _alive(int(holder.get("pid") or 0))

    def _write(self, **values: Any) -> None:
        self.store.fresh_info()  # update_info merges into the metadata as last read
        self.store.update_info(**{f"lease_{k}": v for k, v in values.items()})

    def acquire(self, wait_s: float, note: Note | None) -> None:
        if not self.store.exists():
            self.store.create("writer-lease", 0)
        give_up = time.monotonic() + wait_s
        while True:
            holder = self._holder()
            if self._free(holder):
                me = _me()
                self._write(owner=self.token, pid=me["pid"], host=me["host"], started=me["started"],
                            until=time.time() + LEASE_S)  # fmt: skip
                time.sleep(SETTLE_S)
                if self._holder().get("owner") == self.token:
                    if holder.get("owner") and note is not None:
                        note(f"taking over the writer lease of a run that did not finish ({_who(holder)})")
                    break
                continue  # another writer took it between our read and our write
            if time.monotonic() >= give_up:
                raise _busy(holder, wait_s, f"the collection '{self.store.name.removesuffix('-lock')}' at "
                                            f"{self.store.where}")  # fmt: skip
            time.sleep(POLL_S)
        self._renewer = threading.Thread(target=self._renew, name="rag-lease", daemon=True)
        self._renewer.start()

    def _renew(self) -> None:
        while not self._stop.wait(LEASE_S / 3):
            with contextlib.suppress(Exception):  # a failed renewal is retried; the lease outlives a few
                if self._holder().get("owner") == self.token:
                    self._write(until=time.time() + LEASE_S)

    def release(self) -> None:
        self._stop.set()
        if self._renewer is not None:
            self._renewer.join(timeout=10)
        with contextlib.suppress(Exception):  # the server may be gone; the lease then expires by itself
            if self._holder().get("owner") == self.token:
                self._write(owner="", until=0.0)


@contextlib.contextmanager
def writer_lock(
    layout: Layout, store: VectorStore | None = None, *, wait_s: float = 10.0, note: Note | None = None
) -> Iterator[None]:
    """Hold the index's writer lock for the block. `store`: the Chroma server's collection, for its lease (None
    for embedded Chroma: the data directory's lock covers it)."""
    name = f"{layout.collection}.lock" if store is not None else "writer.lock"
    lock = FileLock(layout.index_dir / name)
    lock.acquire(wait_s, note, layout.collection)
    lease = Lease(store) if store is not None else None
    try:
        if lease is not None:
            lease.acquire(wait_s, note)
        yield
    finally:
        if lease is not None:
            lease.release()
        lock.release()
