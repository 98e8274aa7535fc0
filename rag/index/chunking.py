"""Paper -> list[Chunk]: token windows (tiktoken cl100k_base) that follow sentence boundaries.

A whole abstract stays one chunk when it fits. Longer texts are packed sentence by sentence into
windows of at most `size` tokens, each starting with up to `overlap` tokens of the previous window's
last sentences; a single sentence longer than a window is cut by tokens.

A paper read with its full text (a PDF with --full-text) has body chunks after its abstract chunks: each
section is packed the same way, and each window records its section heading and the pages it spans. The
paper's own reference markers in body text ("[4][5]") are rewritten so they never read as our citations.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence

from rag.corpus.roles import encode_roles, role_of_label, sentence_roles, window_roles
from rag.index.reference_markers import neutral_markers
from rag.index.tokens import count_tokens, encoding
from rag.text import split_sentences
from rag.types import Chunk, Paper, Section

Piece = tuple[str, int, int | None]  # (text, tokens, page)


def embed_text(paper: Paper, chunk_text: str, section: str | None = None) -> str:
    """What the embedder sees for a chunk: the title (and a body chunk's section heading) give every window
    of a paper its topic."""
    if section:
        return f"{paper.title}\n{section}\n{chunk_text}"
    return f"{paper.title}\n{chunk_text}"


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _cut_by_tokens(sentence: str, size: int) -> list[str]:
    enc = encoding()
    ids = enc.encode_ordinary(sentence)
    return [enc.decode(ids[i : i + size]).strip() for i in range(0, len(ids), size)]


def _pieces(text: str, size: int, page: int | None) -> list[Piece]:
    pieces: list[Piece] = []
    for sentence in split_sentences(text):
        n = count_tokens(sentence)
        if n <= size:
            pieces.append((sentence, n, page))
        else:
            pieces.extend((part, count_tokens(part), page) for part in _cut_by_tokens(sentence, size))
    return pieces


def _pack(pieces: Sequence[Piece], size: int, overlap: int) -> list[tuple[str, int | None, int | None]]:
    """Windows of pieces: (text, first page, last page)."""
    windows: list[tuple[str, int | None, int | None]] = []
    current: list[Piece] = []
    used = 0

    def emit() -> None:
        windows.append((" ".join(p for p, _, _ in current), current[0][2], current[-1][2]))

    for piece in pieces:
        n = piece[1]
        if current and used + n + 1 > size:
            emit()
            carried: list[Piece] = []
            carried_tokens = 0
            for prev in reversed(current):
                m = prev[1]
                if carried_tokens + m > overlap or carried_tokens + m + n + 1 > size:
                    break
                carried.insert(0, prev)
                carried_tokens += m + 1
            current, used = carried, carried_tokens
        current.append(piece)
        used += n + 1
    if current:
        emit()
    return windows


def _windows(text: str, size: int, overlap: int) -> list[str]:
    if count_tokens(text) <= size:
        return [text]
    return [window for window, _, _ in _pack(_pieces(text, size, None), size, overlap)]


def _sections(body: Sequence[Section]) -> Iterator[tuple[str | None, list[Section]]]:
    """Consecutive pieces of the same section (a section that goes on over a page break) together."""
    group: list[Section] = []
    for part in body:
        if group and part.heading != group[0].heading:
            yield group[0].heading, group
            group = []
        group.append(part)
    if group:
        yield group[0].heading, group


def chunk_paper(paper: Paper, size: int = 320, overlap: int = 32) -> list[Chunk]:
    """Cut one paper's abstract (and its body, when it has one) into chunks with stable ids `<paper_id>:<n>`."""
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
    for heading, parts in _sections(paper.body):
        pieces = [piece for part in parts for piece in _pieces(neutral_markers(part.text), size, part.page)]
        for window, first, last in _pack(pieces, size, overlap):
            position = len(chunks)
            chunks.append(
                Chunk(
                    id=f"{paper.id}:{position}",
                    paper_id=paper.id,
                    position=position,
                    text=window,
                    num_tokens=count_tokens(window),
                    content_hash=content_hash(embed_text(paper, window, heading)),
                    page=first,
                    page_end=last,
                    section=heading,
                )
            )
    return chunks


def chunk_roles(paper: Paper, chunks: Sequence[Chunk]) -> tuple[str, list[str]]:
    """The whole abstract's sentence roles (rag.corpus.roles), compact ("bomrrc"), and each chunk's ("" when unknown),
    decided with the whole abstract in view: its labelled parts when it has them, else cues and each sentence's
    position in the abstract, not in the chunk. A body chunk takes the role its section heading names
    ("5 Conclusion"), if any."""
    sentences = split_sentences(paper.abstract)
    roles = sentence_roles(sentences, paper.abstract_sections)
    out = []
    for chunk in chunks:
        window = split_sentences(chunk.text)
        if chunk.section is None and chunk.page is None:
            out.append(encode_roles(window_roles(window, sentences, roles)))
        else:
            role = role_of_label(chunk.section) if chunk.section else None
            out.append(encode_roles([role] * len(window)) if role else "")
    return encode_roles(roles), out
