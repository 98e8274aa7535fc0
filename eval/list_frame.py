"""The words that frame a list question rather than name its topic ("list", "deals with", "my library"), learned
from the dev questions of both corpora for the off-topic cut of rag.answer.list_keep (see eval.list_fit).

A word is a frame word when it is missing from every gold paper's title and abstract in at least FRAME_SHARE of the
dev questions that use it, and in at least FRAME_MIN questions of each corpus of FRAME_CORPORA: a topic word of one
library's papers is not one. Held-out files are never read.
"""

from __future__ import annotations

import json

from eval.questions import load_questions
from eval.suites import BUNDLED, CORPORA, SETS

FRAME_SHARE = 0.8
FRAME_MIN = 2
FRAME_CORPORA = ("icml2025", "arxiv")
FRAME_RULE = (f"missing from every gold paper in >= {FRAME_SHARE:.0%} of the dev questions using it, and in >= "
              f"{FRAME_MIN} questions of each of {', '.join(FRAME_CORPORA)}")


def frame_files() -> list[tuple[str, str]]:
    """(corpus, file under eval/sets) of every bundled dev question set of FRAME_CORPORA."""
    return [(corpus, file) for _, file, split, corpus in BUNDLED if split == "dev" and corpus in FRAME_CORPORA]


def frame_words() -> list[str]:
    """The words (stems) that frame a question rather than name its topic, learned from the dev questions of both
    corpora: those missing from every gold paper's title and abstract (see FRAME_SHARE, FRAME_MIN)."""
    from rag.corpus.lexicon import tokenize

    texts = {}
    for corpus in FRAME_CORPORA:
        for line in CORPORA[corpus].read_text(encoding="utf-8").splitlines():
            if line.strip():
                paper = json.loads(line)
                texts[paper["id"]] = set(tokenize(f"{paper.get('title', '')} {paper.get('abstract', '')}"))
    used: dict[str, dict[str, int]] = {c: {} for c in FRAME_CORPORA}
    missing: dict[str, dict[str, int]] = {c: {} for c in FRAME_CORPORA}
    for corpus, file in frame_files():
        asked = {q.question: q for q in load_questions(SETS / file) if q.gold}  # a question repeated counts once
        for q in asked.values():
            gold = [texts[p] for p in q.gold or () if p in texts]
            for w in set(tokenize(q.question)) if gold else ():
                used[corpus][w] = used[corpus].get(w, 0) + 1
                if not any(w in t for t in gold):
                    missing[corpus][w] = missing[corpus].get(w, 0) + 1
    return sorted(w for w in missing[FRAME_CORPORA[0]] if all(
        missing[c].get(w, 0) >= max(FRAME_MIN, FRAME_SHARE * used[c].get(w, 0)) for c in FRAME_CORPORA))  # fmt: skip
