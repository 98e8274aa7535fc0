"""Is the question close to the sources but asking a detail none of them gives? A logistic model, fitted offline.

"What learning rate was BERT fine-tuned with?", "How many annotators labelled the set?": the papers are there and
close, so the relevance floor lets the question through, and the rules of rag.answer.absent_value only refuse what
they can read for sure. The model looks at what the answer step already knows (FEATURES): how close the best paper
and the best sentence are against the library's floors, how far the first paper leads the second, whether the
question asks for a value (a number, a count, a thing to be named), how much of the question's rarer words and of the
asked thing's own words the best sentences and the paper asked about hold, and whether those sentences state a
number or a name the question does not. Its weights and its threshold come from `python -m eval.absent_fit`
(`make fit-absent`), fitted on the dev questions of both corpora (unanswerable_close: refuse; questions with gold
papers: answer) and stored with the data manifest in rag/models/absent_refuse.json; the threshold was chosen on
leave-one-question-out probabilities so that answerable dev questions are refused at most 3 % of the time, every
refusal counted. The extractive answer consults it after its own rules (rag.answer.extractive); an LLM is not refused
before it speaks (the replays' backend-share gates: the recorded model refused those questions itself), and an LLM
answer the check does not support falls back to the extractive answer, which consults it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import ClassVar

from rag.answer.absent_value import _TOKEN, asked_name, asked_value, states_value
from rag.answer.abstain import Floors, top_relevance
from rag.answer.logistic import Logistic
from rag.answer.paper_focus import asked_paper
from rag.answer.question import Question
from rag.answer.sentence_scores import score_sentences
from rag.corpus.lexicon import stem, tokenize
from rag.types import Hit
from rag.verify.sentence_vectors import SentenceVectors

MODEL = Path(__file__).resolve().parent.parent / "models" / "absent_refuse.json"
FEATURES = ("top_above_floor", "lead", "sentence_above_floor", "best_score", "asks_value", "asks_name",
            "names_paper", "rare_in_best", "rare_in_paper", "thing_in_best", "thing_in_paper", "new_value_in_top",
            "thing_with_value")  # fmt: skip
TOP = 3  # the best sentences looked at for the asked thing and a value
_NOT_ONE_THING = ("list", "comparison", "summary", "metadata", "why")


def eligible(question: Question) -> bool:
    """The questions the model decides on: one thing asked of the sources (not a list, comparison, summary,
    metadata, "why" or a multi-part question, which do not ask for one detail)."""
    return question.mode == "answer" and len(question.parts) < 2 and not any(map(question.wants, _NOT_ONE_THING))


def thing_words(question: Question) -> set[str]:
    """The words of what the question asks for: its wh-phrases' things, the attribute it asks, what it counts."""
    phrases = [*question.noun_runs, *question.focus, *([question.counted] if question.counted else [])]
    return {w for p in phrases for w in tokenize(p)}


def features(
    question: Question, hits: Sequence[Hit], floors: Floors, vectors: SentenceVectors, named: Sequence[int]
) -> dict[str, float]:
    """FEATURES of one question and its retrieved sources."""
    scored = score_sentences(question, hits, vectors)
    best = max(scored, key=lambda c: c.score) if scored else None
    top = sorted(scored, key=lambda c: -c.score)[:TOP]
    cosines = sorted({h.paper.id: h.dense_score or 0.0 for h in hits}.values(), reverse=True)
    n = asked_paper(question, hits, named)
    about = hits[n - 1] if n is not None else hits[0]
    texts = [set(tokenize(h.paper.title + " " + h.text)) for h in hits]
    words = set(tokenize(question.asked))
    weight = {w: max(math.log((len(hits) + 1) / (sum(w in t for t in texts) + 0.5)), 0.0) for w in words}
    total = sum(weight.values()) or 1.0

    def share(held: set[str]) -> float:
        return sum(v for w, v in weight.items() if w in held) / total

    thing = thing_words(question)
    best_words = set(tokenize(" ".join(c.text for c in top)))
    paper_words = set(tokenize(about.paper.title + " " + about.text))
    texts_of_paper = [c.text for c in scored if hits[c.n - 1].paper.id == about.paper.id]
    known = {stem(t.lower().removesuffix("'s")) for t in _TOKEN.findall(question.text)}
    return {
        "top_above_floor": top_relevance(hits) - floors.relevance,
        "lead": cosines[0] - cosines[1] if len(cosines) > 1 else cosines[0] if cosines else 0.0,
        "sentence_above_floor": max((c.similarity for c in scored), default=0.0) - floors.sentence,
        "best_score": best.score if best else 0.0,
        "asks_value": float(asked_value(question) is not None),
        "asks_name": float(asked_name(question) is not None),
        "names_paper": float(n is not None),
        "rare_in_best": share(set(tokenize(best.text)) if best else set()),
        "rare_in_paper": share(paper_words),
        "thing_in_best": len(thing & best_words) / len(thing) if thing else 1.0,
        "thing_in_paper": len(thing & paper_words) / len(thing) if thing else 1.0,
        "new_value_in_top": float(any(states_value(c.text, known) for c in top)),
        "thing_with_value": float(any(thing & set(tokenize(t)) and states_value(t, known) for t in texts_of_paper)),
    }


@dataclass(frozen=True)
class Model(Logistic):
    FEATURES: ClassVar[tuple[str, ...]] = FEATURES


def model_from(obj: dict[str, object]) -> Model:
    """The model stored by eval.absent_fit (ValueError when its features are not FEATURES)."""
    return Model.from_json(obj, MODEL.name, "rerun make fit-absent")


@lru_cache(maxsize=1)
def stored() -> Model:
    return model_from(json.loads(MODEL.read_text(encoding="utf-8")))


def absent_detail(
    question: Question, hits: Sequence[Hit], floors: Floors, vectors: SentenceVectors, named: Sequence[int],
    model: Model | None = None,
) -> str | None:  # fmt: skip
    """Why the sources, close as they are, do not give what the question asks (None: they may)."""
    if not hits or not eligible(question):
        return None
    model = model or stored()
    p = model.probability(features(question, hits, floors, vectors, named))
    if p < model.threshold:
        return None
    return f"the closest papers do not state what it asks (absent-detail model: {p:.2f} >= {model.threshold:.2f})"
