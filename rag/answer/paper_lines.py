"""Answers made of one cited line per paper: literature summaries, "which papers ..." lists and comparisons.

    summary      each relevant paper's contribution ("we propose ...") or else its main finding (a result or
                 conclusion), the one most on the question's topic
    list         every retrieved paper that addresses the question: its best sentence scores nearly as well as the
                 best paper's, and it is above the library's floor and nearly as relevant as the best paper
    comparison   a sentence from each paper compared: the ones the question names, else the two most relevant
"""

from __future__ import annotations

from collections.abc import Sequence

from rag.answer.citations import REFUSAL
from rag.answer.sentence_scores import Scored, is_contribution
from rag.types import Hit
from rag.verify.injection import untrusted

SUMMARY_WINDOW = 0.2  # a summary lists the papers within this cosine of the best one
LIST_SCORE_WITHIN = 0.7  # a list names the papers whose best sentence scores at least this share of the best one's ...
LIST_RELEVANCE_WITHIN = 0.6  # ... and that are at least this share as relevant as the most relevant paper
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


def paper_list(scored: Sequence[Scored], hits: Sequence[Hit], floor: float) -> str:
    """ "Which papers ...": one cited line for every retrieved paper that addresses the question (its best sentence
    scores nearly as well as the best paper's, and it is above the floor and nearly as relevant), best first."""
    best = _best_per_paper(scored)
    if not best:
        return REFUSAL
    top = max(relevance(hits[n - 1]) for n in best)
    lead = max(c.score for c in best.values())
    least = max(min(floor, top), LIST_RELEVANCE_WITHIN * top)  # the best paper passed the floor (or was named)
    keep = [c for n, c in best.items() if c.score >= LIST_SCORE_WITHIN * lead and relevance(hits[n - 1]) >= least]
    if not keep:
        return REFUSAL
    keep = sorted(keep, key=lambda c: -c.score)[:MAX_LIST]
    head = f"{len(keep)} of the indexed papers:" if len(keep) > 1 else "One of the indexed papers:"
    return "\n".join([head, *(_line(c, hits[c.n - 1]) for c in keep)])


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
