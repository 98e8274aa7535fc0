"""More than one window of the best papers, when the library holds their full text (PDFs indexed with --full-text).

The search keeps one window per paper, which is right for an abstract (its windows are widened to the whole
abstract afterwards) but not for a paper with fifty body windows: the one window that ranks first is often not the
one that answers. A question the abstract answers then gets a body window of that paper instead ("9x faster" read
from a page-6 timing table), and a question about a setting gets the right paper but the wrong page (the learning
rate asked, an appendix page retrieved). So for the first TOP_PAPERS papers whose retrieved window is a body
window, their next BODY_WINDOWS best body windows and their abstract join the sources, after the search's own
hits (whose numbers do not change). An abstract-only library is left exactly as it was: no hit has a page there.
"""

from __future__ import annotations

from collections.abc import Sequence

from rag.filters import Filters
from rag.index.records import paper_from_metadata, stored_text
from rag.retrieve.retriever import Retriever
from rag.types import Hit

TOP_PAPERS = 2  # the papers that get more windows: the answer is nearly always in the first two
BODY_WINDOWS = 2  # further body windows of each by the fused score ...
LEXICAL_WINDOWS = 2  # ... and by BM25 alone


def _abstract_hit(retriever: Retriever, hit: Hit, query: str) -> Hit | None:
    """The paper's first abstract window as a hit (widened to the whole abstract later), scored like a search hit."""
    paper_id = hit.chunk_id.rpartition(":")[0]
    chunk = retriever.stored(f"{paper_id}:0")
    if chunk is None or chunk.metadata.get("page") is not None or chunk.metadata.get("paper_id", paper_id) != paper_id:
        return None
    text = stored_text(chunk.text)
    paper = paper_from_metadata(chunk.metadata, str(chunk.metadata.get("abstract") or text))
    return Hit(paper, chunk.id, text, hit.score, retriever.cosine(chunk.id, query), None,
               int(chunk.metadata.get("num_tokens", 0) or 0))  # fmt: skip


def companions(
    retriever: Retriever, query: str, hits: Sequence[Hit], filters: Filters | None = None, budget: int | None = None
) -> list[Hit]:
    """The further windows of the best full-text papers among `hits` (none for an abstract-only library), best
    papers first, within `budget` tokens over what `hits` use (None: no limit)."""
    papers = [h.paper.id for h in hits if h.page is not None][:TOP_PAPERS]
    if not papers:
        return []
    have = {h.chunk_id for h in hits}
    per = BODY_WINDOWS + 1
    k = min(retriever.settings.max_k, per * len(hits))
    more = retriever.search(query, k, filters=filters, per_paper=per + 1)
    # BM25 alone as well: a window that states a setting in the question's own words ("minibatch size") can rank
    # low on the fused score among fifty windows of one paper on the same topic
    worded = retriever.search(query, k, filters=filters, per_paper=per + 1, mode="lexical")
    out: list[Hit] = []
    for paper_id in papers:
        first = next(h for h in hits if h.paper.id == paper_id)
        body = [h for h in more if h.paper.id == paper_id and h.page is not None and h.chunk_id not in have]
        lexical = [h for h in worded if h.paper.id == paper_id and h.page is not None and h.chunk_id not in have]
        own = list({h.chunk_id: h for h in [*body[:BODY_WINDOWS], *lexical[:LEXICAL_WINDOWS]]}.values())
        abstract = None if any(h.paper.id == paper_id and h.page is None for h in hits) else (
            _abstract_hit(retriever, first, query))  # fmt: skip
        out += [*own, *([abstract] if abstract is not None else [])]
    if budget is not None:
        room = budget - sum(h.num_tokens for h in hits)
        kept = []
        for h in out:
            if h.num_tokens <= room:
                kept.append(h)
                room -= h.num_tokens
        out = kept
    return out
