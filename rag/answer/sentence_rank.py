"""Which retrieved sentence answers the question: a linear score over what the answer step knows of each sentence,
its weights learned from the dev questions (`python -m eval.sentence_fit`, `make fit-sentences`).

Each quotable sentence is described by FEATURES: the hand-set score it replaced (rag.answer.sentence_scores.hand_score,
whose weight is not penalised: the fit learns corrections to it), its cosine to the question, the share of the
question's words it holds (the paper's own title words left out: they name the paper, not the answer) and the share
its neighbours add, the paper's relevance (its cosine), the sentence's role in the abstract (rag.corpus.roles) and
whether the question asks for that role, whether it states a contribution ("we introduce ..."), where it sits in the
text, whether it states a number (and the question asks how many), its length, and whether it comes from a PDF's body
rather than its abstract. The weights are a conditional logit fitted on the dev questions of both corpora and of the
dev PDF sets read with their full text (which sentence of the retrieved ones holds the expected answer), then put on
the scale of the hand-set score (the same spread of scores within a question and the same mean), so the within-ratios
of rag.answer.extractive keep their meaning; the floor itself (`min_score`) is calibrated to refuse no
more answerable dev questions than the hand-set score's did. Stored with its data manifest in
rag/models/sentence_rank.json.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from rag.answer.counting import NUMBER_WORD
from rag.answer.question import Question
from rag.corpus.roles import BACKGROUND, CONCLUSION, FINDINGS, OBJECTIVE, RESULT

MODEL = Path(__file__).resolve().parent.parent / "models" / "sentence_rank.json"
FEATURES = ("hand", "similarity", "overlap", "context", "paper", "result", "conclusion", "objective",
            "background", "finding_yes_no", "objective_aim", "contribution", "contribution_asked", "first",
            "position", "number", "number_asked", "length", "body")  # fmt: skip


@dataclass(frozen=True)
class Sentence:
    """What the answer step knows of one quotable sentence (the inputs of `features`)."""

    text: str
    similarity: float  # cosine(question, sentence)
    overlap: float  # share of the question's words (less the paper's title words) the sentence holds
    context: float  # ... that the sentence and its two neighbours hold together
    paper: float  # the paper's cosine to the question
    role: str
    contribution: bool  # "we introduce ..."
    position: int
    count: int  # sentences in the text it comes from
    body: bool = False  # of a full-text body window (a PDF's page), not of the abstract


def features(question: Question, s: Sentence, contribution_asked: bool, hand: float) -> dict[str, float]:
    """FEATURES of one sentence (`hand`: its hand-set score, rag.answer.sentence_scores.hand_score)."""
    number = bool(NUMBER_WORD.search(s.text))
    return {
        "hand": hand,
        "similarity": s.similarity,
        "overlap": s.overlap,
        "context": s.context - s.overlap,
        "paper": s.paper,
        "result": float(s.role == RESULT),
        "conclusion": float(s.role == CONCLUSION),
        "objective": float(s.role == OBJECTIVE),
        "background": float(s.role == BACKGROUND),
        "finding_yes_no": float(question.wants("yes_no") and s.role in FINDINGS),
        "objective_aim": float(question.wants("aim") and s.role == OBJECTIVE),
        "contribution": float(s.contribution),
        "contribution_asked": float(s.contribution and contribution_asked),
        "first": float(s.position == 0),
        "position": s.position / max(1, s.count - 1),
        "number": float(number),
        "number_asked": float(number and question.wants("quantity")),
        "length": math.log(len(s.text.split()) + 1),
        "body": float(s.body),
    }


@dataclass(frozen=True)
class Model:
    """score = offset + sum(coefficient * feature): the learned weights already on the hand-set score's scale."""

    coefficients: tuple[float, ...]
    offset: float
    min_score: float  # below this the best sentence does not answer (calibrated by the fit)

    def score(self, row: dict[str, float]) -> float:
        return self.offset + sum(c * row[f] for f, c in zip(FEATURES, self.coefficients, strict=True))


def model_from(obj: dict[str, object]) -> Model:
    """The model stored by eval.sentence_fit (ValueError when its features are not FEATURES)."""
    if tuple(obj["features"]) != FEATURES:  # type: ignore[arg-type]
        raise ValueError(f"{MODEL.name}: features {obj['features']} are not {FEATURES}; rerun make fit-sentences")
    coefficients = tuple(float(v) for v in obj["coefficients"])  # type: ignore[attr-defined]
    return Model(coefficients, float(obj["offset"]), float(obj["min_score"]))  # type: ignore[arg-type]


@lru_cache(maxsize=1)
def stored() -> Model:
    return model_from(json.loads(MODEL.read_text(encoding="utf-8")))
