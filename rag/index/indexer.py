"""read -> chunk -> skip unchanged (content hash) -> embed -> store -> BM25, streamed. Returns an IndexReport.

The index mirrors the given sources: new and changed chunks are embedded, unchanged ones are skipped,
chunks of papers that are gone are removed. Work is written batch by batch, so a killed run keeps what
it finished and the previous chunks stay queryable; re-running completes the job. `--rebuild` builds a
fresh collection beside the old one and swaps it in only when complete.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rag.corpus import CorpusStats, Selection, iter_papers
from rag.corpus.sources import Progress as ReadProgress
from rag.errors import CorpusError, IndexMissingError
from rag.index.calibration import Embed, to_json
from rag.index.calibration import ensure as calibrate_floors
from rag.index.chunking import chunk_paper, chunk_roles, embed_text
from rag.index.docstore import DocStore, DocStoreBuilder
from rag.index.integrity import fingerprint as index_fingerprint
from rag.index.integrity import trusted
from rag.index.late_chunking import POOLING_PASSES, effective_pass, sentence_function
from rag.index.layout import Layout
from rag.index.lexical import LexicalBuilder, LexicalIndex
from rag.index.local_builder import LocalBuilder
from rag.index.orphans import recover_rebuild
from rag.index.paper_spool import PaperSpool
from rag.index.records import chunk_metadata
from rag.index.refusals import nothing_to_index, storable
from rag.index.report import IndexReport
from rag.index.sentence_map import map_fitter, remembering
from rag.index.writer import WRITE_CHUNKS, EmbedWriter, Item, Progress
from rag.ports import Embedder, VectorStore, embed_in_batches
from rag.settings import IndexSettings
from rag.types import Paper

Warn = Callable[[str], None]


@dataclass(frozen=True)
class _Planned:
    content_hash: str
    meta_hash: str
    paper_id: str


@dataclass(frozen=True)
class _Read:
    """How the sources are read, the same in both passes."""

    sources: Sequence[str | Path]
    on_error: str
    selection: Selection
    spool: PaperSpool | None = None  # full text: the first pass's papers, replayed by the second


def _items(read: _Read, settings: IndexSettings, warn: Warn | None, **extra: object) -> Iterator[Item]:
    """Every chunk of every paper with its metadata, streamed from the files (nothing is held whole), or from the
    spool the first pass filled."""
    if read.spool is not None and read.spool.kept:
        papers: Iterator[Paper] = read.spool.replay()
    else:
        papers = iter_papers(read.sources, on_error=read.on_error, warn=warn, selection=read.selection,
                             full_text=settings.full_text, follow_links=settings.follow_links,
                             workers=settings.read_workers, **extra)  # type: ignore[arg-type]  # fmt: skip
        papers = read.spool.keep(papers) if read.spool is not None else papers
    for paper in papers:
        chunks = chunk_paper(paper, settings.chunk_tokens, settings.chunk_overlap)
        whole, roles = chunk_roles(paper, chunks)
        for chunk, code in zip(chunks, roles, strict=True):
            yield paper, chunk, chunk_metadata(paper, chunk, whole_abstract=whole if len(chunks) > 1 else None,
                                               roles=code)  # fmt: skip


def build_index(
    sources: Sequence[str | Path],
    *,
    settings: IndexSettings,
    layout: Layout,
    store: VectorStore,
    embedder: Embedder,
    rebuild: bool = False,
    on_error: str = "stop",
    progress: Progress | None = None,
    warn: Warn | None = None,
    info: Warn | None = None,
    read_progress: ReadProgress | None = None,
    selection: Selection | None = None,
    allow_empty: bool = False,
) -> IndexReport:
    """Build or update the index so it holds exactly the papers in `sources` (those `selection` keeps, when
    given). `embedder` is used only when something needs embedding (its `name` must be known without loading
    the model). `info` hears which format each file is read as, `read_progress` the first pass's bytes read.
    A run that finds no paper at all refuses (CorpusError) unless `allow_empty`: it would empty the index.

    Two streaming passes over the files: the first keeps only each chunk's id and hashes (to decide what to
    embed, update and remove), the second re-reads them and embeds, writes and feeds BM25 as it goes. Memory
    stays flat in the corpus size apart from those hashes and the BM25 token arrays. Read with their full text,
    the papers are read once: the first pass keeps them in a temporary file the second replays (PaperSpool)."""
    started = time.perf_counter()
    read = _Read(list(sources), on_error, selection or Selection(), PaperSpool() if settings.full_text else None)
    try:
        return _build(read, settings, layout, store, embedder, rebuild, progress, warn, info, read_progress,
                      allow_empty, started)  # fmt: skip
    finally:
        if read.spool is not None:
            read.spool.close()


def _build(read: _Read, settings: IndexSettings, layout: Layout, store: VectorStore, embedder: Embedder,
           rebuild: bool, progress: Progress | None, warn: Warn | None, info: Warn | None,
           read_progress: ReadProgress | None, allow_empty: bool, started: float) -> IndexReport:  # fmt: skip
    """build_index's work, its papers read through `read` (and its spool, if any)."""
    planned: dict[str, _Planned] = {}
    papers = 0
    last_paper = None
    stats = CorpusStats()
    for paper, chunk, meta in _items(read, settings, warn, info=info, progress=read_progress, stats=stats):
        storable(paper.source, paper.id, chunk.text, meta)
        planned[chunk.id] = _Planned(chunk.content_hash, str(meta["meta_hash"]), paper.id)
        papers += paper.id != last_paper
        last_paper = paper.id
    if not planned and not allow_empty:
        raise CorpusError(nothing_to_index(read.selection, stats, store))

    layout.index_dir.mkdir(parents=True, exist_ok=True)
    live = store
    recover_rebuild(live, layout, warn)  # what an interrupted --rebuild left
    target = store.sibling(layout.rebuild_collection) if rebuild else live
    existing: dict[str, tuple[str, str]] = {}
    if target.exists():
        built_with = target.open().info.get("embedder")
        wanted = embedder.name
        if built_with and built_with != wanted:
            raise IndexMissingError(
                f"the index was built with embedder '{built_with}', not '{wanted}'; run `rag index --rebuild`"
            )
        existing = {cid: (str(m.get("hash")), str(m.get("meta_hash"))) for cid, m in target.iter_metadata()}

    to_embed = {cid for cid, p in planned.items() if existing.get(cid, ("", ""))[0] != p.content_hash}
    meta_only = {cid for cid, p in planned.items() if cid in existing and cid not in to_embed
                 and existing[cid][1] != p.meta_hash}  # fmt: skip
    removed = [cid for cid in existing if cid not in planned]
    fingerprint = index_fingerprint((cid, p.meta_hash) for cid, p in planned.items())
    lex_dir = layout.lexical_dir
    # every byte checked: a copy that was edited, zeroed or truncated is rebuilt, never kept as "unchanged"
    current = None if rebuild else trusted(LexicalIndex.load(lex_dir), lex_dir, "BM25 index", warn, full=True)
    docs_dir = layout.docs_dir
    old_docs = None if rebuild else trusted(DocStore.load(docs_dir), docs_dir, "docstore", warn, full=True)
    # BM25 and the docstore are rebuilt together when either does not match the corpus
    local_current = all(x is not None and x.fingerprint == fingerprint for x in (current, old_docs))
    sentence_pass = (effective_pass(embedder, settings.sentence_pass, papers, settings.full_text)
                     if settings.sentence_vectors else "")  # fmt: skip
    old_pass = str(old_docs.info.get("sentence_pass", "own")) if old_docs is not None else ""
    old_map = old_docs.sentence_map if old_docs is not None and old_pass in POOLING_PASSES else None
    if old_pass == "chunk" and old_map is None:
        old_pass = "chunk, unmapped"  # pooled vectors from before the sentence map (or too few to fit one): re-derive
    if settings.sentence_vectors and old_docs is not None and (not old_docs.has_sentence_vectors
                                                               or old_pass != sentence_pass):  # fmt: skip
        local_current = False  # a docstore from before sentence vectors, or from the other pass: fill them in
    if local_current and old_docs is not None and old_docs.author_table is None:
        local_current = False  # a docstore from before the author table: rewritten with it, nothing re-embedded

    marker = layout.dirty_marker
    marker.write_text("an index update started and has not finished; run `rag index` again\n")
    writer = None
    if to_embed or not target.exists():
        model = embedder
        if not target.exists():
            target.create(model.name, model.dim, {"chunk_tokens": settings.chunk_tokens})
        total_papers = len({planned[cid].paper_id for cid in to_embed})
        writer = EmbedWriter(target, model, settings.embed_batch_size, len(to_embed), total_papers, progress)
    local = None
    if not local_current:
        docs = DocStoreBuilder(layout.docs_dir, len(planned), int(target.info["dim"]))
        sentences = sentence_function(embedder, sentence_pass, settings.embed_batch_size) if sentence_pass else None
        local = LocalBuilder(LexicalBuilder(), docs, old_docs, target, sentences, old_pass == sentence_pass,
                             sentence_pass)  # fmt: skip
        if writer is not None:
            writer.on_vector = docs.set_vector
            if settings.sentence_vectors:
                writer.on_sentences = docs.set_sentence_vectors
                writer.sentence_pass = sentence_pass
        layout.calibration_file.unlink(missing_ok=True)  # derived from the docstore being replaced
    calibration_embed = _embed_for_calibration(embedder, settings, sentence_pass)
    if calibration_embed is not None:
        calibration_embed = remembering(calibration_embed)  # the sentence map is fitted on the same sentences
    sentence_map = None
    if sentence_pass in POOLING_PASSES and calibration_embed is not None:
        reuse = old_map is not None and old_pass == sentence_pass
        sentence_map = old_map if reuse else map_fitter(calibration_embed)
    try:
        if to_embed or meta_only or local is not None:
            _second_pass(read, settings, planned, to_embed, meta_only, target, writer, local)
        if removed:
            target.delete(removed)
        if local is not None:
            stored = target.info
            local.finish(fingerprint, lex_dir, {"embedder": stored.get("embedder"), "dim": stored.get("dim"),
                                                "sentence_pass": sentence_pass}, sentence_map)  # fmt: skip
    except BaseException:
        if local is not None:
            local.docs.abort()
        raise
    # the relevance floors derived from this collection (rag.index.calibration): kept beside the local copies and
    # with the collection, for readers on other machines
    calibration = calibrate_floors(layout, fingerprint, calibration_embed)
    # readers in other processes (UI workers in front of a Chroma server) compare this with their BM25 copy
    # indexed_at: when the index last changed, for the UI's "what is indexed" line
    target.update_info(lexical_fingerprint=fingerprint, indexed_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                       calibration=to_json(calibration) if calibration else "")  # fmt: skip
    if rebuild:
        live.drop()
        target.rename(layout.collection)
    marker.unlink(missing_ok=True)
    return IndexReport(
        papers=papers,
        chunks=len(planned),
        embedded=len(to_embed),
        skipped=len(planned) - len(to_embed),
        removed=len(removed),
        seconds=time.perf_counter() - started,
        metadata_updated=len(meta_only),
        filtered=stats.filtered,
        bad=stats.skipped - len(stats.unreadable),
        calibration=calibration,
        unreadable=tuple(stats.unreadable),
        links_out=len(stats.links_out),
    )


