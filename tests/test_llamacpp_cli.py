"""`rag ask` end to end through the CLI against a real llama.cpp server (SmolLM2-135M): the OpenAI-compatible
path (`--llm openai --base-url`) and the self-managed local path (`--llm local`).

SmolLM2-135M is too small to answer reliably, so these tests check the plumbing and the guarantees that hold
whatever the model writes: valid JSON, citations only of retrieved papers, sources listed, the backend named. The
answer shown must be the model's: an extractive fallback (after an endpoint failure, or because no sentence of the
model's answer was supported) fails the test, as it would hide a local path that does not work. At temperature 0
and 96 tokens SmolLM2 is cut at max_tokens on this question, and a cut answer is kept (marked incomplete), never
replaced, so the model's own text is what these tests see.

Skipped, with the reason in the summary, when llama-cpp-python or the packaged model is missing, unless
RAG_REQUIRE_LLAMACPP=1 (CI)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag.adapters.llamacpp import LocalServer
from rag.settings import Settings
from tests.test_llamacpp import _model_path_or_skip

pytestmark = [pytest.mark.llamacpp, pytest.mark.slow]
RAG = str(Path(sys.executable).parent / "rag")
WELLS = "How many wells are in the Alberta dataset?"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    model_path = _model_path_or_skip()
    with LocalServer(model_path, log_path=tmp_path_factory.mktemp("llama") / "server.log") as srv:
        yield srv


@pytest.fixture
def home(bundled_settings: Settings, tmp_path: Path) -> Path:
    """A private copy of the bundled index (`rag ask` appends to the run log in its home)."""
    target = tmp_path / "home"
    shutil.copytree(bundled_settings.home, target)
    return target


def _ask(home: Path, *args: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "RAG_"))}
    env.update(RAG_HOME=str(home), RAG_MAX_TOKENS="96", RAG_TEMPERATURE="0")
    proc = subprocess.run(
        [RAG, "ask", WELLS, "--json", "-k", "2", *args], env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return json.loads(proc.stdout)


def _check(out: dict, backend: str) -> None:
    sources = [s["paper_id"] for s in out["sources"]]
    assert sources[0] == "icml2025-00"
    assert all(c["paper_id"] in sources for c in out["citations"])
    assert out["answer"].strip()
    assert isinstance(out["unsupported"], list)
    # the model's own answer, not the extractive one put in its place (the notes say why, when it was)
    assert out["backend"] == backend, f"the answer came from {out['backend']!r}, not the model: {out['notes']}"
    assert not any("extractive" in note for note in out["notes"]), out["notes"]
    assert out["model"] == "local" and out["prompt"].startswith("answer_system+answer_user@")


def _llama_servers() -> set[int]:
    """Process ids of the llama.cpp servers running now."""
    found = set()
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and b"llama_cpp.server" in (proc / "cmdline").read_bytes():
                found.add(int(proc.name))
        except OSError:  # gone meanwhile
            continue
    return found


def test_rag_ask_against_a_llama_cpp_openai_compatible_server(server: LocalServer, home: Path):
    out = _ask(home, "--llm", "openai", "--base-url", server.base_url, "--model", "local")
    # llama_cpp.server ignores stream_options, so an external one reports no token usage (zeros, not guesses)
    _check(out, "openai")


@pytest.fixture
def packaged_model() -> Path:
    """Like its neighbours' server fixture: skip with the reason (or fail under RAG_REQUIRE_LLAMACPP=1) when
    llama-cpp-python or the packaged model is not installed, before the index is built."""
    return _model_path_or_skip()


def test_rag_ask_local_starts_and_stops_its_own_server(packaged_model: Path, home: Path):
    before = _llama_servers()
    out = _ask(home, "--llm", "local")
    _check(out, "local")
    assert _llama_servers() - before == set(), "`rag ask --llm local` left its llama.cpp server running"
