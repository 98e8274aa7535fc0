"""BM25 and the docstore of a collection, fed chunk by chunk while `rag index` streams the corpus.

Vectors of chunks embedded now come from the writer; the others from the previous docstore (same content hash)
or else from the store, by page. Sentence vectors the previous docstore lacks are embedded here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rag.errors import IndexMissingError
from rag.index.docstore import DocStore, DocStoreBuilder, SentenceMap
from rag.index.late_chunking import SentenceFn, pooled_for
from rag.index.lexical import LexicalBuilder
from rag.index.records import lexical_text
from rag.index.writer import WRITE_CHUNKS
from rag.ports import VectorStore
from rag.types import Chunk


class LocalBuilder:
    """BM25 and the docstore, fed chunk by chunk in the second pass. Vectors of chunks embedded now come from
    the writer; the others from the previous docstore (same content hash) or else from the store, by page."""

    def __init__(
        self,
        lexical: LexicalBuilder,
        docs: DocStoreBuilder,
        old: DocStore | None,
        store: VectorStore,
        embed_sentences: SentenceFn | None = None,
        reuse_sentences: bool = True,
        sentence_pass: str = "own",
    ):
        """`reuse_sentences`: the old docstore's sentence vectors come from the wanted pass (else re-derived);
        `sentence_pass`: the effective pass of `embed_sentences`, which chunks it pools from the chunk's pass
        (those are mapped when the docstore is finished; rag.index.late_chunking.pooled_for)."""
        self.lexical, self.docs, self.old, self.store = lexical, docs, old, store
        self.fetch: list[str] = []
        self.embed_sentences = embed_sentences
        self.reuse_sentences = reuse_sentences
        self.sentence_pass = sentence_pass
        # unchanged chunks (with the text the embedder sees) whose sentence vectors the old docstore lacks
        self.sentences_todo: list[tuple[Chunk, str]] = []

    def add(self, chunk: Chunk, meta: dict[str, str | int], embedding: bool, embedded_as: str = "") -> None:
        self.lexical.add(chunk.id, lexical_text(meta, chunk.text))
        self.docs.add(chunk.id, chunk.text, meta)
        if embedding:
            return
        previous = self.old.get(chunk.id) if self.old is not None else None
        same_text = previous is not None and previous.metadata.get("hash") == chunk.content_hash
        if self.embed_sentences is not None:
            reuse = self.old is not None and same_text and self.reuse_sentences
            old_sentences = self.old.sentence_vectors(chunk.id) if self.old is not None and reuse else None
            if old_sentences is not None:
                self.docs.set_sentence_vectors(chunk.id, old_sentences)
            else:
                self.sentences_todo.append((chunk, embedded_as or chunk.text))
                if len(self.sentences_todo) >= WRITE_CHUNKS:
                    self._embed_sentences()
        if previous is not None and same_text and previous.embedding is not None:
            self.docs.set_vector(chunk.id, previous.embedding)  # same text, same vector: no store round trip
            return
        self.fetch.append(chunk.id)
        if len(self.fetch) >= WRITE_CHUNKS:
            self._fetch()

    def _fetch(self) -> None:
        for stored in self.store.get(self.fetch, with_embeddings=True):
            if stored.embedding is not None:
                self.docs.set_vector(stored.id, stored.embedding)
        self.fetch = []

    def _embed_sentences(self) -> None:
        if self.embed_sentences is not None and self.sentences_todo:
            found = self.embed_sentences(self.sentences_todo)
            for chunk, _ in self.sentences_todo:
                pooled = pooled_for(chunk, self.sentence_pass)
                self.docs.set_sentence_vectors(chunk.id, found[chunk.id], pooled=pooled)
        self.sentences_todo = []

    def finish(
        self, fingerprint: str, lex_dir: Path, info: dict[str, Any] | None = None, sentence_map: SentenceMap = None
    ) -> None:
        """`sentence_map`: the map for pooled sentence vectors, or a function fitting it (DocStoreBuilder.finish)."""
        self._fetch()
        self._embed_sentences()
        missing = self.docs.missing_vectors()
        if missing:
            raise IndexMissingError(
                f"the vector store lacks {len(missing)} chunks it should hold (e.g. {missing[0]}); "
                "run `rag index --rebuild`"
            )
        self.lexical.finish(fingerprint).save(lex_dir)
        self.docs.finish(fingerprint, info, sentence_map)
