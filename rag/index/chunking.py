"""Paper -> list[Chunk]: token windows (tiktoken cl100k_base) that follow sentence boundaries.

A whole abstract stays one chunk when it fits. Longer texts are packed sentence by sentence into
windows of at most `size` tokens, each starting with up to `overlap` tokens of the previous window's
last sentences; a single sentence longer than a window is cut by tokens.
"""

from __future__ import annotations

import hashlib

from rag.index.tokens import count_tokens, encoding
from rag.text import split_sentences
from rag.types import Chunk, Paper


def embed_text(paper: Paper, chunk_text: str) -> str:
    """What the embedder sees for a chunk: the title gives every window of a paper its topic."""
    return f"{paper.title}\n{chunk_text}"


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _cut_by_tokens(sentence: str, size: int) -> list[str]:
    enc = encoding()
    ids = enc.encode_ordinary(sentence)
    return [enc.decode(ids[i : i + size]).strip() for i in range(0, len(ids), size)]


def _windows(text: str, size: int, overlap: int) -> list[str]:
    if count_tokens(text) <= size:
        return [text]
    pieces: list[tuple[str, int]] = []
    for sentence in split_sentences(text):
        n = count_tokens(sentence)
        if n <= size:
            pieces.append((sentence, n))
        else:
            pieces.extend((part, count_tokens(part)) for part in _cut_by_tokens(sentence, size))
    windows: list[str] = []
    current: list[tuple[str, int]] = []
    used = 0
    for piece, n in pieces:
        if current and used + n + 1 > size:
            windows.append(" ".join(p for p, _ in current))
            carried: list[tuple[str, int]] = []
            carried_tokens = 0
            for prev, m in reversed(current):
                if carried_tokens + m > overlap or carried_tokens + m + n + 1 > size:
                    break
                carried.insert(0, (prev, m))
                carried_tokens += m + 1
            current, used = carried, carried_tokens
        current.append((piece, n))
        used += n + 1
    if current:
        windows.append(" ".join(p for p, _ in current))
    return windows


def chunk_paper(paper: Paper, size: int = 320, overlap: int = 32) -> list[Chunk]:
    """Cut one paper's abstract into chunks with stable ids `<paper_id>:<n>`."""
    chunks = []
    for position, window in enumerate(_windows(paper.abstract, size, overlap)):
        chunks.append(
            Chunk(
                id=f"{paper.id}:{position}",
                paper_id=paper.id,
                position=position,
                text=window,
                num_tokens=count_tokens(window),
                content_hash=content_hash(embed_text(paper, window)),
            )
        )
    return chunks
