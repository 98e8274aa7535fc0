"""load -> chunk -> skip unchanged (content hash) -> embed -> store -> BM25. Returns an IndexReport.

The index mirrors the given sources: new and changed chunks are embedded, unchanged ones are skipped,
chunks of papers that are gone are removed. Work is written batch by batch, so a killed run keeps what
it finished and the previous chunks stay queryable; re-running completes the job. `--rebuild` builds a
fresh collection beside the old one and swaps it in only when complete.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rag.chunking import chunk_paper, embed_text
from rag.corpus import read_papers
from rag.embedding import Embedder, embedder_name, make_embedder
from rag.errors import IndexMissingError
from rag.lexical import LexicalIndex
from rag.records import chunk_metadata, lexical_text
from rag.settings import BUNDLED_CORPUS, Settings
from rag.store import VectorStore
from rag.types import Chunk, Paper

Progress = Callable[[int, int], None]  # (done, total) in papers to embed
WRITE_CHUNKS = 1000  # at most this many chunks per store write (the store splits by Chroma's max batch size)
WRITE_EVERY_S = 1.0  # and at least this often: a killed run loses about a second of embedding at most


@dataclass(frozen=True)
class IndexReport:
    papers: int
    chunks: int
    embedded: int
    skipped: int  # unchanged, not re-embedded
    removed: int
    seconds: float
    metadata_updated: int = 0

    def line(self) -> str:
        return (
            f"indexed {self.papers} papers: {self.chunks} chunks, {self.embedded} embedded, "
            f"{self.skipped} unchanged, {self.removed} removed ({self.seconds:.1f}s)"
        )


def lexical_dir(settings: Settings) -> Path:
    return settings.index_dir / f"bm25-{settings.collection}"


def dirty_marker(settings: Settings) -> Path:
    return settings.index_dir / f"{settings.collection}.updating"


def _fingerprint(items: Sequence[tuple[str, str]]) -> str:
    h = hashlib.sha256()
    for cid, mh in sorted(items):
        h.update(f"{cid}\0{mh}\n".encode())
    return h.hexdigest()[:32]


def build_index(
    settings: Settings,
    sources: Sequence[str | Path] | None = None,
    *,
    rebuild: bool = False,
    on_error: str = "stop",
    embedder: Embedder | None = None,
    progress: Progress | None = None,
    warn: Callable[[str], None] | None = None,
) -> IndexReport:
    """Build or update the index so it holds exactly the papers in `sources` (default: the bundled corpus)."""
    started = time.perf_counter()
    papers = read_papers(list(sources) if sources else [BUNDLED_CORPUS], on_error=on_error, warn=warn)
    planned: list[tuple[Paper, Chunk, dict[str, str | int]]] = []
    for paper in papers:
        chunks = chunk_paper(paper, settings.chunk_tokens, settings.chunk_overlap)
        for chunk in chunks:
            planned.append((paper, chunk, chunk_metadata(paper, chunk, whole_abstract=len(chunks) > 1)))

    settings.index_dir.mkdir(parents=True, exist_ok=True)
    live = VectorStore(settings)
    target = VectorStore(settings, name=f"{settings.collection}-rebuild") if rebuild else live
    if rebuild:
        target.drop()  # leftovers of an interrupted rebuild
    existing: dict[str, tuple[str, str]] = {}
    if target.exists():
        built_with = target.open().info.get("embedder")
        wanted = embedder.name if embedder else embedder_name(settings)
        if built_with and built_with != wanted:
            raise IndexMissingError(
                f"the index was built with embedder '{built_with}', not '{wanted}'; run `rag index --rebuild`"
            )
        existing = {cid: (str(m.get("hash")), str(m.get("meta_hash"))) for cid, m in target.iter_metadata()}

    to_embed = [p for p in planned if existing.get(p[1].id, ("", ""))[0] != p[1].content_hash]
    embed_ids = {c.id for _, c, _ in to_embed}
    meta_only = [
        p
        for p in planned
        if p[1].id in existing and p[1].id not in embed_ids and existing[p[1].id][1] != p[2]["meta_hash"]
    ]
    wanted_ids = {c.id for _, c, _ in planned}
    removed = [cid for cid in existing if cid not in wanted_ids]

    marker = dirty_marker(settings)
    marker.write_text("an index update started and has not finished; run `rag index` again\n")
    if to_embed or not target.exists():
        model = embedder or make_embedder(settings)
        if not target.exists():
            target.create(model.name, model.dim, {"chunk_tokens": settings.chunk_tokens})
        _embed_and_store(target, model, to_embed, settings.embed_batch_size, progress)
    if meta_only:
        target.update_metadata([c.id for _, c, _ in meta_only], [m for _, _, m in meta_only])
    if removed:
        target.delete(removed)

    fingerprint = _fingerprint([(c.id, str(m["meta_hash"])) for _, c, m in planned])
    lex_dir = lexical_dir(settings)
    current = None if rebuild else LexicalIndex.load(lex_dir)
    if current is None or current.fingerprint != fingerprint:
        lexical = LexicalIndex.build(
            [c.id for _, c, _ in planned], [lexical_text(m, c.text) for _, c, m in planned], fingerprint
        )
    if current is None or current.fingerprint != fingerprint:
        lexical.save(lex_dir)
    # readers in other processes (UI workers in front of a Chroma server) compare this with their BM25 copy
    target.update_info(lexical_fingerprint=fingerprint)
    if rebuild:
        live.drop()
        target.rename(settings.collection)
    marker.unlink(missing_ok=True)
    return IndexReport(
        papers=len(papers),
        chunks=len(planned),
        embedded=len(to_embed),
        skipped=len(planned) - len(to_embed),
        removed=len(removed),
        seconds=time.perf_counter() - started,
        metadata_updated=len(meta_only),
    )


def _embed_and_store(
    store: VectorStore,
    model: Embedder,
    items: list[tuple[Paper, Chunk, dict[str, str | int]]],
    batch_size: int,
    progress: Progress | None,
) -> None:
    """Embed in length-sorted batches (less padding) and write what is embedded every WRITE_EVERY_S seconds or
    WRITE_CHUNKS chunks, whichever comes first. One store write per embedding batch cost 28 ms each (Chroma
    commits per call): most of a fast build's time. The progress bar counts written chunks, so what it shows
    survives a kill -9; an exception (Ctrl-C, a bad batch) first writes what is already embedded."""
    items = sorted(items, key=lambda p: len(p[1].text))
    papers = len({p.id for p, _, _ in items})  # progress is shown in papers; chunks are spread evenly over them
    if progress:
        progress(0, papers)  # start the clock before the first batch
    pending: list[tuple[tuple[Paper, Chunk, dict[str, str | int]], Sequence[float]]] = []
    written = 0
    last_write = float("-inf")  # the first batch is written at once, so the bar moves straight away

    def write() -> None:
        nonlocal written, last_write
        batch, pending[:] = list(pending), []
        store.upsert(
            [c.id for (_, c, _), _ in batch], [v for _, v in batch], [c.text for (_, c, _), _ in batch],
            [m for (_, _, m), _ in batch],
        )  # fmt: skip
        written += len(batch)
        last_write = time.monotonic()
        if progress:
            progress(round(written * papers / len(items)), papers)

    try:
        for start in range(0, len(items), batch_size):
            batch = items[start : start + batch_size]
            vectors = model.embed_batch([embed_text(p, c.text) for p, c, _ in batch])
            pending.extend(zip(batch, vectors, strict=True))
            if len(pending) >= WRITE_CHUNKS or time.monotonic() - last_write >= WRITE_EVERY_S:
                write()
    except BaseException:
        if pending:
            write()  # keep the finished embeddings; a failed write left `pending` empty and re-raises here
        raise
    if pending:
        write()
