"""Which retrieved papers a "which papers ..." list names: a logistic model over per-paper features, fitted offline.

Each retrieved paper is described by what the answer step already knows about it (FEATURES): how close the paper is
to the question (cosine, against the best paper and the library's floor), how the fused dense+BM25 score and the
paper's best sentence compare with the best paper's, its rank, and how much of the question's rarer words its title
and its abstract hold. The weights come from `python -m eval.list_fit`, fitted on the dev list questions of both
corpora (gold = every paper that qualifies) and stored with their data manifest in rag/models/list_keep.json; a
paper is named when the model's probability reaches the stored threshold, chosen by leave-one-question-out
cross-validation for recall first (F2) and for refusing the dev "which papers ..." that no paper answers.

Before any paper is decided, the question itself (`coverage`): when no retrieved paper holds `cut` of the words
that name the question's topic, weighted by how rare each is among the papers considered, the papers are near the
topic but none is on it ("which papers apply continual learning to speech recognition?" over continual-learning
papers that never mention speech) and the list is refused. The words that frame a request rather than name a topic
("list", "my library", "deals with") do not count: those of the list grammar (GRAMMAR_WORDS) and those the fit
finds missing from the answering papers in the dev questions of both corpora (the stored `frame_words`). The cut is
calibrated by the same fit: the highest that refuses at most 5 % of the dev list questions that have an answer.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import ClassVar

from rag.answer.logistic import Logistic
from rag.corpus.lexicon import tokenize

MODEL = Path(__file__).resolve().parent.parent / "models" / "list_keep.json"
FEATURES = ("above_floor", "cos_rel", "fused_rel", "sentence_rel", "similarity_rel", "rank", "title_terms",
            "abstract_terms")  # fmt: skip


# the list grammar's own words (rag.answer.question: "list / name / show ... every / all ... in my library"): they
# frame the request, whatever the topic
GRAMMAR_WORDS = frozenset(tokenize("list name give show find enumerate every all my our library collection corpus "
                                   "index works studies articles publications abstracts research"))  # fmt: skip


@dataclass(frozen=True)
class Candidate:
    """One retrieved paper of a list question, as the answer step sees it."""

    cosine: float  # the paper's dense similarity to the question
    fused: float  # its fused retrieval score
    sentence: float  # its best sentence's answer score
    similarity: float  # the highest cosine of any of its sentences with the question
    title: str
    text: str  # the abstract


@lru_cache(maxsize=512)
def _words_of_text(title: str, text: str) -> frozenset[str]:
    return frozenset(tokenize(text)) | frozenset(tokenize(title))


def _words_of(paper: Candidate) -> frozenset[str]:
    """The paper's title and abstract words (tokenized once for `features` and `coverage` alike)."""
    return _words_of_text(paper.title, paper.text)


def _rarity(words: set[str], texts: Sequence[frozenset[str]]) -> dict[str, float]:
    """Each word's weight by how rare it is among the papers' `texts` (a word none holds weighs most; never below 0)."""
    return {w: max(math.log((len(texts) + 1) / (sum(w in t for t in texts) + 0.5)), 0.0) for w in words}


def features(question: str, papers: Sequence[Candidate], floor: float) -> list[dict[str, float]]:
    """FEATURES of every paper, each relative to the best paper of the same question (so one library's scale does
    not decide): a question word counts by how rare it is among the papers considered (a word every paper holds
    tells none apart)."""
    if not papers:
        return []
    top = max(p.cosine for p in papers) or 1.0
    fused = max(p.fused for p in papers) or 1.0
    lead = max(p.sentence for p in papers) or 1.0
    close = max(p.similarity for p in papers) or 1.0
    order = sorted(range(len(papers)), key=lambda i: -papers[i].fused)
    rank = {i: r for r, i in enumerate(order)}
    texts = [_words_of(p) for p in papers]
    weight = _rarity(set(tokenize(question)), texts)
    total = sum(weight.values()) or 1.0

    def share(held: frozenset[str]) -> float:
        return sum(v for w, v in weight.items() if w in held) / total

    return [
        {
            "above_floor": p.cosine - floor,
            "cos_rel": p.cosine / top,
            "fused_rel": p.fused / fused,
            "sentence_rel": p.sentence / lead,
            "similarity_rel": p.similarity / close,
            "rank": rank[i] / max(len(papers) - 1, 1),
            "title_terms": share(frozenset(tokenize(p.title))),
            "abstract_terms": share(texts[i]),
        }
        for i, p in enumerate(papers)
    ]


@dataclass(frozen=True)
class Model(Logistic):
    FEATURES: ClassVar[tuple[str, ...]] = FEATURES

    cut: float = 0.0  # a question no paper covers this much of is refused (see the module's text)
    frame: frozenset[str] = GRAMMAR_WORDS  # words that frame the request, not counted in `coverage`


def model_from(obj: dict[str, object]) -> Model:
    """The model stored by eval.list_fit (ValueError when its features are not FEATURES)."""
    model = Model.from_json(obj, MODEL.name, "rerun python -m eval.list_fit")
    frame = GRAMMAR_WORDS | frozenset(obj.get("frame_words", ()))  # type: ignore[call-overload]
    return replace(model, cut=float(obj.get("off_topic_cut", 0.0)), frame=frame)  # type: ignore[arg-type]


_ALTERNATIVES = re.compile(r",|;|/|\bor\b", re.IGNORECASE)


def coverage(question: str, papers: Sequence[Candidate], frame: frozenset[str]) -> float | None:
    """The most of the question's topic words one paper holds (title or abstract), each word weighted by how rare it
    is among the papers considered (a word none holds weighs most); None when the question has no topic word. A
    question of alternatives ("on GANs or transformers", "security, cryptography or attacks") is covered as well as
    its best-covered alternative: a paper on one of them qualifies."""
    words = set(tokenize(question)) - frame
    if not words or not papers:
        return None
    texts = [_words_of(p) for p in papers]
    weight = _rarity(words, texts)
    parts = [part for part in (set(tokenize(a)) & words for a in _ALTERNATIVES.split(question)) if part]

    def held(part: set[str]) -> float:
        total = sum(weight[w] for w in part) or 1.0
        return max(sum(weight[w] for w in part if w in t) / total for t in texts)

    return max(held(part) for part in parts or [words])


@lru_cache(maxsize=1)
def stored() -> Model:
    return model_from(json.loads(MODEL.read_text(encoding="utf-8")))


def keep(
    question: str, papers: Sequence[Candidate], floor: float, model: Model | None = None, chosen: bool = False
) -> list[bool] | None:
    """Whether each paper is named in the list; None when no paper is on the question's topic (its `coverage` below
    the model's cut; a question without a topic word is never refused so). `chosen`: the question's author, year or
    venue already chose the papers, so the cut does not apply."""
    model = model or stored()
    covered = None if chosen else coverage(question, papers, model.frame)
    if covered is not None and covered < model.cut:
        return None
    return [model.probability(row) >= model.threshold for row in features(question, papers, floor)]
