"""One writer at a time (issue 14 item 6), with real processes.

A second `rag index` on the same data directory waits up to `lock_wait_s`, then fails with one line naming the
first one's pid; a lock or lease left by a run killed with SIGKILL is detected and taken over; two `rag index`
runs started together end in one consistent index. With a Chroma server the lease lives in the metadata of a
`<collection>-lock` collection, so writers with different data directories (machines) see each other."""

from __future__ import annotations

import json
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from rag.adapters.memory_store import MemoryStore
from rag.errors import WriterBusyError
from rag.factory import layout_of, open_store
from rag.index.layout import Layout
from rag.index.lock import Lease, writer_lock
from rag.settings import Settings, load_settings
from tests.reliability_helpers import ROOT, WELLS, assert_clean_failure, cli_env, run_rag, synthetic_papers, write_jsonl

HOLDER = """
import sys
from pathlib import Path
from rag.factory import layout_of, open_store
from rag.index.lock import writer_lock
from rag.settings import load_settings
settings = load_settings(home=sys.argv[1])
lease = open_store(settings) if settings.chroma_url else None
with writer_lock(layout_of(settings), lease, wait_s=0):
    print("locked", flush=True)
    sys.stdin.readline()
"""


class Holder:
    """A real process that takes the writer lock (and lease) of a home and holds it until told or killed."""

    def __init__(self, home: Path, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(home)], cwd=ROOT, env=cli_env(home, env), text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line.strip() == "locked", (line, self.proc.stderr.read() if self.proc.stderr else "")

    @property
    def pid(self) -> int:
        return self.proc.pid

    def release(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("\n")
        self.proc.stdin.flush()
        assert self.proc.wait(60) == 0

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(60)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(60)


@pytest.fixture
def indexed_home(tmp_path: Path, bundled_home: Path) -> Path:
    return Path(shutil.copytree(bundled_home, tmp_path / "home"))


NO_WAIT = {"RAG_LOCK_WAIT_S": "0"}


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_second_writer_fails_naming_the_first_and_a_killed_ones_lock_is_taken_over(indexed_home: Path) -> None:
    holder = Holder(indexed_home)
    try:
        for args in (["index"], ["index", "--rebuild"], ["index", "--verify"]):
            line = assert_clean_failure(run_rag(args, indexed_home, env=NO_WAIT))
            assert f"another rag index is running (pid {holder.pid}" in line and "lock_wait_s" in line, line
        search = run_rag(["search", WELLS, "-k", "1"], indexed_home)  # readers are not held up
        assert search.returncode == 0 and "icml2025-00" in search.stdout
        holder.kill()  # SIGKILL: the kernel drops its flock, the file still names it
        proc = run_rag(["index"], indexed_home, env=NO_WAIT)
        assert proc.returncode == 0, proc.stderr
        assert f"warning: taking over the index lock of a run that did not finish (pid {holder.pid}" in proc.stderr
        assert "indexed 19 papers" in proc.stdout
        again = run_rag(["index"], indexed_home, env=NO_WAIT)  # that run finished: nothing to take over
        assert again.returncode == 0 and "taking over" not in again.stderr
    finally:
        holder.stop()


@pytest.mark.timeout(300)
def test_a_writer_waits_for_one_that_finishes_within_lock_wait_s(indexed_home: Path) -> None:
    holder = Holder(indexed_home)
    threading.Timer(1.0, holder.release).start()  # done a second later: the waiting run then goes ahead
    try:
        proc = run_rag(["index"], indexed_home, env={"RAG_LOCK_WAIT_S": "120"})
    finally:
        holder.stop()
    assert proc.returncode == 0, proc.stderr
    assert "indexed 19 papers" in proc.stdout and "taking over" not in proc.stderr


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_two_rag_index_runs_started_together_end_in_one_consistent_index(tmp_path: Path) -> None:
    home = tmp_path / "home"
    corpus = write_jsonl(tmp_path / "papers.jsonl", synthetic_papers(60, sentences=4))
    env = cli_env(home, {"RAG_LOCK_WAIT_S": "600"})
    procs = [
        subprocess.Popen([sys.executable, "-m", "rag.cli", "index", str(corpus)], cwd=ROOT, env=env, text=True,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=560) for p in procs]
    for proc, (_, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0 and "Traceback" not in err, err[-3000:]
    embedded = sorted(int(re.search(r"(\d+) embedded", out).group(1)) for out, _ in outputs)  # type: ignore[union-attr]
    assert embedded == [0, 60], outputs  # one did the work, the other found it done
    verify = run_rag(["index", "--verify"], home)
    assert verify.returncode == 0 and verify.stdout.startswith("verified: the store, BM25 and the docstore agree")


# --- the lease on a Chroma server ------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.timeout(600)
def test_writers_on_two_machines_share_a_chroma_servers_lease(tmp_path: Path, chroma_url: str) -> None:
    env = {"RAG_CHROMA_URL": chroma_url, "RAG_COLLECTION": "lease-test"}
    first, second = tmp_path / "machine-a", tmp_path / "machine-b"  # two data directories, one collection
    assert run_rag(["index"], first, env=env).returncode == 0
    holder = Holder(first, env)
    try:
        line = assert_clean_failure(run_rag(["index"], second, env={**env, **NO_WAIT}))
        assert f"another rag index is running (pid {holder.pid}" in line and "'lease-test'" in line, line
        holder.kill()  # its lease stays in the collection's metadata, naming a dead process on this host
        proc = run_rag(["index"], second, env={**env, **NO_WAIT})
        assert proc.returncode == 0, proc.stderr
        assert f"taking over the writer lease of a run that did not finish (pid {holder.pid}" in proc.stderr
        assert "indexed 19 papers" in proc.stdout and "0 embedded" in proc.stdout
    finally:
        holder.stop()
    lock = open_store(load_settings(home=second, env={}).replace(chroma_url=chroma_url, collection="lease-test"))
    assert lock.sibling("lease-test-lock").fresh_info()["lease_owner"] == ""  # released by the finished run


def _write_lease(store: MemoryStore, *, host: str, pid: int, until: float) -> None:
    lease = Lease(store)
    lease.store.create("writer-lease", 0)
    lease.store.update_info(lease_owner=f"{host}:{pid}:x", lease_host=host, lease_pid=pid, lease_until=until,
                            lease_started="yesterday")  # fmt: skip


def test_a_lease_held_elsewhere_is_respected_until_it_expires(tmp_path: Path) -> None:
    layout = Layout(tmp_path / "index", "papers")
    store = MemoryStore("papers")
    _write_lease(store, host="other-machine", pid=1, until=time.time() + 3600)
    with pytest.raises(WriterBusyError, match=r"another rag index is running \(pid 1 on other-machine"), \
            writer_lock(layout, store, wait_s=0):  # fmt: skip
        pass
    _write_lease(store, host="other-machine", pid=1, until=time.time() - 1)  # not renewed: that run is gone
    notes: list[str] = []
    with writer_lock(layout, store, wait_s=0, note=notes.append):
        assert store.sibling("papers-lock").fresh_info()["lease_host"] == socket.gethostname()
    assert len(notes) == 1 and "taking over the writer lease" in notes[0] and "other-machine" in notes[0]
    assert store.sibling("papers-lock").fresh_info()["lease_owner"] == ""


def test_layout_of_the_lock_files(tmp_path: Path) -> None:
    """Embedded Chroma: one lock per data directory (its files are shared by every collection); a server: one per
    collection (this machine's BM25 and docstore), the lease guarding the collection itself."""
    s: Settings = load_settings(home=tmp_path / "home", env={})
    with writer_lock(layout_of(s)):
        assert (s.index_dir / "writer.lock").exists()
        assert json.loads((s.index_dir / "writer.lock").read_text())["collection"] == "papers"
    assert (s.index_dir / "writer.lock").read_text() == ""  # cleared: that run finished
    with writer_lock(layout_of(s), MemoryStore("papers")):
        assert (s.index_dir / "papers.lock").exists()
