"""Answers made of one cited line per paper: literature summaries, "which papers ..." lists and comparisons.

    summary      each relevant paper's contribution ("we propose ...") or else its main finding (a result or
                 conclusion), the one most on the question's topic
    list         every retrieved paper that addresses the question, decided paper by paper: it is above the library's
                 calibrated relevance floor, the retrievers' fused score puts it near the best paper and its best
                 sentence scores nearly as well as the best paper's; the answer says how many papers were considered
    comparison   a sentence from each paper compared: the ones the question names, else the two most relevant
"""

from __future__ import annotations

from collections.abc import Sequence

from rag.answer.citations import REFUSAL
from rag.answer.sentence_scores import Scored, is_contribution
from rag.types import Hit
from rag.verify.injection import untrusted

SUMMARY_WINDOW = 0.2  # a summary lists the papers within this cosine of the best one
# A list names every paper whose best sentence scores at least LIST_SCORE_WITHIN of the best one's, that is at least
# LIST_RELEVANCE_WITHIN as relevant (cosine) as the most relevant paper and above the library's floor, and whose fused
# retrieval score (dense and BM25 together) is at least LIST_FUSED_WITHIN of the best paper's. Chosen on the 23 dev
# list questions (dev_kinds, dev_library3) for recall first (F2): 39 of 47 gold papers named, 16 others, where the
# former rule (0.7 of the best sentence, 0.6 of the relevance, no fused score) named 36 and 22 others.
LIST_SCORE_WITHIN = 0.6
LIST_RELEVANCE_WITHIN = 0.5
LIST_FUSED_WITHIN = 0.6
LINE_CONTRIBUTION_WITHIN = 0.6  # see _what_it_does
MAX_LIST = 10
MAX_COMPARED = 4


def relevance(hit: Hit) -> float:
    return hit.dense_score or 0.0


def _line(c: Scored, hit: Hit) -> str:
    return f"- {hit.paper.title}: {c.quoted()}"


def _best_per_paper(scored: Sequence[Scored]) -> dict[int, Scored]:
    best: dict[int, Scored] = {}
    for c in scored:  # best first
        best.setdefault(c.n, c)
    return best


def paper_list(scored: Sequence[Scored], hits: Sequence[Hit], floor: float, one_part: bool = True) -> str:
    """ "Which papers ...": each retrieved paper decided on its own (see LIST_SCORE_WITHIN), one cited line for every
    paper that addresses the question, best first, under a head that says how many papers were considered. A question
    of several parts ("which papers prove a guarantee, and what is guaranteed?") keeps each paper's best sentence: it
    holds the detail asked for, which the paper's contribution sentence may not."""
    best = _best_per_paper(scored)
    if not best:
        return REFUSAL
    top = max(relevance(hits[n - 1]) for n in best)
    lead = max(c.score for c in best.values())
    fused = max(hits[n - 1].score for n in best)
    least = max(min(floor, top), LIST_RELEVANCE_WITHIN * top)  # the best paper passed the floor (or was named)

    def addresses(n: int, c: Scored) -> bool:
        hit = hits[n - 1]
        near = hit.score >= LIST_FUSED_WITHIN * fused or fused <= 0 or c.score >= lead  # the best sentence's paper
        return c.score >= LIST_SCORE_WITHIN * lead and relevance(hit) >= least and near

    keep = [c for n, c in best.items() if addresses(n, c)]
    if not keep:  # the retrievers and the sentences disagree: the best sentence of a paper above the floor answers
        keep = sorted((c for n, c in best.items() if relevance(hits[n - 1]) >= least), key=lambda c: -c.score)[:1]
    if not keep:
        return REFUSAL
    keep = sorted(keep, key=lambda c: -c.score)[:MAX_LIST]
    keep = [_what_it_does(c, scored) for c in keep] if one_part else keep
    considered = len({h.paper.id for h in hits})
    verb = "addresses" if len(keep) == 1 else "address"
    head = f"{len(keep)} of the {considered} papers considered {verb} the question:"
    return "\n".join([head, *(_line(c, hits[c.n - 1]) for c in keep)])


def _what_it_does(c: Scored, scored: Sequence[Scored]) -> Scored:
    """A listed paper's line: what the paper contributes ("we propose X") when that scores LINE_CONTRIBUTION_WITHIN
    of its best sentence (it names the method, which a background sentence does not), else its best sentence."""
    own = next((x for x in scored if x.n == c.n and is_contribution(x.text)), None)  # best first
    return own if own is not None and own.score >= LINE_CONTRIBUTION_WITHIN * c.score else c


def comparison(scored: Sequence[Scored], hits: Sequence[Hit], named: Sequence[int]) -> str:
    """A sentence from each paper compared: those the question names (two or more), else the two most relevant."""
    best = _best_per_paper(scored)
    papers = [n for n in named if n in best] if len(named) >= 2 else []
    if len(papers) < 2:
        papers = sorted(best, key=lambda n: -relevance(hits[n - 1]))[:2]
    if not papers:
        return REFUSAL
    return "\n".join(_line(best[n], hits[n - 1]) for n in papers[:MAX_COMPARED])


def summary(scored: Sequence[Scored], hits: Sequence[Hit], floor: float) -> str:
    """One line per relevant paper: its main finding or contribution most on the question's topic, cited."""
    top = max((relevance(h) for h in hits), default=0.0)
    keep = [n for n, h in enumerate(hits, 1) if relevance(h) >= max(floor, top - SUMMARY_WINDOW) and not untrusted(h)]
    lines = []
    for n in keep:
        own = [c for c in scored if c.n == n]
        # what the paper contributes ("we propose ..."), else what it finds (a result or conclusion), else any
        main = [c for c in own if is_contribution(c.text)] or [c for c in own if c.finding] or own
        pick = max(main, key=lambda c: c.similarity, default=None)
        if pick is not None:
            lines.append(_line(pick, hits[n - 1]))
    if not lines:
        return REFUSAL
    return "\n".join([f"{len(lines)} relevant paper{'s' if len(lines) > 1 else ''}:", *lines])
