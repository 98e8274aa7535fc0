"""question -> list[Hit]: dense (vector store or the docstore's exact scan) and lexical (BM25) candidates fused by
score (rag.retrieve.fusion), the best of them rescored by their best sentence (rag.retrieve.evidence), filtered,
one hit per paper, cut to k and to a token budget."""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator

import numpy as np

from rag.corpus.roles import decode_roles
from rag.errors import IndexMissingError, QuestionError, RagError
from rag.filters import Filters
from rag.index.calibration import from_json
from rag.index.calibration import stored as stored_calibration
from rag.index.docstore import DocStore
from rag.index.layout import Layout
from rag.index.local_copies import load_local, local_only
from rag.index.records import AUTHOR_SEP, page_of, paper_from_metadata, stored_text
from rag.ports import Embedder, StoredChunk, VectorStore
from rag.retrieve.evidence import rescore
from rag.retrieve.fields import AuthorLookup, ChunkLookup, authored_papers, promote
from rag.retrieve.fusion import confident_first, fuse, keep_confident, keep_exact_match, scale_dense, scale_lexical
from rag.settings import RetrievalSettings
from rag.text import split_sentences
from rag.types import Hit, Paper

MODES = ("hybrid", "dense", "lexical")
_SURROGATES = re.compile(r"[\ud800-\udfff]")


