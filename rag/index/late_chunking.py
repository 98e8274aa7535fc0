"""Sentence vectors for the docstore, two ways (`IndexSettings.sentence_pass`):

- "own": every sentence is encoded on its own, a second encoder pass over the chunk's text (the reference);
- "chunk": "late chunking": the chunk is encoded once (title + text, as for its own vector) and each sentence's
  vector is the mean of that pass's token embeddings over the sentence's characters. No second pass; the
  vectors carry the chunk's context, so they sit away from standalone encodings, and are stored mapped back
  toward them by a linear map fitted on the library (rag.index.sentence_map);
- "mixed": the abstract's windows take the "own" pass, the full text's body windows the "chunk" pass: an
  abstract's few sentences keep their standalone vectors (seconds), the body costs no second pass;
- "auto" (the default): "chunk" for a library of AUTO_CHUNK_PAPERS papers or more; below, "mixed" when the library
  is read with its full text, else "own" (BENCHMARKS.md sections 9a and 11d have the dev figures behind them).

Only an embedder that can pool token spans (`pools_spans` true and an `embed_spans` method: the local MiniLM, also
behind the factory's lazy loader) can do "chunk" or "mixed"; others fall back to "own". A sentence the model's
window cut off (a chunk longer than its token limit) is encoded on its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, cast

from rag.ports import Embedder, batch_order, embed_in_batches
from rag.text import split_sentences
from rag.types import Chunk

SENTENCE_PASSES = ("auto", "chunk", "mixed", "own")
POOLING_PASSES = ("chunk", "mixed")  # effective passes that store pooled (then mapped) sentence vectors
# "auto": libraries of at least this many papers take the chunk's pass. The sentence map (rag.index.sentence_map) is
# fitted on 2 sentences from each of up to 150 papers: a smaller library gives it fewer pairs than it was tuned on,
# and its second pass costs seconds (150 PubMedQA abstracts: ~35 CPU s more than one pass)
AUTO_CHUNK_PAPERS = 150
# (chunk, the text the embedder sees for it) -> its sentence vectors, by chunk id
SentenceFn = Callable[[Sequence[tuple[Chunk, str]]], dict[str, list[list[float]]]]


class SpanEmbedder(Protocol):
    def embed_spans(
        self, texts: Sequence[str], spans: Sequence[Sequence[tuple[int, int]]]
    ) -> tuple[list[list[float]], list[list[list[float] | None]]]: ...


def sentence_spans(embedded: str, chunk_text: str) -> list[tuple[int, int]]:
    """Character spans in `embedded` (which ends with `chunk_text`) of the chunk's sentences, in split_sentences
    order; each runs to the next one's start (so the whitespace between them belongs to the earlier one)."""
    base = len(embedded) - len(chunk_text)
    starts: list[int] = []
    cursor = 0
    for sentence in split_sentences(chunk_text):
        head = sentence.split(None, 1)[0] if sentence.split() else sentence
        found = chunk_text.find(head, cursor)
        found = cursor if found < 0 else found
        starts.append(found)
        cursor = found + len(head)
    ends = [*starts[1:], len(chunk_text)]
    return [(base + a, base + max(a + 1, b)) for a, b in zip(starts, ends, strict=True)]


def late_pass(model: Embedder, texts: Sequence[str], chunks: Sequence[Chunk], pool: Sequence[bool] | None = None
              ) -> tuple[list[list[float]], list[list[list[float]]]]:  # fmt: skip
    """One encoder pass over `texts` (the chunks as embedded): each chunk's vector and its sentence vectors
    pooled from the same pass; sentences outside the model's window are encoded on their own. `pool`: which
    chunks want pooled sentence vectors (default all; the others get none)."""
    wanted = [True] * len(chunks) if pool is None else pool
    spans = [sentence_spans(text, chunk.text) if want else []
             for text, chunk, want in zip(texts, chunks, wanted, strict=True)]  # fmt: skip
    vectors, pooled = cast(SpanEmbedder, model).embed_spans(texts, spans)
    missing = [(i, j) for i, rows in enumerate(pooled) for j, row in enumerate(rows) if row is None]
    if missing:
        own = [split_sentences(chunks[i].text)[j] for i, j in missing]
        for (i, j), vector in zip(missing, model.embed_batch(own), strict=True):
            pooled[i][j] = vector
    return vectors, [[row for row in rows if row is not None] for rows in pooled]


def effective_pass(model: Embedder, sentence_pass: str, papers: int | None = None, full_text: bool = False) -> str:
    """The pass the stored sentence vectors really come from (recorded with the docstore), for `sentence_pass`
    (the setting, or an effective one) and a library of `papers` (None: large) read with its full text or not."""
    if sentence_pass == "auto":
        large = papers is None or papers >= AUTO_CHUNK_PAPERS
        sentence_pass = "chunk" if large else "mixed" if full_text else "own"
    return sentence_pass if getattr(model, "pools_spans", False) is True else "own"


def is_abstract(chunk: Chunk) -> bool:
    """A window of the paper's abstract (a body window has the page it starts on)."""
    return chunk.page is None and chunk.section is None


def pooled_for(chunk: Chunk, effective: str) -> bool:
    """Whether `effective` (an effective pass) pools this chunk's sentence vectors from the chunk's pass."""
    return effective == "chunk" or (effective == "mixed" and not is_abstract(chunk))


def own_pass(model: Embedder, chunks: Sequence[Chunk], batch_size: int) -> dict[str, list[list[float]]]:
    """Every sentence of the chunks (split_sentences order), embedded on its own in length-sorted batches."""
    owners = [(chunk.id, s) for chunk in chunks for s in split_sentences(chunk.text)]
    vectors = embed_in_batches(model, [s for _, s in owners], batch_size)
    by_chunk: dict[str, list[list[float]]] = {chunk.id: [] for chunk in chunks}
    for (cid, _), vector in zip(owners, vectors, strict=True):
        by_chunk[cid].append(vector)
    return by_chunk


def sentence_function(model: Embedder, effective: str, batch_size: int) -> SentenceFn:
    """Sentence vectors for chunks whose own vector is not being computed now (unchanged chunks of an index
    whose docstore lacks them, or holds them from another pass), by `effective` pass (see `pooled_for`)."""

    def sentences(pairs: Sequence[tuple[Chunk, str]]) -> dict[str, list[list[float]]]:
        pooled = [pair for pair in pairs if pooled_for(pair[0], effective)]
        own = [chunk for chunk, _ in pairs if not pooled_for(chunk, effective)]
        return {**(own_pass(model, own, batch_size) if own else {}), **(chunk_pass(pooled) if pooled else {})}

    def chunk_pass(pairs: Sequence[tuple[Chunk, str]]) -> dict[str, list[list[float]]]:
        ordered = [pairs[i] for i in batch_order(model, [text for _, text in pairs])]
        out: dict[str, list[list[float]]] = {}
        for start in range(0, len(ordered), max(1, batch_size)):
            batch = ordered[start : start + batch_size]
            _, rows = late_pass(model, [text for _, text in batch], [chunk for chunk, _ in batch])
            out.update({chunk.id: r for (chunk, _), r in zip(batch, rows, strict=True)})
        return out

    return sentences
