"""Attribution per citation: in a sentence citing several papers, each number and name must be found in the paper
whose marker belongs to its clause, not in the pooled text of every paper the sentence cites.

    "PieClam ranks first on 29 tasks [1], while the wells dataset has 213,000 wells [2]."

comes here cut at its citations, as (text, cited sources) pairs: ("PieClam ranks first on 29 tasks", (1,)) and
(", while the wells dataset has 213,000 wells", (2,)); a number or name of the first part that only paper [2] has
is attributed to the wrong paper. Each side cuts its own syntax: answers at [n] markers
(rag.answer.citations.clauses_by_marker), drafts at their citation groups (rag.check.clauses).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rag.types import Hit
from rag.verify.names import quantities
from rag.verify.rules import _name_like
from rag.verify.vocabulary import SourceVocabulary, words


def misattributed(clauses: Sequence[tuple[str, tuple[int, ...]]], hits: Mapping[int, Hit], texts: Mapping[int, str]
                  ) -> tuple[str, int, int] | None:  # fmt: skip
    """(the number or name, the source number its clause cites, the cited source that has it) for the first one
    found only in another cited paper; None when every clause's numbers and names are in its own papers.
    `texts`: each source's number-bearing text (rag.verify.checker.number_evidence)."""
    parts = [(t, tuple(n for n in ns if n in hits)) for t, ns in clauses]
    parts = [(t, ns) for t, ns in parts if ns]
    if len({ns for _, ns in parts}) < 2:
        return None
    vocab = {n: SourceVocabulary(texts[n]) for n in hits}
    numbers = {n: quantities(texts[n]) for n in hits}
    for text, own in parts:
        others = [n for n in hits if n not in own]
        for q in sorted(quantities(text)):
            if not any(q in numbers[n] for n in own) and (where := next((n for n in others if q in numbers[n]), None)):
                return q, own[0], where
        for w in words(text):
            if not _name_like(w) or w[0].isdigit() or len(w) < 2:
                continue
            if not any(vocab[n].has(w) for n in own) and (where := next((n for n in others if vocab[n].has(w)), None)):
                return w, own[0], where
    return None
