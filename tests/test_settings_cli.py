"""Settings precedence and validation; --help on every command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rag.cli import build_parser
from rag.errors import ConfigError
from rag.settings import load_settings

RAG = str(Path(sys.executable).parent / "rag")


def test_precedence_defaults_preset_file_env_overrides(tmp_path: Path):
    cfg = tmp_path / "rag.toml"
    cfg.write_text('preset = "ollama"\nmodel = "from-file"\nk = 7\n')
    s = load_settings(cfg, env={})
    got = (s.answer.llm, s.endpoint.openai_base_url, s.endpoint.model, s.retrieval.k)
    assert got == ("openai", "http://127.0.0.1:11434/v1", "from-file", 7)
    s = load_settings(cfg, env={"RAG_MODEL": "from-env", "RAG_K": "3", "OPENAI_API_KEY": "sk-x"})
    assert (s.endpoint.model, s.retrieval.k, s.endpoint.openai_api_key) == ("from-env", 3, "sk-x")
    s = load_settings(cfg, env={"RAG_MODEL": "from-env"}, model="from-arg")
    assert s.endpoint.model == "from-arg"
    assert load_settings(env={}).answer.llm == "auto" and load_settings(env={}).chroma_url is None


def test_a_config_file_may_group_settings_in_tables(tmp_path: Path):
    cfg = tmp_path / "rag.toml"
    cfg.write_text('collection = "mylab"\n[retrieval]\nk = 6\n[endpoint]\nmodel = "m"\n')
    s = load_settings(cfg, env={})
    assert (s.collection, s.retrieval.k, s.endpoint.model) == ("mylab", 6, "m")
    assert s.replace(k=3).retrieval.k == 3 and s.retrieval.k == 6  # replace by flat name, a new object
    cfg.write_text("[retrieval]\nmodel = 'm'\n")
    with pytest.raises(ConfigError, match=r"\[retrieval\] has no setting 'model'"):
        load_settings(cfg, env={})


def test_secrets_are_masked_in_repr_and_public_dict():
    s = load_settings(env={"OPENAI_API_KEY": "sk-test-SECRET123"})
    assert "SECRET123" not in repr(s) and s.public_dict()["openai_api_key"] == "***"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"RAG_LLM": "gpt"}, "llm must be one of"),
        ({"RAG_LLM": "auto,extractive"}, "llm must be one of"),  # a list only where a setting takes one
        ({"RAG_UI_BACKENDS": "extractive, gpt"}, "ui_backends must be one of .*; got 'gpt'"),
        ({"RAG_K": "0"}, "k must be between"),
        ({"RAG_K": "many"}, "expects a number"),
        ({"RAG_PRESET": "nope"}, "unknown preset"),
        ({"RAG_COLLECTION": "ab"}, "3 characters"),
        ({"RAG_CHUNK_OVERLAP": "400"}, "chunk_overlap"),
        ({"RAG_EMBED_BATCH_SIZE": "0"}, "embed_batch_size must be between 1 and"),
        ({"RAG_CANDIDATES": "-3"}, "candidates must be between 1 and"),
        ({"RAG_TIMEOUT_S": "-1"}, "timeout_s must be between 0.1 and"),
        ({"RAG_MIN_RELEVANCE": "nan"}, "must be a number, got NaN"),
        ({"RAG_MAX_TOKENS": "1.5"}, "expects a number"),
    ],
)
def test_invalid_settings_are_one_line_config_errors(env: dict[str, str], message: str):
    with pytest.raises(ConfigError, match=message):
        load_settings(env=env)


def test_ui_backends_is_a_comma_separated_list_of_backends():
    assert load_settings(env={"RAG_UI_BACKENDS": "auto, extractive,"}).ui.ui_backends == "auto, extractive,"
    assert load_settings(env={}).ui.ui_backends == "" and load_settings(env={}).ui.ui_models == ""


def test_bad_config_files(tmp_path: Path):
    with pytest.raises(ConfigError, match="not found"):
        load_settings(tmp_path / "missing.toml", env={})
    bad = tmp_path / "bad.toml"
    bad.write_text("k = [unclosed")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings(bad, env={})
    unknown = tmp_path / "unknown.toml"
    unknown.write_text("colour = 'blue'")
    with pytest.raises(ConfigError, match="unknown setting 'colour'"):
        load_settings(unknown, env={})


def test_every_command_has_help():
    commands = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert set(commands) == {"index", "search", "ask", "check", "export", "eval", "ui"}
    for name in ["", *commands]:
        out = subprocess.run([RAG, *([name] if name else []), "--help"], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0 and "usage: rag" in out.stdout, name


def test_config_error_is_one_line_without_traceback(tmp_path: Path):
    env = {"PATH": "/usr/bin:/bin", "RAG_HOME": str(tmp_path), "RAG_LLM": "gpt"}
    out = subprocess.run([RAG, "search", "wells"], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 2 and out.stderr.strip().startswith("error: llm must be one of")
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1
