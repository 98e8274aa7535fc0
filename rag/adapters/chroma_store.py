"""rag.ports.VectorStore over Chroma: the only module that imports chromadb.

Embedded `PersistentClient` under the data directory by default, `HttpClient` when a URL points at a
`chroma run` server. Vectors are always passed in (Chroma's own embedding function would try to download a
model). The collection records which embedder built it. Chroma's `where` syntax lives here and nowhere else.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from rag.adapters.chroma_errors import heartbeat, storage_problem
from rag.errors import ConfigError, IndexMissingError, StoreUnavailableError
from rag.filters import Filters
from rag.ports import Metadata, StoredChunk
from rag.redact import mask_url, mask_urls_in_logs

DEFAULT_TIMEOUT_S = 30.0
mask_urls_in_logs()  # chromadb's HTTP client logs every request URL


def _client(path: Path | None, url: str | None, timeout_s: float = DEFAULT_TIMEOUT_S) -> Any:
    # imported here: `import chromadb` alone takes ~0.6 s, and a search over a small local index never needs it
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    chroma_settings = ChromaSettings(anonymized_telemetry=False)
    if url:
        parts = urlparse(url if "://" in url else f"http://{url}")
        if not parts.hostname:
            raise ConfigError(f"chroma_url '{mask_url(url)}' is not a URL like http://127.0.0.1:8000")
        scheme, port = parts.scheme or "http", parts.port or 8000
        # chromadb's HTTP client has no timeout at all (its first requests run in the constructor): ask the
        # heartbeat with one first, so a server that accepts connections and never answers is a clear error
        heartbeat(f"{scheme}://{parts.hostname}:{port}", mask_url(url), timeout_s)
        try:
            client = chromadb.HttpClient(
                host=parts.hostname, port=port, ssl=scheme == "https", settings=chroma_settings
            )
        except Exception as exc:  # chromadb raises plain ValueError/ConnectionError when unreachable
            raise StoreUnavailableError(
                f"cannot reach the Chroma server at {mask_url(url)} ({type(exc).__name__}); is `chroma run` up?"
            ) from None
        session = getattr(getattr(client, "_server", None), "_session", None)
        if session is not None:  # httpx.Client: (connect, read, write, pool) for every later request
            session.timeout = (min(10.0, timeout_s), timeout_s, timeout_s, timeout_s)
        return client
    assert path is not None
    path.mkdir(parents=True, exist_ok=True)
    try:
        return chromadb.PersistentClient(path=str(path), settings=chroma_settings)
    except Exception as exc:  # a read-only directory, a damaged chroma.sqlite3, a full disk
        _forget_failed_system(path)
        problem = storage_problem(exc, str(path), path)
        if problem is None:
            raise
        raise problem from None


def _forget_failed_system(path: Path) -> None:
    """chromadb keeps a client's system cached per path even when starting it failed, so every later client for
    that path (a UI process retrying) failed with an AttributeError instead of the real reason: drop it."""
    try:
        from chromadb.api.shared_system_client import SharedSystemClient

        SharedSystemClient._identifier_to_system.pop(str(path), None)
    except Exception:  # another chromadb version: nothing to drop
        pass


def where_clause(filters: Filters | None) -> dict[str, Any] | None:
    """The part of the filters Chroma can apply itself, in its `where` syntax (the year range)."""
    if filters is None:
        return None
    clauses: list[dict[str, Any]] = []
    if filters.year_min is not None:
        clauses.append({"year": {"$gte": filters.year_min}})
    if filters.year_max is not None:
        clauses.append({"year": {"$lte": filters.year_max}})
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


class ChromaStore:
    """One Chroma collection of chunks (rag.ports.VectorStore). Every method translates Chroma failures into our
    errors. `path`: embedded Chroma's directory; `url`: a `chroma run` server instead."""

    def __init__(
        self, name: str, *, path: Path | None = None, url: str | None = None, client: Any = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> None:  # fmt: skip
        if not path and not url:
            raise ConfigError("a Chroma store needs a directory or a server URL")
        self.where = mask_url(url) if url else str(path)
        self.name = name
        self._path, self._url, self._timeout_s = path, url, timeout_s
        self._client_obj = client  # made at the first call (chromadb is imported then)
        self._owns_client = False  # True once this store made its client; a sibling borrows its parent's
        self._collection: Any = None
        self._max_batch: int | None = None
        self.shared = url is not None  # other processes may re-index it behind our back

    @property
    def _client(self) -> Any:
        if self._client_obj is None:
            self._client_obj = _client(self._path, self._url, self._timeout_s)
            self._owns_client = True
        return self._client_obj

    def sibling(self, name: str) -> ChromaStore:
        return ChromaStore(name, path=self._path, url=self._url, client=self._client, timeout_s=self._timeout_s)

    def close(self) -> None:
        """Close the client this store made. chromadb keeps one system per path for the whole process: left open
        after a failure (a full disk), the next `rag index` in the same process (a test, a notebook) reused it,
        and once waited on it for ten minutes."""
        client, self._client_obj, self._collection = self._client_obj, None, None
        if client is None or not self._owns_client:
            return
        try:
            client.close()
        except Exception:  # closing a client whose system already failed: nothing more to release
            if self._path is not None:
                _forget_failed_system(self._path)

    # -- collection lifecycle -------------------------------------------------------------------
    def _call(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (ConnectionError, OSError) as exc:
            raise StoreUnavailableError(
                f"the vector store at {self.where} is unreachable ({exc.__class__.__name__})"
            ) from None
        except Exception as exc:
            name = type(exc).__name__
            if name in {"ReadTimeout", "WriteTimeout", "ConnectTimeout", "PoolTimeout"}:
                raise StoreUnavailableError(
                    f"the vector store at {self.where} did not answer within {self._timeout_s:g} s "
                    "(chroma_timeout_s); is the server overloaded or stuck?"
                ) from None
            if "connect" in str(exc).lower() or name in {"ConnectError", "RemoteProtocolError", "ReadError"}:
                raise StoreUnavailableError(f"the vector store at {self.where} is unreachable") from None
            problem = storage_problem(exc, self.where, self._path)
            if problem is not None:
                raise problem from None
            raise

    def exists(self) -> bool:
        names = self._call(self._client.list_collections)
        return any((getattr(c, "name", c)) == self.name for c in names)

    def open(self) -> ChromaStore:
        """Open the existing collection; IndexMissingError when there is none."""
        if self._collection is None:
            if not self.exists():
                raise IndexMissingError(f"no index '{self.name}' at {self.where}; run `rag index` first")
            self._collection = self._call(self._client.get_collection, self.name, embedding_function=None)
        return self

    def create(self, embedder_name: str, dim: int, extra: Mapping[str, Any] | None = None) -> ChromaStore:
        """Create (or open) the collection, recording the embedder that fills it."""
        meta = {"embedder": embedder_name, "dim": dim, **(extra or {})}
        self._collection = self._call(
            self._client.get_or_create_collection,
            self.name,
            embedding_function=None,
            configuration={"hnsw": {"space": "cosine"}},
            metadata=meta,
        )
        return self

    @property
    def info(self) -> dict[str, Any]:
        self.open()
        return dict(self._collection.metadata or {})

    def fresh_info(self) -> dict[str, Any]:
        """The collection metadata as the store has it now (another process may have re-indexed)."""
        self._collection = self._call(self._client.get_collection, self.name, embedding_function=None)
        return dict(self._collection.metadata or {})

    def update_info(self, **values: Any) -> None:
        """Merge values into the collection metadata."""
        merged = {**self.info, **values}
        self._call(self._collection.modify, metadata=merged)

    def drop(self) -> None:
        if self.exists():
            self._call(self._client.delete_collection, self.name)
        self._collection = None

    def rename(self, new_name: str) -> None:
        self.open()
        self._call(self._collection.modify, name=new_name)
        self.name = new_name

    def max_batch_size(self) -> int:
        """Chroma's own limit on ids per call (asked once: on a server it is a round trip)."""
        if self._max_batch is None:
            try:
                self._max_batch = int(self._client.get_max_batch_size())
            except Exception:
                self._max_batch = 1000
        return self._max_batch

    # -- writes ---------------------------------------------------------------------------------
    def upsert(
        self,
        ids: Sequence[str],
        embeddings: Sequence[Sequence[float]],
        texts: Sequence[str],
        metadatas: Sequence[Metadata],
    ) -> None:
        self.open()
        step = self.max_batch_size()
        for i in range(0, len(ids), step):
            self._call(
                self._collection.upsert,
                ids=list(ids[i : i + step]),
                embeddings=[list(e) for e in embeddings[i : i + step]],
                documents=list(texts[i : i + step]),
                metadatas=[dict(m) for m in metadatas[i : i + step]],
            )

    def update_metadata(self, ids: Sequence[str], metadatas: Sequence[Metadata]) -> None:
        self.open()
        step = self.max_batch_size()
        for i in range(0, len(ids), step):
            self._call(
                self._collection.update,
                ids=list(ids[i : i + step]),
                metadatas=[dict(m) for m in metadatas[i : i + step]],
            )

    def delete(self, ids: Sequence[str]) -> None:
        self.open()
        step = self.max_batch_size()
        for i in range(0, len(ids), step):
            self._call(self._collection.delete, ids=list(ids[i : i + step]))

    # -- reads ----------------------------------------------------------------------------------
    def count(self) -> int:
        self.open()
        return int(self._call(self._collection.count))

    def iter_metadata(self, page: int = 5000) -> Iterator[tuple[str, Metadata]]:
        """Every chunk id with its metadata, page by page (no documents, no vectors)."""
        self.open()
        offset = 0
        while True:
            got = self._call(self._collection.get, include=["metadatas"], limit=page, offset=offset)
            if not got["ids"]:
                return
            yield from zip(got["ids"], got["metadatas"], strict=True)
            offset += len(got["ids"])

    def get(self, ids: Sequence[str], with_embeddings: bool = False) -> list[StoredChunk]:
        """Chunks by id, in the order asked; ids not in the store are left out."""
        if not ids:
            return []
        self.open()
        include = ["documents", "metadatas"] + (["embeddings"] if with_embeddings else [])
        got = self._call(self._collection.get, ids=list(ids), include=include)
        embeddings = got.get("embeddings")
        by_id = {}
        for n, cid in enumerate(got["ids"]):
            emb = embeddings[n] if with_embeddings and embeddings is not None else None
            by_id[cid] = StoredChunk(cid, got["documents"][n], got["metadatas"][n], emb)
        return [by_id[i] for i in ids if i in by_id]

    def chunks_of_paper(self, paper_id: str, limit: int = 100) -> list[StoredChunk]:
        self.open()
        got = self._call(
            self._collection.get, where={"paper_id": paper_id}, include=["documents", "metadatas"], limit=limit
        )
        return [StoredChunk(i, d, m) for i, d, m in zip(got["ids"], got["documents"], got["metadatas"], strict=True)]

    def nearest(self, vector: Sequence[float], n: int, filters: Filters | None = None) -> list[tuple[str, float]]:
        """Ids of the n nearest chunks with their cosine distance, best first: one store call, no documents
        (the retriever fetches text and metadata only for the few candidates that survive fusion)."""
        self.open()
        got = self._call(
            self._collection.query,
            query_embeddings=[list(vector)],
            n_results=max(1, n),
            where=where_clause(filters),
            include=["distances"],
        )
        return [(cid, float(dist)) for cid, dist in zip(got["ids"][0], got["distances"][0], strict=True)]
