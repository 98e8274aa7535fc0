"""Start `rag ui` as a subprocess for the UI tests: output to a log file, wait until it answers, stop it
with terminate -> wait 10 s -> kill."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class UIServer:
    proc: subprocess.Popen[bytes]
    url: str
    log: Path
    home: Path  # RAG_HOME of the app
    started_s: float = 0.0  # seconds from spawn to the first answer

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace") if self.log.exists() else ""

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


def start_ui(
    home: Path, log: Path, *, args: Sequence[str] = (), env: Mapping[str, str] | None = None, timeout_s: float = 240.0
) -> UIServer:
    """`python -m rag.cli ui` with RAG_HOME=home on a free port; returns once an HTTP request is answered."""
    port = free_port()
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "RAG_"))}
    full_env.update({"RAG_HOME": str(home), "GRADIO_ANALYTICS_ENABLED": "False", "PYTHONUNBUFFERED": "1",
                     "ANONYMIZED_TELEMETRY": "False", "NO_PROXY": "127.0.0.1,localhost"})
    full_env.update(env or {})
    log.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "rag.cli", "ui", "--port", str(port), *args],
            cwd=ROOT, env=full_env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )
    server = UIServer(proc, f"http://127.0.0.1:{port}", log, home)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the UI exited with code {proc.returncode}:\n{server.log_text()[-3000:]}")
        try:
            httpx.get(server.url + "/", timeout=2.0)
            server.started_s = time.perf_counter() - started
            return server
        except httpx.HTTPError:
            time.sleep(0.3)
    server.stop()
    raise RuntimeError(f"the UI did not answer within {timeout_s:.0f} s:\n{server.log_text()[-3000:]}")