class Retriever:
    """Opens the index once (vector store, BM25, docstore) and answers many searches. The embedder may load its
    model lazily: only its `name` is read at start-up."""

    def __init__(self, settings: RetrievalSettings, *, store: VectorStore, embedder: Embedder, layout: Layout) -> None:
        self.settings = settings
        self.layout = layout
        self.store = store
        self.stale = layout.dirty_marker.exists()
        # this machine's own index (not a shared server): its local copies know the embedder and are current, so
        # the store is not even opened (chromadb is not imported) until a query needs it
        local = None if store.shared or self.stale else local_only(layout)
        self.docs: DocStore | None
        if local is not None:
            self.lexical, self.docs = local
            built_with = local[1].info.get("embedder")
            # the relevance floors `rag index` derived from this collection (None: an older or too small index)
            self.calibration = stored_calibration(layout, self.lexical.fingerprint)
        else:
            info = store.open().info
            built_with = info.get("embedder")
            self.lexical, self.docs = load_local(layout, store, info.get("lexical_fingerprint"))
            self.calibration = from_json(info.get("calibration"))
        if built_with != embedder.name:
            raise IndexMissingError(
                f"the index was built with embedder '{built_with}' but the settings use '{embedder.name}'; "
                "run `rag index --rebuild` or change the embedder setting"
            )
        self.embedder = embedder
        self._checked_at = time.monotonic()
        self._local_stamp = _stamp(layout)
        self._refresh_lock = threading.Lock()
        self._queries: OrderedDict[str, np.ndarray] = OrderedDict()  # recent query vectors (the answer reuses them)
        self._queries_lock = threading.Lock()

    def refresh_if_reindexed(self, every_s: float = 30.0) -> None:
        """At most every `every_s`, ask the store whether another process re-indexed; if so load (or rebuild from
        the store) BM25 and the docstore in the background and swap them in. Meanwhile searches keep the old
        BM25 and read text from the store, not from the outdated docstore."""
        if time.monotonic() - self._checked_at < every_s or not self._refresh_lock.acquire(blocking=False):
            return
        self._checked_at = time.monotonic()
        if not self.store.shared:  # our own index: `rag index` rewrites the local copies, so watch those
            stamp = _stamp(self.layout)
            local = local_only(self.layout) if stamp != self._local_stamp else None
            if local is not None:
                self.lexical, self.docs = local
                self.calibration = stored_calibration(self.layout, self.lexical.fingerprint)
                self._local_stamp = stamp
            self._refresh_lock.release()
            return
        try:
            fresh = self.store.fresh_info()
        except RagError:
            self._refresh_lock.release()
            return
        wanted = fresh.get("lexical_fingerprint")
        if wanted and wanted != self.lexical.fingerprint:
            self.calibration = from_json(fresh.get("calibration"))
        if not wanted or wanted == self.lexical.fingerprint:
            self._refresh_lock.release()
            return

        self.docs = None

        def rebuild() -> None:
            try:
                self.lexical, self.docs = load_local(self.layout, self.store, str(wanted))
            except RagError:
                pass  # the store went away mid-rebuild: keep the old BM25, try again later
            finally:
                self._refresh_lock.release()

        threading.Thread(target=rebuild, name="bm25-refresh", daemon=True).start()

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
        # deep enough for k distinct papers even when some papers have several chunks among the candidates
        n = max(self.settings.candidates, 3 * k * per_paper) * (4 if filters.active else 1)
        qvec = self.query_vector(query)
        order, fused, dense, lexical, fetched = self._rank(query, qvec, mode, n, filters)
        if mode != "dense":  # a paper whose author the query names (a field match, not the abstract's words)
            order = promote(order, fused, authored_papers(query, self.lexical.postings, self._author_lookup()))

        hits: list[Hit] = []
        per: dict[str, int] = {}
        used_tokens = 0
        # fetch in pages of 2k: filters and the per-paper rule may skip some, and a page is one store call
        for start in range(0, len(order), 2 * k):
            for chunk in self._chunks(order[start : start + 2 * k], dense, fetched):
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
                page, page_end, section = page_of(chunk.metadata)
                text = stored_text(chunk.text)  # an index built before markup was undone holds "10\\%"
                roles = decode_roles(chunk.metadata.get("roles"), len(split_sentences(text)))
                hits.append(Hit(paper, cid, text, fused[cid], dense.get(cid), lexical.get(cid) or None, tokens,
                                page, page_end, section, roles))  # fmt: skip
                if len(hits) >= k:
                    return hits
        return hits

    def _rank(self, query: str, qvec: np.ndarray, mode: str, n: int, filters: Filters) -> tuple[
            list[str], dict[str, float], dict[str, float], dict[str, float], dict[str, StoredChunk]]:  # fmt: skip
        """Candidate chunk ids, best first, with their fused score, cosine (where known) and BM25 score, and the
        chunks it had to fetch from the store for their vectors. Ids and scores only otherwise: text, metadata and
        vectors are fetched for the best few afterwards."""
        dense: dict[str, float] = {}
        if mode != "lexical":
            dense = {cid: 1.0 - distance for cid, distance in self._nearest(qvec, n, filters)}
        floor = min(dense.values(), default=0.0)  # the n-th cosine: no chunk the dense search left out scores more
        scaled_dense = dict(zip(dense, scale_dense(np.fromiter(dense.values(), np.float64, len(dense))).tolist(),
                                strict=True))  # fmt: skip
        if mode == "dense":
            return list(dense), scaled_dense, dense, {}, {}
        scores = self.lexical.scores(query)
        lexical = dict(self.lexical.top(scores, n))
        scaled_lexical = dict(zip(lexical, scale_lexical(np.fromiter(lexical.values(), np.float64, len(lexical)))
                                  .tolist(), strict=True))  # fmt: skip
        if mode == "lexical":
            return list(lexical), scaled_lexical, dense, lexical, {}
        firsts = [c for c in (confident_first(scaled_dense), confident_first(scaled_lexical)) if c is not None]
        ids = list(dict.fromkeys([*dense, *lexical]))
        docs = self.docs if not self.stale else None
        only_lexical = [cid for cid in lexical if cid not in dense]
        fetched: dict[str, StoredChunk] = {}
        if docs is not None and only_lexical and all(cid in docs for cid in only_lexical):
            dense.update(zip(only_lexical, docs.cosines_of(only_lexical, qvec).tolist(), strict=True))
        elif only_lexical:  # no usable docstore: their vectors from the store, in the call the page loop would make
            fetched = {c.id: c for c in self.store.get(only_lexical, with_embeddings=True)}
            dense.update((c.id, float(np.dot(np.asarray(c.embedding, np.float32), qvec))) for c in fetched.values()
                         if c.embedding is not None)  # fmt: skip
        for cid in dense.keys() - lexical.keys():
            lexical[cid] = self.lexical.score_of(scores, cid)
        cosines = np.fromiter((dense.get(cid, floor) for cid in ids), np.float64, len(ids))
        order, fused = fuse(ids, cosines, np.fromiter((lexical[c] for c in ids), np.float64, len(ids)))
        order = keep_confident(rescore(order, fused, lambda head: self._best_sentences(head, qvec)), fused, firsts)
        return keep_exact_match(order, fused, self.lexical.exact_match(query, scores)), fused, dense, lexical, fetched

    def _nearest(self, qvec: np.ndarray, n: int, filters: Filters) -> list[tuple[str, float]]:
        """Dense candidates: an exact scan of the docstore's vectors for a small, unfiltered, up-to-date index;
        otherwise Chroma's approximate (HNSW) query, which also applies metadata filters."""
        docs = self.docs
        exact = docs is not None and not self.stale and len(docs) <= self.settings.exact_search_max_chunks
        if exact and not filters.has_year_range and docs is not None:
            return docs.nearest(qvec, n)
        return self.store.nearest(qvec.tolist(), n, filters=filters)

    def _chunks(self, ids: list[str], dense: dict[str, float], fetched: dict[str, StoredChunk]
                ) -> Iterator[StoredChunk]:  # fmt: skip
        """Text, metadata and vector of each id, in order, read as they are consumed: from the local docstore,
        else from the store in one call (with vectors only when some are not dense candidates). Ids found in
        neither are left out."""
        docs = self.docs
        missing = [cid for cid in ids if (docs is None or cid not in docs) and cid not in fetched]
        if missing:
            need_vectors = any(cid not in dense for cid in missing)
            fetched = {**fetched, **{c.id: c for c in self.store.get(missing, with_embeddings=need_vectors)}}
        for cid in ids:
            chunk = fetched.get(cid) if docs is None or cid not in docs else docs.get(cid)
            if chunk is not None:
                yield chunk

    def _author_lookup(self) -> AuthorLookup:
        """The docstore's author table (it holds what the docstore holds, and the docstore is BM25's pair), else
        the first chunks read one by one (an index written before the table, or no usable docstore)."""
        docs = self.docs
        table = docs.author_table if docs is not None else None
        return table if table is not None else ChunkLookup(self._authors_of)

    def _authors_of(self, chunk_ids: list[str]) -> dict[str, tuple[tuple[str, ...], str]]:
        chunks = self._chunks(chunk_ids, {}, {})
        return {c.id: (tuple(str(c.metadata.get("authors") or "").split(AUTHOR_SEP)), c.text) for c in chunks}

    def query_vector(self, query: str) -> np.ndarray:
        """The query's embedding, kept for the last few queries (the answer step reuses the one search made)."""
        with self._queries_lock:
            known = self._queries.get(query)
        if known is not None:
            return known
        vector = np.asarray(self.embedder.embed_batch([query])[0], dtype=np.float32)
        with self._queries_lock:
            self._queries[query] = vector
            while len(self._queries) > 64:
                self._queries.popitem(last=False)
        return vector

    def forget_queries(self) -> None:
        """Drop the kept query vectors (the next search of any query embeds it again)."""
        with self._queries_lock:
            self._queries.clear()

    def _best_sentences(self, chunk_ids: list[str], qvec: np.ndarray) -> np.ndarray | None:
        """Each chunk's best sentence cosine from the docstore's stored sentence vectors (None: not stored)."""
        docs = self.docs
        return None if docs is None or self.stale else docs.best_sentence_cosines(chunk_ids, qvec)

    def cosine(self, chunk_id: str, query: str) -> float | None:
        """One stored chunk's cosine to the query (None: no local vectors to compute it from)."""
        docs = self.docs
        if docs is None or self.stale or chunk_id not in docs:
            return None
        return float(docs.cosines_of([chunk_id], self.query_vector(query))[0])

    def sentence_vectors(self, chunk_id: str) -> np.ndarray | None:
        """The chunk's sentence vectors stored at index time (None: embed them when needed)."""
        docs = self.docs
        return None if docs is None or self.stale else docs.sentence_vectors(chunk_id)

    def stored(self, chunk_id: str) -> StoredChunk | None:
        """One chunk's text and metadata as indexed (the local docstore, else the store), or None."""
        docs = self.docs
        local = docs.get(chunk_id) if docs is not None and not self.stale else None
        if local is not None:
            return local
        found = self.store.get([chunk_id])
        return found[0] if found else None

    def paper(self, paper_id: str) -> Paper | None:
        """One paper with its whole abstract, by id (never by path)."""
        docs = self.docs
        local = docs.get(f"{paper_id}:0") if docs is not None and not self.stale else None
        if local is not None and local.metadata.get("paper_id") == paper_id:
            return paper_from_metadata(local.metadata, str(local.metadata.get("abstract") or local.text))
        first_chunk = self.store.get([f"{paper_id}:0"])  # a full-text paper may have more chunks than one page
        if first_chunk and first_chunk[0].metadata.get("paper_id") == paper_id:
            meta = first_chunk[0].metadata
            return paper_from_metadata(meta, str(meta.get("abstract") or first_chunk[0].text))
        chunks = sorted(self.store.chunks_of_paper(paper_id), key=lambda c: int(c.metadata.get("position", 0)))
        if not chunks:
            return None
        first = chunks[0].metadata
        return paper_from_metadata(first, str(first.get("abstract") or chunks[0].text))


def _stamp(layout: Layout) -> float:
    """When `rag index` last swapped in the local copies (0: none)."""
    try:
        return (layout.docs_dir / "ids.json").stat().st_mtime
    except OSError:
        return 0.0
