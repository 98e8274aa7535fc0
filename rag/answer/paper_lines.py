"""Answers made of one cited line per paper: literature summaries, "which papers ..." lists and comparisons.

    summary      each relevant paper's contribution ("we propose ...") or else its main finding (a result or
                 conclusion), the one most on the question's topic
    list         every retrieved paper that addresses the question, decided paper by paper by a logistic model fitted
                 on both corpora's dev lists (rag.answer.list_keep); the answer says how many papers were considered
    comparison   a sentence from each paper compared: the ones the question names, else the two most relevant
"""

from __future__ import annotations

from collections.abc import Sequence

from rag.answer.citations import REFUSAL
from rag.answer.list_keep import Candidate, Model, keep
from rag.answer.sentence_scores import Scored, is_contribution
from rag.types import Hit
from rag.verify.injection import untrusted

SUMMARY_WINDOW = 0.2  # a summary lists the papers within this cosine of the best one
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


def candidates(scored: Sequence[Scored], hits: Sequence[Hit]) -> tuple[dict[int, Scored], list[Candidate]]:
    """Each paper's best sentence, and the paper as the list model sees it (in the same order)."""
    best = _best_per_paper(scored)
    close: dict[int, float] = {}
    for c in scored:
        close[c.n] = max(close.get(c.n, c.similarity), c.similarity)
    return best, [
        Candidate(relevance(hits[n - 1]), hits[n - 1].score, c.score, close[n], hits[n - 1].paper.title,
                  hits[n - 1].text)  # fmt: skip
        for n, c in best.items()
    ]


def paper_list(
    scored: Sequence[Scored], hits: Sequence[Hit], floor: float, one_part: bool = True, question: str = "",
    model: Model | None = None, chosen_by_metadata: bool = False,
) -> str:
    """ "Which papers ...": each retrieved paper decided on its own (rag.answer.list_keep), one cited line for every
    paper that addresses the question, best first, under a head that says how many papers were considered; refused
    when no paper is on the question's topic (list_keep's cut), unless its author, year or venue chose the papers
    (`chosen_by_metadata`). A question of several parts ("which papers prove a guarantee, and what is guaranteed?")
    keeps each paper's best sentence: it holds the detail asked for, which the paper's contribution sentence may
    not."""
    best, papers = candidates(scored, hits)
    if not best:
        return REFUSAL
    chosen = keep(question, papers, floor, model, chosen_by_metadata)
    if chosen is None:
        return REFUSAL
    kept = [c for c, yes in zip(best.values(), chosen, strict=True) if yes]
    if not kept:  # none likely enough: the best sentence of a paper at least as relevant as the floor answers
        kept = sorted((c for c, p in zip(best.values(), papers, strict=True) if p.cosine >= floor),
                      key=lambda c: -c.score)[:1]  # fmt: skip
    if not kept:
        return REFUSAL
    kept = sorted(kept, key=lambda c: -c.score)[:MAX_LIST]
    kept = [_what_it_does(c, scored) for c in kept] if one_part else kept
    considered = len({h.paper.id for h in hits})
    verb = "addresses" if len(kept) == 1 else "address"
    head = f"{len(kept)} of the {considered} papers considered {verb} the question:"
    return "\n".join([head, *(_line(c, hits[c.n - 1]) for c in kept)])


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
