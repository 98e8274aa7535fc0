"""A real `chroma run` server on 127.0.0.1 for the store contract tests.

The `chroma_url` session fixture (tests/conftest.py) starts one (`.venv/bin/chroma run` on a free port, a temporary
path) and stops it at the end of the session; RAG_TEST_CHROMA_URL points the tests at another server instead."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_heartbeat(url: str, timeout: float = 60.0, proc: subprocess.Popen[bytes] | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"chroma run exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"no heartbeat from {url} within {timeout:.0f}s")


class ChromaServer:
    def __init__(self, path: Path, port: int | None = None) -> None:
        self.path = path
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = path.parent / f"chroma-{self.port}.log"

    def start(self) -> ChromaServer:
        chroma = Path(sys.executable).parent / "chroma"
        cmd = [str(chroma), "run", "--path", str(self.path), "--host", "127.0.0.1", "--port", str(self.port)]
        env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
        wait_heartbeat(self.url, proc=self.proc)
        return self

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
