"""BM25 over the same chunks as the vector store (weights by bm25s), persisted next to the index.

Built from the chunk texts plus title, authors and venue, so names and exact terms are found even when
the embedding misses them. Saved atomically (temp dir + rename) and memory-mapped on load, so a cold
start does not rebuild it.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rag.index.atomic import swap_dir
from rag.index.bm25_terms import TERMS_VERSION, terms, whole_terms
from rag.index.integrity import write_manifest
from rag.index.terms import TermTable, write_terms

_NAMED = re.compile(r"\b(?=[^\W_]*\d)(?=[^\W_]*[^\W\d_])[^\W_]+\b|\b[^\W_]+[A-Z][^\W_]*\b")  # Zorp123, SQGEF
# BM25's saturation and length normalisation: Anserini's defaults, better than bm25s's (1.5, 0.75) on the dev sets
# (SciFact train claims nDCG@10 0.707 vs 0.702, PubMedQA dev 0.995 vs 0.993)
K1, B = 0.9, 0.4
# what an index records it was built with; one built otherwise is rebuilt (rag.index.local_copies.current_terms)
RECIPE = f"{TERMS_VERSION} k1={K1} b={B}"

# bm25s's file names and parameters: an index written by bm25s.BM25.save and one written here are the same files.
_ARRAYS = ("data", "indices", "indptr")
_VOCAB, _PARAMS = "vocab.index.json", "params.index.json"


def _array_file(name: str) -> str:
    return f"{name}.csc.index.npy"


class LexicalBuilder:
    """Collects chunks one at a time. Tokens become int32 ids as each text is tokenized (one array per chunk,
    one shared vocabulary), so a large corpus never holds tens of millions of token strings at once (100k
    abstracts: BM25 peak RSS 1.8 -> 0.9 GB, same scores)."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self._vocab: dict[str, int] = {}
        self._docs: list[np.ndarray] = []

    def add(self, chunk_id: str, text: str) -> None:
        tokens = terms(text) or ["\u2205"]  # an empty doc still needs a token
        vocab = self._vocab
        self._docs.append(np.fromiter((vocab.setdefault(t, len(vocab)) for t in tokens), np.int32, len(tokens)))
        self.ids.append(chunk_id)

    def finish(self, fingerprint: str) -> LexicalIndex:
        """bm25s computes the BM25 weights; only building imports it (with tqdm, ~0.15 s), a search reads the
        saved arrays with numpy alone."""
        if not self._docs:
            return LexicalIndex.empty(fingerprint)
        import bm25s

        model = bm25s.BM25(k1=K1, b=B)
        self._vocab.setdefault("", len(self._vocab))  # the empty-query token bm25s adds when built from strings
        model.index((self._docs, self._vocab), show_progress=False)
        self._docs = []
        scores = model.scores
        params = {name: getattr(model, name) for name in ("k1", "b", "delta", "method", "idf_method", "dtype",
                                                          "int_dtype", "backend")}  # fmt: skip
        params |= {"num_docs": int(scores["num_docs"]), "version": bm25s.__version__}
        arrays = np.asarray(scores["data"]), np.asarray(scores["indices"]), np.asarray(scores["indptr"])
        return LexicalIndex(self.ids, fingerprint, dict(model.vocab_dict), arrays, params)