def _embed_for_calibration(embedder: Embedder, settings: IndexSettings, sentence_pass: str) -> Embed | None:
    """Without stored sentence vectors, or with vectors pooled from the chunk's pass, the calibration embeds its
    pseudo-questions (a few hundred sentences)."""
    if settings.sentence_vectors and sentence_pass not in POOLING_PASSES:
        return None
    return lambda texts: np.asarray(embed_in_batches(embedder, texts, settings.embed_batch_size), dtype=np.float32)


def _second_pass(
    read: _Read,
    settings: IndexSettings,
    planned: dict[str, _Planned],
    to_embed: set[str],
    meta_only: set[str],
    target: VectorStore,
    writer: EmbedWriter | None,
    local: LocalBuilder | None,
) -> None:
    """Re-read the sources: embed and write what changed, update metadata, feed BM25. The files must still say
    what the first pass read (checked per chunk), else nothing half-read is mixed in."""
    window: list[Item] = []
    metas: list[tuple[str, dict[str, str | int]]] = []
    seen = 0
    try:
        for item in _items(read, settings, _ignore):
            _, chunk, meta = item
            plan = planned.get(chunk.id)
            if plan is None or plan.content_hash != chunk.content_hash or plan.meta_hash != meta["meta_hash"]:
                raise CorpusError("the corpus files changed while they were being indexed; run `rag index` again")
            seen += 1
            if local is not None:
                local.add(chunk, meta, embedding=chunk.id in to_embed,
                          embedded_as=embed_text(item[0], chunk.text, chunk.section))  # fmt: skip
            if chunk.id in to_embed and writer is not None:
                window.append(item)
                if len(window) >= WRITE_CHUNKS:
                    writer.embed(window)
                    window = []
            elif chunk.id in meta_only:
                metas.append((chunk.id, meta))
                if len(metas) >= WRITE_CHUNKS:
                    if writer is not None:
                        writer.barrier()  # one store call at a time
                    target.update_metadata([c for c, _ in metas], [m for _, m in metas])
                    metas = []
        if seen != len(planned):
            raise CorpusError("the corpus files changed while they were being indexed; run `rag index` again")
        if window and writer is not None:
            writer.embed(window)
        if writer is not None:
            writer.close()
            writer = None
        if metas:
            target.update_metadata([c for c, _ in metas], [m for _, m in metas])
    finally:
        if writer is not None:
            writer.close()


def _ignore(message: str) -> None:
    """Warnings about bad records were given in the first pass."""
