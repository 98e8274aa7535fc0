"""One Settings object, built once at the edge (CLI, UI, eval) and passed in; never global.

Precedence, lowest first: defaults < preset < TOML file < environment (RAG_*, OPENAI_*) < explicit overrides.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from rag.errors import ConfigError

REPO_DATA = Path(__file__).resolve().parent.parent / "data"
BUNDLED_CORPUS = REPO_DATA / "icml2025.jsonl"

# Named endpoint presets: a user writes `RAG_PRESET=ollama` instead of remembering the URL.
PRESETS: dict[str, dict[str, Any]] = {
    "openai": {"llm": "openai", "openai_base_url": "https://api.openai.com/v1", "model": "gpt-4o-mini"},
    "ollama": {"llm": "openai", "openai_base_url": "http://127.0.0.1:11434/v1", "model": "llama3.1"},
    "vllm": {"llm": "openai", "openai_base_url": "http://127.0.0.1:8000/v1"},
    "llamacpp": {"llm": "openai", "openai_base_url": "http://127.0.0.1:8080/v1", "model": "local"},
    "lmstudio": {"llm": "openai", "openai_base_url": "http://127.0.0.1:1234/v1"},
}

LLM_CHOICES = ("auto", "extractive", "openai", "local")
EMBEDDER_CHOICES = ("minilm", "openai")


def default_home() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "rag"


@dataclass(frozen=True)
class Settings:
    # where things live
    home: Path = field(default_factory=default_home)
    collection: str = "papers"
    chroma_url: str | None = None  # e.g. http://127.0.0.1:8765 for a `chroma run` server
    # indexing
    embedder: str = "minilm"
    embedding_model: str = "text-embedding-3-small"  # only for embedder=openai
    embed_batch_size: int = 8  # larger batches pad more and grow onnxruntime arenas: 32 -> 2.3 GB peak, 8 -> 0.7 GB
    chunk_tokens: int = 320
    chunk_overlap: int = 32
    # retrieval
    k: int = 5  # sources given to the answer step
    search_k: int = 10
    candidates: int = 50  # per retriever, before fusion
    max_k: int = 50
    # up to this many chunks, dense search is an exact scan of the local docstore's vectors instead of Chroma's
    # HNSW query: faster below the crossover measured by bench/bench_exact.py, and exact; 0 = always ask Chroma
    exact_search_max_chunks: int = 20000
    min_relevance: float = 0.22  # best dense cosine below this = nothing relevant found
    context_tokens: int = 3000  # token budget for sources in the prompt
    # answering
    llm: str = "auto"
    model: str = ""  # model name at the OpenAI-compatible endpoint
    openai_base_url: str | None = None
    openai_api_key: str | None = field(default=None, repr=False)
    temperature: float = 0.0
    max_tokens: int = 512
    timeout_s: float = 60.0
    max_retries: int = 4
    retry_max_wait_s: float = 20.0
    local_model_path: str | None = None  # a GGUF file; default: the packaged SmolLM2-135M
    local_port: int = 0  # 0 = pick a free port
    support_threshold: float = 0.55  # sentence-to-source similarity that counts as support
    max_question_chars: int = 4000
    max_history_turns: int = 6
    prompts_dir: Path = field(default_factory=lambda: Path(__file__).resolve().parent.parent / "prompts")

    @property
    def index_dir(self) -> Path:
        return self.home / "index"

    @property
    def runlog_path(self) -> Path:
        return self.home / "runs.jsonl"

    def replace(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **_coerce_all(changes))

    def public_dict(self) -> dict[str, Any]:
        """Settings as JSON-safe values with secrets masked, for logs and reports."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "openai_api_key":
                value = "***" if value else None
            out[f.name] = str(value) if isinstance(value, Path) else value
        return out


_FIELD_TYPES = {f.name: f.type for f in fields(Settings)}


def _coerce(name: str, value: Any) -> Any:
    if name not in _FIELD_TYPES:
        raise ConfigError(f"unknown setting '{name}'")
    kind = str(_FIELD_TYPES[name])
    if value is None or (isinstance(value, str) and value == "" and "None" in kind):
        return None
    try:
        if kind.startswith("Path"):
            return Path(str(value)).expanduser()
        if kind.startswith("int"):
            return int(value)
        if kind.startswith("float"):
            return float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"setting '{name}' expects a number, got {value!r}") from None
    return str(value)


def _coerce_all(values: Mapping[str, Any]) -> dict[str, Any]:
    return {k: _coerce(k, v) for k, v in values.items()}


def _validate(s: Settings) -> Settings:
    if s.llm not in LLM_CHOICES:
        raise ConfigError(f"llm must be one of {', '.join(LLM_CHOICES)}; got '{s.llm}'")
    if s.embedder not in EMBEDDER_CHOICES:
        raise ConfigError(f"embedder must be one of {', '.join(EMBEDDER_CHOICES)}; got '{s.embedder}'")
    if len(s.collection) < 3:
        raise ConfigError("collection name needs at least 3 characters")
    if not 1 <= s.k <= s.max_k or not 1 <= s.search_k <= s.max_k:
        raise ConfigError(f"k must be between 1 and {s.max_k}")
    if s.chunk_tokens < 16 or not 0 <= s.chunk_overlap < s.chunk_tokens:
        raise ConfigError("chunk_tokens must be >= 16 and chunk_overlap between 0 and chunk_tokens - 1")
    if s.exact_search_max_chunks < 0:
        raise ConfigError("exact_search_max_chunks must be 0 (always use Chroma's index) or more")
    return s


def load_settings(
    config: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    **overrides: Any,
) -> Settings:
    """Build Settings from a preset, a TOML file, the environment and explicit overrides."""
    env = os.environ if env is None else env
    values: dict[str, Any] = {}

    config_path = Path(config) if config else (Path(env["RAG_CONFIG"]) if env.get("RAG_CONFIG") else None)
    file_values: dict[str, Any] = {}
    if config_path is not None:
        try:
            file_values = tomllib.loads(config_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"config file not found: {config_path}") from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"config file {config_path} is not valid TOML: {exc}") from None

    preset = overrides.pop("preset", None) or env.get("RAG_PRESET") or file_values.pop("preset", None)
    if preset:
        if preset not in PRESETS:
            raise ConfigError(f"unknown preset '{preset}'; choose from {', '.join(PRESETS)}")
        values.update(PRESETS[preset])
    values.update(file_values)

    # the OpenAI SDK's own variables, so an existing setup just works
    if env.get("OPENAI_BASE_URL"):
        values["openai_base_url"] = env["OPENAI_BASE_URL"]
    if env.get("OPENAI_API_KEY"):
        values["openai_api_key"] = env["OPENAI_API_KEY"]
    for f in fields(Settings):
        key = "RAG_" + f.name.upper()
        if key in env:
            values[f.name] = env[key]
    values.update({k: v for k, v in overrides.items() if v is not None})
    return _validate(Settings(**_coerce_all(values)))
