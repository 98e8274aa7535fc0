"""Shared fixtures. Every test gets its own data directory: no test touches a user's index."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag.factory import build_index, open_assistant
from rag.settings import Settings, load_settings
from tests.ui_browser import browser, browser_ui, canary, page, phone, scripted_llm, sized  # noqa: F401  (one app, all modules)

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """RAG_HOME points at tmp_path; endpoint variables from the developer's shell are ignored."""
    monkeypatch.setenv("RAG_HOME", str(tmp_path / "rag-home"))
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "RAG_CONFIG", "RAG_PRESET", "RAG_LLM", "RAG_CHROMA_URL"):
        monkeypatch.delenv(var, raising=False)
    yield


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return load_settings(home=tmp_path / "rag-home", env={})


@pytest.fixture(scope="session")
def bundled_settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """An index of the bundled corpus built once per test session with the real local embedder.
    Tests must not write to it (use `settings` + build_index for that)."""

    home = tmp_path_factory.mktemp("bundled") / "rag-home"
    s = load_settings(home=home, env={})
    build_index(s)
    return s


@pytest.fixture(scope="session")
def chunk_pass_settings(tmp_path_factory: pytest.TempPathFactory, minilm: object) -> Settings:
    """The bundled corpus indexed once per session with `sentence_pass = "chunk"` (sentence vectors from the chunk's
    own pass, mapped). Tests only read it; one that changes it works on a copy of its home."""
    home = tmp_path_factory.mktemp("chunk-pass") / "rag-home"
    s = load_settings(home=home, env={}).replace(sentence_pass="chunk")
    build_index(s, embedder=minilm)  # type: ignore[arg-type]
    return s


@pytest.fixture(scope="session")
def assistant(bundled_settings: Settings) -> Iterator[object]:
    """A shared extractive Assistant over the bundled index (model loaded once)."""

    a = open_assistant(bundled_settings.replace(llm="extractive"))
    yield a
    a.close()


@pytest.fixture(scope="session")
def chroma_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """URL of a live `chroma run` server: CI's (RAG_TEST_CHROMA_URL) or one started for this session."""
    given = os.environ.get("RAG_TEST_CHROMA_URL")
    if given:
        yield given
        return
    from tests.chroma_server import ChromaServer

    server = ChromaServer(tmp_path_factory.mktemp("chroma") / "data").start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="session")
def minilm() -> object:
    """The real local embedder, loaded once for every test that runs the CLI in-process."""
    from rag.factory import make_embedder

    return make_embedder(load_settings(env={}))


class CLI:
    """`rag ARGS --home HOME` in-process (the same code as the `rag` script), returning (exit code, out, err)."""

    def __init__(self, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.home, self.capsys = home, capsys

    def __call__(self, *argv: str) -> tuple[int, str, str]:
        from rag.cli import main

        code = main([*argv, "--home", str(self.home)])
        out, err = self.capsys.readouterr()
        return code, out, err

    def ask_json(self, question: str, *extra: str) -> dict:
        import json

        code, out, err = self("ask", question, "--json", "--llm", "extractive", *extra)
        assert code == 0, err
        return json.loads(out)


def cli_index(home: Path, embedder: object, *sources: str) -> str:
    """`rag index SOURCES --home HOME` in-process with the given embedder, for a fixture wider than one test (which
    has no capsys): builds a library once per module, that tests then copy with `copy_home`. Returns stdout."""
    import contextlib
    import io

    from rag.cli import main

    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        mp.setattr("rag.factory.make_embedder", lambda settings, **_: embedder)
        code = main(["index", *sources, "--home", str(home)])
    assert code == 0, err.getvalue()
    return out.getvalue()


def copy_home(built: Path, cli: CLI) -> CLI:
    """`cli` whose data directory starts as a copy of `built` (no re-embedding; the test may change its copy)."""
    import shutil

    shutil.copytree(built, cli.home)
    return cli


@pytest.fixture
def rag_cli(minilm: object, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
            tmp_path: Path) -> CLI:  # fmt: skip
    monkeypatch.setattr("rag.factory.make_embedder", lambda settings, **_: minilm)
    return CLI(tmp_path / "cli-home", capsys)


@pytest.fixture(scope="session")
def bundled_home(tmp_path_factory: pytest.TempPathFactory, bundled_settings: Settings) -> Path:
    """A data directory holding the bundled corpus's index: a copy of `bundled_settings`' (the same `build_index` as
    `rag index`, embedded once per session), so no Chroma file of it is open in this process. Copy it before
    changing it."""
    import shutil

    home = tmp_path_factory.mktemp("bundled-home") / "home"
    shutil.copytree(bundled_settings.home, home)
    return home


@pytest.fixture(scope="session")
def check_library_home(tmp_path_factory: pytest.TempPathFactory, minilm: object) -> Path:
    """tests/data/check/library.bib (six bundled papers under their BibTeX keys) indexed once per session by
    `rag index`, for the `rag check` tests: copy it with `copy_home`."""
    home = tmp_path_factory.mktemp("check-library") / "home"
    cli_index(home, minilm, str(ROOT / "tests" / "data" / "check" / "library.bib"))
    return home


@pytest.fixture
def indexed_cli(rag_cli: CLI, bundled_home: Path) -> CLI:
    """`rag_cli` whose home starts as a copy of the bundled index (no re-embedding per test)."""
    return copy_home(bundled_home, rag_cli)
