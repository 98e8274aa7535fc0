"""The sources an answer reads: each retrieved window of an abstract widened to the whole abstract.

Search ranks token windows (an abstract longer than a window is cut in two or three); the answer needs the whole
abstract: its conclusion is most often in the last window, and the search keeps one window per paper. The first
window of a multi-window abstract carries the whole abstract and its sentence roles in its metadata
(rag.index.records.chunk_metadata), so widening costs no store call for this machine's own index. Full-text body
chunks (with a page) stay as they are. Also gathers the sentence vectors stored for every window read, so the
answer embeds none of them again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from rag.corpus.roles import decode_roles
from rag.index.records import stored_text
from rag.retrieve.retriever import Retriever
from rag.text import split_sentences
from rag.types import Hit

MAX_WINDOWS = 8  # windows of one abstract read for their stored sentence vectors


def _paper_and_position(chunk_id: str) -> tuple[str, int]:
    paper, _, position = chunk_id.rpartition(":")
    return paper, int(position) if position.isdigit() else 0


def _stored_vectors(retriever: Retriever, chunk_id: str, text: str) -> list[tuple[str, np.ndarray]]:
    stored = retriever.sentence_vectors(chunk_id)
    sentences = split_sentences(text) if stored is not None else []
    return list(zip(sentences, stored, strict=True)) if stored is not None and len(sentences) == len(stored) else []


def whole_abstract(hit: Hit, retriever: Retriever) -> tuple[Hit, list[tuple[str, np.ndarray]]]:
    """The hit widened to its paper's whole abstract (unchanged when it is one already, or a body chunk), and the
    stored sentence vectors of the windows read."""
    vectors = _stored_vectors(retriever, hit.chunk_id, hit.text)
    if hit.page is not None:
        return hit, vectors
    paper_id, position = _paper_and_position(hit.chunk_id)
    first = None if position == 0 else retriever.stored(f"{paper_id}:0")
    meta = first.metadata if first is not None else {}
    abstract = hit.paper.abstract if position == 0 else stored_text(str(meta.get("abstract") or ""))
    if not abstract or abstract == hit.text or meta.get("paper_id", paper_id) != paper_id:
        return hit, vectors
    for n in range(MAX_WINDOWS):
        if n == position:
            continue
        window = first if n == 0 and first is not None else retriever.stored(f"{paper_id}:{n}")
        if window is None or window.metadata.get("page") is not None:
            break
        vectors += _stored_vectors(retriever, window.id, stored_text(window.text))
    codes = meta.get("abstract_roles") if position else None
    if position == 0:
        own = retriever.stored(hit.chunk_id)
        codes = own.metadata.get("abstract_roles") if own is not None else None
    roles = decode_roles(codes, len(split_sentences(abstract)))
    return replace(hit, text=abstract, roles=roles, paper=replace(hit.paper, abstract=abstract)), vectors


def whole_abstracts(hits: Sequence[Hit], retriever: Retriever) -> tuple[tuple[Hit, ...], list[tuple[str, np.ndarray]]]:
    """Every hit widened (whole_abstract), and all the stored sentence vectors read."""
    out, vectors = [], []
    for hit in hits:
        widened, known = whole_abstract(hit, retriever)
        out.append(widened)
        vectors += known
    return tuple(out), vectors