class LexicalIndex:
    """BM25 weights as a sparse token-by-chunk matrix (CSC: for each token id, the chunks that hold it and their
    weights), memory-mapped when loaded; a query's score for a chunk is the sum of its tokens' weights."""

    def __init__(self, ids: list[str], fingerprint: str, vocab: dict[str, int] | TermTable,
                 arrays: tuple[np.ndarray, np.ndarray, np.ndarray], params: dict[str, Any],
                 recipe: str = RECIPE) -> None:  # fmt: skip
        self.ids = ids
        self.fingerprint = fingerprint
        self._vocab = vocab
        self._data, self._indices, self._indptr = (np.asarray(a) for a in arrays)  # memmaps as plain views
        self._params = params
        self._terms = recipe
        self._rows: dict[str, int] | None = None  # chunk id -> position in `ids`, made when first needed

    @property
    def recipe(self) -> str:
        """How this index was built: its word recipe (rag.index.bm25_terms) and BM25 parameters, as recorded in
        ids.json (bm25s reads every key of its params file); "terms-1" for one written before it was recorded."""
        return self._terms if self.ids else RECIPE

    @classmethod
    def empty(cls, fingerprint: str) -> LexicalIndex:
        none = np.zeros(0, np.float32), np.zeros(0, np.int32), np.zeros(1, np.int32)
        return cls([], fingerprint, {}, none, {})

    @classmethod
    def build(cls, ids: Sequence[str], texts: Iterable[str], fingerprint: str) -> LexicalIndex:
        builder = LexicalBuilder()
        for cid, text in zip(ids, texts, strict=True):
            builder.add(cid, text)
        return builder.finish(fingerprint)

    def save(self, directory: Path) -> None:
        """Write to a sibling temp dir, then swap it in, so readers never see half a file set. The vocabulary is
        written twice: as bm25s's JSON (so bm25s can still open the directory) and as the term table searches
        read (rag.index.terms). Only a freshly built index is saved."""
        if not isinstance(self._vocab, dict):
            raise TypeError("only a built LexicalIndex can be saved")
        tmp = directory.with_name(directory.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        if self.ids:
            for name, array in zip(_ARRAYS, (self._data, self._indices, self._indptr), strict=True):
                np.save(tmp / _array_file(name), array, allow_pickle=False)
            (tmp / _VOCAB).write_text(json.dumps(self._vocab, ensure_ascii=False), encoding="utf-8")
            write_terms(tmp, self._vocab)
            (tmp / _PARAMS).write_text(json.dumps(self._params, indent=4))
        meta = {"fingerprint": self.fingerprint, "ids": self.ids, "recipe": self._terms}
        (tmp / "ids.json").write_text(json.dumps(meta))
        write_manifest(tmp, self.fingerprint)  # checked when it is opened (rag.index.integrity)
        swap_dir(tmp, directory)

    @classmethod
    def load(cls, directory: Path) -> LexicalIndex | None:
        """The saved index, or None when there is none (or it is unreadable: the caller rebuilds)."""
        try:
            meta = json.loads((directory / "ids.json").read_text())
            if not meta["ids"]:
                return cls.empty(meta["fingerprint"])
            vocab: dict[str, int] | TermTable | None = TermTable.load(directory)
            if vocab is None:  # written before the term table existed
                vocab = json.loads((directory / _VOCAB).read_text(encoding="utf-8"))
            params = json.loads((directory / _PARAMS).read_text())
            data, indices, indptr = (np.load(directory / _array_file(n), mmap_mode="r") for n in _ARRAYS)
        except (OSError, ValueError, KeyError):
            return None
        if not isinstance(vocab, dict | TermTable) or params.get("num_docs") != len(meta["ids"]):
            return None
        if len(indptr) != len(vocab) + 1 or not len(data) == len(indices) == indptr[-1]:
            return None
        recipe = str(meta.get("recipe", "terms-1"))
        return cls(meta["ids"], meta["fingerprint"], vocab, (data, indices, indptr), params, recipe)

    def _token_ids(self, tokens: Iterable[str]) -> list[int]:
        found = (self._vocab.get(t) for t in tokens)
        return [token for token in found if token is not None]

    def _chunks_of(self, token: int) -> tuple[np.ndarray, np.ndarray]:
        start, end = int(self._indptr[token]), int(self._indptr[token + 1])
        return self._indices[start:end], self._data[start:end]

    def exact_match(self, query: str, scores: np.ndarray | None = None) -> str | None:
        """BM25's first chunk for the query when the query names it: a name or identifier in the query ("Zorp123",
        "SQGEF", "PaperBench": letters with digits, or capitals after the first letter) occurs in that chunk's
        paper and in no other paper, whatever the other words match. Plain words are never taken as names: in a
        small corpus many of them occur in one paper only. `scores`: the query's `scores`, when already computed."""
        names = [t for word in _NAMED.findall(query) for t in whole_terms(word)]
        top = self.top(self.scores(query) if scores is None else scores, 1) if names else []
        if not top:
            return None
        best = top[0][0]
        paper = best.rsplit(":", 1)[0]
        for token in self._token_ids(names):
            chunks, _ = self._chunks_of(token)
            if len(chunks) > 1000:  # a word in that many chunks names no single paper
                continue
            docs = {self.ids[int(d)] for d in chunks}
            if best in docs and all(cid.rsplit(":", 1)[0] == paper for cid in docs):
                return best
        return None

    def postings(self, word: str) -> list[str]:
        """The chunk ids whose indexed text (abstract, title, authors, venue) holds every term of `word`."""
        held: set[int] | None = None
        for token in self._token_ids(terms(word)):
            chunks = {int(d) for d in self._chunks_of(token)[0]}
            held = chunks if held is None else held & chunks
        return [self.ids[d] for d in sorted(held or ())]

    def scores(self, query: str) -> np.ndarray | None:
        """The query's BM25 score for every chunk, in `ids` order (None when no query word is indexed).

        Scored straight from the sparse matrix, as bm25s's `get_scores_from_ids` does (a repeated query word counts
        each time); its `retrieve` starts a thread pool per call, which cost ~3 ms a query and dwarfed the scoring."""
        token_ids = self._token_ids(terms(query))
        if not self.ids or not token_ids:
            return None
        scores = np.zeros(len(self.ids), np.float32)
        for token in token_ids:
            chunks, weights = self._chunks_of(token)
            scores[chunks] += weights  # a token's chunks are distinct, so no np.add.at is needed
        return scores

    def score_of(self, scores: np.ndarray | None, chunk_id: str) -> float:
        """One chunk's entry of a `scores` vector (0 for a chunk BM25 does not hold)."""
        if scores is None:
            return 0.0
        if self._rows is None:
            self._rows = {cid: n for n, cid in enumerate(self.ids)}
        row = self._rows.get(chunk_id)
        return 0.0 if row is None else float(scores[row])

    def top(self, scores: np.ndarray | None, n: int) -> list[tuple[str, float]]:
        """The n best chunk ids of a `scores` vector with their scores (> 0), best first, ties by position."""
        if scores is None:
            return []
        hits = np.flatnonzero(scores > 0)
        if len(hits) > n:  # keep everything tied with the n-th best, then cut after the stable sort
            nth = -np.partition(-scores[hits], n - 1)[n - 1]
            hits = hits[scores[hits] >= nth]
        order = hits[np.lexsort((hits, -scores[hits]))][:n]
        return [(self.ids[int(doc)], float(scores[doc])) for doc in order]

    def search(self, query: str, n: int) -> list[tuple[str, float]]:
        """Top chunk ids with BM25 scores (> 0), best first (ties by position, so results are stable)."""
        return self.top(self.scores(query), n)
