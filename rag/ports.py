"""The interfaces the pipeline is written against: ChatModel, Embedder, VectorStore.

Adapters (rag.adapters.*) implement them over outside libraries; rag.adapters.fakes implements them for tests.
The core (corpus, index, retrieve, answer) sees only these protocols, and gets the implementations from the
factory at the edge (rag.factory). Nothing here imports an outside library.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypedDict

from rag.filters import Filters
from rag.types import Usage

Metadata = Mapping[str, str | int | float | bool]


# -- chat ---------------------------------------------------------------------------------------
class Message(TypedDict):
    role: str  # "system" | "user" | "assistant"
    content: str


class ChatStream(Protocol):
    """Iterate for text deltas. After the iteration ends, `usage` holds the token counts
    (zeros when the endpoint did not report them)."""

    usage: Usage

    def __iter__(self) -> Iterator[str]: ...


class ChatModel(Protocol):
    backend: str  # "openai", "local", "fake" ...
    model: str  # model name as the endpoint knows it

    def stream(self, messages: Sequence[Message], *, max_tokens: int, temperature: float) -> ChatStream:
        """Start a completion. Failures before the first delta are retried inside the adapter and end
        in LLMError; a failure after text has arrived raises StreamInterrupted."""
        ...


def complete(
    model: ChatModel, messages: Sequence[Message], *, max_tokens: int, temperature: float
) -> tuple[str, Usage]:
    """Run a completion to the end and return its text and usage (for short calls such as follow-up rewriting)."""
    stream = model.stream(messages, max_tokens=max_tokens, temperature=temperature)
    text = "".join(stream)
    return text, stream.usage


# -- the learned support judge -------------------------------------------------------------------
class SupportJudge(Protocol):
    def probabilities(self, pairs: Sequence[tuple[str, str]]) -> list[tuple[float, float, float]]:
        """(supported, contradicted, not found) for each (claim, evidence) pair, in order."""
        ...


# -- embeddings ---------------------------------------------------------------------------------
class Embedder(Protocol):
    @property
    def name(self) -> str:
        """Recorded on the collection; querying with another embedder is refused."""
        ...

    @property
    def dim(self) -> int: ...

    def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        """L2-normalised vectors, one per text, in order."""
        ...


# -- vector store -------------------------------------------------------------------------------
@dataclass(frozen=True)
class StoredChunk:
    id: str
    text: str
    metadata: Metadata
    embedding: Sequence[float] | None = None  # as the store returns it (a numpy row), when asked for


class VectorStore(Protocol):
    """One collection of chunks: ids, vectors (cosine), texts and flat metadata. Every method raises only our
    errors: IndexMissingError when the collection does not exist, StoreUnavailableError when it cannot be
    reached. Contract: tests/test_store.py runs the same tests over every implementation."""

    name: str  # the collection
    where: str  # where it lives, for messages (a path or a URL without credentials)
    shared: bool  # a server other processes may re-index (then local copies are checked against it)

    def sibling(self, name: str) -> VectorStore:
        """Another collection in the same place (a rebuild is written beside the live one)."""
        ...

    def exists(self) -> bool: ...

    def close(self) -> None:
        """Release the connection (embedded Chroma: its database handles and threads), so that a later store
        at the same place in this process starts fresh. Siblings share it: only the store they came from closes."""
        ...

    def open(self) -> VectorStore:
        """Open the existing collection; IndexMissingError when there is none."""
        ...

    def create(self, embedder_name: str, dim: int, extra: Mapping[str, Any] | None = None) -> VectorStore:
        """Create (or open) the collection, recording the embedder that fills it."""
        ...

    @property
    def info(self) -> dict[str, Any]:
        """The collection's metadata as read when it was opened (embedder, dim, fingerprint...)."""
        ...

    def fresh_info(self) -> dict[str, Any]:
        """The collection metadata as the store has it now (another process may have changed it)."""
        ...

    def update_info(self, **values: Any) -> None: ...

    def drop(self) -> None: ...

    def rename(self, new_name: str) -> None: ...

    def upsert(
        self,
        ids: Sequence[str],
        embeddings: Sequence[Sequence[float]],
        texts: Sequence[str],
        metadatas: Sequence[Metadata],
    ) -> None: ...

    def update_metadata(self, ids: Sequence[str], metadatas: Sequence[Metadata]) -> None: ...

    def delete(self, ids: Sequence[str]) -> None: ...

    def count(self) -> int: ...

    def iter_metadata(self, page: int = 5000) -> Iterator[tuple[str, Metadata]]:
        """Every chunk id with its metadata, page by page (no documents, no vectors)."""
        ...

    def get(self, ids: Sequence[str], with_embeddings: bool = False) -> list[StoredChunk]:
        """Chunks by id, in the order asked; ids not in the store are left out."""
        ...

    def chunks_of_paper(self, paper_id: str, limit: int = 100) -> list[StoredChunk]: ...

    def nearest(self, vector: Sequence[float], n: int, filters: Filters | None = None) -> list[tuple[str, float]]:
        """Ids of the n nearest chunks with their cosine distance, best first. The store applies the filters it
        can (the year range); the caller checks the rest with `Filters.accepts`."""
        ...


def batch_order(embedder: Embedder, texts: Sequence[str]) -> list[int]:
    """Positions of `texts` shortest first, so that consecutive batches pad least. By the model's own token count
    when the embedder offers `token_counts` (the local MiniLM): character length is a loose proxy for it (numbers,
    gene and chemical names cost many tokens per character), and on the 5,183 SciFact abstracts sorting by
    characters added 16.7 % to the tokens the encoder runs, by tokens 0.5 % (BENCHMARKS.md section 9e)."""
    counts = getattr(embedder, "token_counts", None)
    key = counts(texts) if callable(counts) else [len(text) for text in texts]
    return sorted(range(len(texts)), key=key.__getitem__)


def embed_in_batches(
    embedder: Embedder, texts: Sequence[str], batch_size: int, order: Sequence[int] | None = None
) -> list[list[float]]:
    """Embed texts in batches of similar length (less padding; `order`: another order of their positions),
    returning vectors in input order."""
    order = batch_order(embedder, texts) if order is None else order
    out: list[list[float]] = [[] for _ in texts]
    for start in range(0, len(order), max(1, batch_size)):
        idx = order[start : start + batch_size]
        for i, vec in zip(idx, embedder.embed_batch([texts[i] for i in idx]), strict=True):
            out[i] = vec
    return out
