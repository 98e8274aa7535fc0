"""question -> list[Hit]: dense (Chroma) and lexical (BM25) candidates fused by reciprocal rank,
filtered, one hit per paper, cut to k and to a token budget."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from rag.docstore import DocStore, DocStoreBuilder
from rag.embedding import Embedder, embedder_name, make_embedder
from rag.errors import IndexMissingError, QuestionError, RagError
from rag.indexer import dirty_marker, docs_dir, lexical_dir
from rag.lexical import LexicalBuilder, LexicalIndex
from rag.records import lexical_text, paper_from_metadata
from rag.settings import Settings
from rag.store import StoredChunk, VectorStore
from rag.types import Hit, Paper

RRF_K = 60
MODES = ("hybrid", "dense", "lexical")
_SURROGATES = re.compile(r"[\ud800-\udfff]")


@dataclass(frozen=True)
class Filters:
    year_min: int | None = None
    year_max: int | None = None
    venue: str | None = None  # case-insensitive substring
    author: str | None = None  # case-insensitive substring of any author

    def where(self) -> dict[str, object] | None:
        """The part Chroma can filter on itself."""
        clauses: list[dict[str, object]] = []
        if self.year_min is not None:
            clauses.append({"year": {"$gte": self.year_min}})
        if self.year_max is not None:
            clauses.append({"year": {"$lte": self.year_max}})
        if not clauses:
            return None
        return clauses[0] if len(clauses) == 1 else {"$and": clauses}

    def accepts(self, paper: Paper) -> bool:
        if self.year_min is not None and (paper.year is None or paper.year < self.year_min):
            return False
        if self.year_max is not None and (paper.year is None or paper.year > self.year_max):
            return False
        if self.venue and self.venue.lower() not in (paper.venue or "").lower():
            return False
        return not (self.author and not any(self.author.lower() in a.lower() for a in paper.authors))

    @property
    def active(self) -> bool:
        return any(v is not None and v != "" for v in (self.year_min, self.year_max, self.venue, self.author))


class Retriever:
    """Opens the index once (vector store, BM25, embedder) and answers many searches."""

    def __init__(self, settings: Settings, embedder: Embedder | None = None, store: VectorStore | None = None) -> None:
        self.settings = settings
        self.store = (store or VectorStore(settings)).open()
        built_with = self.store.info.get("embedder")
        wanted = embedder.name if embedder else embedder_name(settings)
        if built_with != wanted:
            raise IndexMissingError(
                f"the index was built with embedder '{built_with}' but the settings use '{wanted}'; "
                "run `rag index --rebuild` or change the embedder setting"
            )
        self._embedder = embedder
        self.stale = dirty_marker(settings).exists()
        self.lexical, self.docs = self._local(self.store.info.get("lexical_fingerprint"))
        self._checked_at = time.monotonic()
        self._refresh_lock = threading.Lock()

    def refresh_if_reindexed(self, every_s: float = 30.0) -> None:
        """At most every `every_s`, ask the store whether another process re-indexed; if so load (or rebuild from
        the store) BM25 and the docstore in the background and swap them in. Meanwhile searches keep the old
        BM25 and read text from the store, not from the outdated docstore."""
        if time.monotonic() - self._checked_at < every_s or not self._refresh_lock.acquire(blocking=False):
            return
        self._checked_at = time.monotonic()
        try:
            wanted = self.store.fresh_info().get("lexical_fingerprint")
        except RagError:
            self._refresh_lock.release()
            return
        if not wanted or wanted == self.lexical.fingerprint:
            self._refresh_lock.release()
            return

        self.docs = None

        def rebuild() -> None:
            try:
                self.lexical, self.docs = self._local(str(wanted))
            except RagError:
                pass  # the store went away mid-rebuild: keep the old BM25, try again later
            finally:
                self._refresh_lock.release()

        threading.Thread(target=rebuild, name="bm25-refresh", daemon=True).start()

    def _local(self, wanted: str | None) -> tuple[LexicalIndex, DocStore | None]:
        """BM25 and the docstore from this machine's files when they match the store's fingerprint, else
        rebuilt from the store. A docstore that does not match is left out (text then comes from the store)."""
        lexical = LexicalIndex.load(lexical_dir(self.settings))
        if lexical is None or (wanted and lexical.fingerprint != wanted):
            return self._rebuild_local(str(wanted or "rebuilt-from-store"))
        docs = DocStore.load(docs_dir(self.settings))
        return lexical, docs if docs is not None and docs.fingerprint == lexical.fingerprint else None

    def _rebuild_local(self, fingerprint: str) -> tuple[LexicalIndex, DocStore]:
        """BM25 and docstore files missing or older than the store (e.g. a UI process in front of a Chroma server
        that another machine re-indexed): rebuild both from the store's chunks and save them here."""
        metas = list(self.store.iter_metadata())
        lexical = LexicalBuilder()
        docs = DocStoreBuilder(docs_dir(self.settings), len(metas), int(self.store.info.get("dim") or 0))
        try:
            for start in range(0, len(metas), 1000):
                for chunk in self.store.get([cid for cid, _ in metas[start : start + 1000]], with_embeddings=True):
                    lexical.add(chunk.id, lexical_text(chunk.metadata, chunk.text))
                    docs.add(chunk.id, chunk.text, chunk.metadata)
                    if chunk.embedding is not None:
                        docs.set_vector(chunk.id, chunk.embedding)
            index = lexical.finish(fingerprint)
            index.save(lexical_dir(self.settings))
            docs.finish(fingerprint)
        except BaseException:
            docs.abort()
            raise
        loaded = DocStore.load(docs_dir(self.settings))
        if loaded is None:
            raise IndexMissingError(f"cannot read the docstore just written under {self.settings.index_dir}")
        return index, loaded

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = make_embedder(self.settings)
        return self._embedder

    def search(
        self,
        query: str,
        k: int | None = None,
        *,
        filters: Filters | None = None,
        mode: str = "hybrid",
        token_budget: int | None = None,
        per_paper: int = 1,
    ) -> list[Hit]:
        """The k best chunks for the query (one per paper by default), best first."""
        query = _SURROGATES.sub(" ", query).strip()  # undecodable argv bytes; the tokenizer rejects them
        if not query:
            raise QuestionError("the query is empty")
        self.refresh_if_reindexed()
        k = self.settings.search_k if k is None else k
        if not 1 <= k <= self.settings.max_k:
            raise QuestionError(f"k must be between 1 and {self.settings.max_k}")
        if mode not in MODES:
            raise QuestionError(f"mode must be one of {', '.join(MODES)}")
        filters = filters or Filters()
        n = self.settings.candidates * (4 if filters.active else 1)
        qvec = np.asarray(self.embedder.embed_batch([query])[0], dtype=np.float32)

        # candidates: ids and scores only; text, metadata and vectors are fetched for the fused best few
        ranked: list[list[str]] = []
        dense: dict[str, float] = {}
        lexical: dict[str, float] = {}
        if mode in ("hybrid", "dense"):
            nearest = self._nearest(qvec, n, filters)
            dense = {cid: 1.0 - distance for cid, distance in nearest}
            ranked.append([cid for cid, _ in nearest])
        if mode in ("hybrid", "lexical"):
            lexical = dict(self.lexical.search(query, n))
            ranked.append(list(lexical))
        fused: dict[str, float] = {}
        for ranking in ranked:
            for rank, cid in enumerate(ranking):
                fused[cid] = fused.get(cid, 0.0) + 1.0 / (RRF_K + rank + 1)
        order = sorted(fused, key=lambda c: (-fused[c], c))
        best = len(ranked) / (RRF_K + 1)

        hits: list[Hit] = []
        per: dict[str, int] = {}
        used_tokens = 0
        # fetch in pages of 2k: filters and the per-paper rule may skip some, and a page is one store call
        for start in range(0, len(order), 2 * k):
            for chunk in self._chunks(order[start : start + 2 * k], dense):
                cid = chunk.id
                if cid not in dense and chunk.embedding is not None:  # lexical-only: score it against the query
                    dense[cid] = float(np.asarray(chunk.embedding, dtype=np.float32) @ qvec)
                paper = paper_from_metadata(chunk.metadata, str(chunk.metadata.get("abstract") or chunk.text))
                if not filters.accepts(paper) or per.get(paper.id, 0) >= per_paper:
                    continue
                tokens = int(chunk.metadata.get("num_tokens", 0) or 0)
                if token_budget is not None and hits and used_tokens + tokens > token_budget:
                    return hits
                per[paper.id] = per.get(paper.id, 0) + 1
                used_tokens += tokens
                hits.append(Hit(paper, cid, chunk.text, fused[cid] / best, dense.get(cid), lexical.get(cid), tokens))
                if len(hits) >= k:
                    return hits
        return hits

    def _nearest(self, qvec: np.ndarray, n: int, filters: Filters) -> list[tuple[str, float]]:
        """Dense candidates: an exact scan of the docstore's vectors for a small, unfiltered, up-to-date index;
        otherwise Chroma's approximate (HNSW) query, which also applies metadata filters."""
        docs, where = self.docs, filters.where()
        if where is None and docs is not None and not self.stale and len(docs) <= self.settings.exact_search_max_chunks:
            return docs.nearest(qvec, n)
        return self.store.nearest(qvec.tolist(), n, where=where)

    def _chunks(self, ids: list[str], dense: dict[str, float]) -> Iterator[StoredChunk]:
        """Text, metadata and vector of each id, in order, read as they are consumed: from the local docstore,
        else from the store in one call (with vectors only when some are not dense candidates). Ids found in
        neither are left out."""
        docs = self.docs
        missing = [cid for cid in ids if docs is None or cid not in docs]
        fetched: dict[str, StoredChunk] = {}
        if missing:
            need_vectors = any(cid not in dense for cid in missing)
            fetched = {c.id: c for c in self.store.get(missing, with_embeddings=need_vectors)}
        for cid in ids:
            chunk = fetched.get(cid) if docs is None or cid not in docs else docs.get(cid)
            if chunk is not None:
                yield chunk

    def paper(self, paper_id: str) -> Paper | None:
        """One paper with its whole abstract, by id (never by path)."""
        chunks = sorted(self.store.get_where({"paper_id": paper_id}), key=lambda c: int(c.metadata.get("position", 0)))
        if not chunks:
            return None
        first = chunks[0].metadata
        return paper_from_metadata(first, str(first.get("abstract") or chunks[0].text))


def search(settings: Settings, query: str, k: int | None = None, **kwargs: object) -> list[Hit]:
    """One-shot search (opens the index each call; hold a Retriever for many queries)."""
    return Retriever(settings).search(query, k, **kwargs)  # type: ignore[arg-type]


def top_relevance(hits: Sequence[Hit]) -> float:
    """The best cosine similarity among the hits: the answer step's "anything relevant?" signal."""
    return max((h.dense_score for h in hits if h.dense_score is not None), default=0.0)
