"""Embed chunks in length-sorted batches and write them to the store from a background thread.

Writes go to one background thread, at most one at a time, every WRITE_EVERY_S seconds or WRITE_CHUNKS
chunks, so Chroma's work overlaps the next embedding batches (onnxruntime releases the GIL) instead of
adding to them; one write per embedding batch cost ~15-28 ms each. The progress bar counts finished writes,
so what it shows survives a kill -9.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

from rag.index.chunking import embed_text
from rag.index.late_chunking import late_pass, own_pass, pooled_for
from rag.ports import Embedder, VectorStore, batch_order
from rag.types import Chunk, Paper

Progress = Callable[[int, int], None]  # (done, total) in papers to embed
Item = tuple[Paper, Chunk, dict[str, str | int]]
WRITE_CHUNKS = 1000  # at most this many chunks per store write (the store splits by Chroma's max batch size)
WRITE_EVERY_S = 1.0  # and at least this often: a killed run loses about a second of embedding at most


class EmbedWriter:
    """`embed` windows of chunks (sorted by length: less padding); `close` (also after Ctrl-C or a failed batch)
    waits for the write in flight and writes what is already embedded. A failed write raises in the caller's
    thread at the next `embed`, `barrier` or `close`."""

    def __init__(
        self, store: VectorStore, model: Embedder, batch_size: int, chunks: int, papers: int, progress: Progress | None
    ) -> None:
        self.store, self.model, self.batch_size = store, model, batch_size
        self.chunks, self.papers, self.progress = chunks, papers, progress
        self.pending: list[tuple[Item, Sequence[float]]] = []
        self.written = 0
        self.last_write = time.monotonic()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rag-store-write")
        self._inflight: Future[int] | None = None
        self._closed = False
        self.on_vector: Callable[[str, Sequence[float]], None] | None = None  # e.g. the docstore being built
        # the vectors of each chunk's sentences, for the answer step, and whether they are pooled (None: not wanted)
        self.on_sentences: Callable[..., None] | None = None
        # where sentence vectors come from (rag.index.late_chunking): "own", "chunk" (pooled from the chunk's own
        # pass) or "mixed" (pooled for body windows, their own pass for the abstract's)
        self.sentence_pass = "own"
        if progress:
            progress(0, papers)  # start the clock before the first batch

    def embed(self, window: list[Item]) -> None:
        # batches of similar length pad less: sort by the text the model sees (title + chunk), not the chunk alone
        seen = [(embed_text(paper, chunk.text, chunk.section), (paper, chunk, meta)) for paper, chunk, meta in window]
        pairs = [seen[i] for i in batch_order(self.model, [text for text, _ in seen])]
        own: list[Chunk] = []  # chunks whose sentences are encoded on their own, after the window
        for start in range(0, len(pairs), self.batch_size):
            texts, batch = zip(*pairs[start : start + self.batch_size], strict=True)
            pool = [pooled_for(chunk, self.sentence_pass) for _, chunk, _ in batch]
            if any(pool) and self.on_sentences is not None:
                vectors, pooled = late_pass(self.model, texts, [chunk for _, chunk, _ in batch], pool)
                for (_, chunk, _), sentence_rows, want in zip(batch, pooled, pool, strict=True):
                    if want:
                        self.on_sentences(chunk.id, sentence_rows, pooled=True)
            else:
                vectors = self.model.embed_batch(list(texts))
            own += [chunk for (_, chunk, _), want in zip(batch, pool, strict=True) if not want]
            self.pending.extend(zip(batch, vectors, strict=True))
            if self.on_vector is not None:
                for (_, chunk, _), vector in zip(batch, vectors, strict=True):
                    self.on_vector(chunk.id, vector)
            idle = self._inflight is None or self._inflight.done()
            if len(self.pending) >= WRITE_CHUNKS or (idle and time.monotonic() - self.last_write >= WRITE_EVERY_S):
                self._submit()
        if self.on_sentences is not None and own:
            kept = {chunk.id for chunk in own}  # in the window's order, as before the mixed pass
            own = [chunk for _, chunk, _ in window if chunk.id in kept]
            for cid, rows in own_pass(self.model, own, self.batch_size).items():
                self.on_sentences(cid, rows, pooled=False)

    def _upsert(self, batch: list[tuple[Item, Sequence[float]]]) -> int:
        self.store.upsert(
            [c.id for (_, c, _), _ in batch], [v for _, v in batch], [c.text for (_, c, _), _ in batch],
            [m for (_, _, m), _ in batch],
        )  # fmt: skip
        return len(batch)

    def barrier(self) -> None:
        """Wait for the write in flight (its error, if any, raises here) and show it on the bar."""
        if self._inflight is None:
            return
        done, self._inflight = self._inflight, None
        self.written += done.result()
        if self.progress:
            self.progress(round(self.written * self.papers / max(1, self.chunks)), self.papers)

    def _submit(self) -> None:
        self.barrier()
        batch, self.pending = self.pending, []  # a failed write is not retried by close()
        if batch:
            self._inflight = self._pool.submit(self._upsert, batch)
            self.last_write = time.monotonic()

    def close(self) -> None:
        if self._closed:  # a second close (after the first one raised) must not hide the first error
            return
        self._closed = True
        try:
            self._submit()
            self.barrier()
        finally:
            self._pool.shutdown(wait=True)
