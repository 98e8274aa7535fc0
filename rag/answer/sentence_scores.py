"""Every quotable sentence of the retrieved sources, scored for how well it answers the question.

The score is rag.answer.sentence_rank's learned linear score (the sentence's cosine to the question, the share of
the question's words it and its neighbours hold, the paper's relevance, its role, a contribution, its position, a
stated number, a PDF body's sentence rather than its abstract's), on the scale of the hand-set score it replaced
(`hand_score`, its starting point and the scale the fit maps onto). A sentence that is itself a question ("One
question is whether ...?") is never quoted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag.answer import sentence_rank
from rag.answer.question import Question
from rag.answer.sentence_rank import Sentence
from rag.corpus.lexicon import tokenize
from rag.corpus.roles import BACKGROUND, CONCLUSION, FINDINGS, METHOD, OBJECTIVE, RESULT, sentence_roles
from rag.text import split_sentences
from rag.types import Hit
from rag.verify.injection import untrusted
from rag.verify.sentence_vectors import SentenceVectors

# -- the hand-set score the learned one replaced (tuned on the dev splits): the scale eval.sentence_fit maps onto ----
OVERLAP_WEIGHT = 0.3  # word overlap catches exact terms the embedding blurs
PAPER_PRIOR = 0.3  # sentences of the most relevant paper come first
CONTRIBUTION_BONUS = 0.15  # "what does it propose?": the paper's contribution sentence ("we introduce ...")
CONTRIBUTION_WEIGHT = 0.05  # otherwise a contribution sentence still carries the answer more often than background
# by role: what a result or conclusion says answers; an aim or background restates the question
ROLE_WEIGHT = {RESULT: 0.06, CONCLUSION: 0.08, METHOD: 0.0, OBJECTIVE: -0.12, BACKGROUND: -0.06}
AIM_WEIGHT = {OBJECTIVE: 0.1, BACKGROUND: 0.0}  # ... unless the question asks for the aim
YES_NO_FINDING = 0.06  # a yes/no question is answered by a finding: more so than a "what" question
# a sentence of a full-text body window (a PDF's page): the abstract states a paper's claims, the body repeats them
# with details and extraction noise, so the abstract's sentence answers when both do about as well (dev PDFs: the
# abstract lost "9x faster than R-CNN" to a body table's timings by 0.06, "2.2 million images" by 0.04)
BODY_WEIGHT = -0.1

_CONTRIBUTION = re.compile(r"\b(we|this (paper|work))\s+(propose|introduce|present|develop|design|build)", re.I)
_LINK = re.compile(r"https?://|\bwww\.|\bgithub\.com\b", re.IGNORECASE)
_LINK_TEXT = re.compile(r"\S*(?:https?://|www\.|github\.com)\S*", re.IGNORECASE)
_POINTER = re.compile(r"\b(code|available|release[sd]?|open[- ]?source[sd]?|repository|github|website|project page"
                      r"|download|implementation)\b", re.IGNORECASE)  # fmt: skip
_LABEL = re.compile(r"^\s*[A-Z][A-Z ,&/-]{2,40}:\s+")  # "RESULTS: " opening a structured abstract's part


@dataclass(frozen=True)
class Scored:
    n: int  # source number (1-based)
    position: int  # sentence index within the hit's text
    text: str
    score: float
    role: str = METHOD
    similarity: float = 0.0  # cosine(question, sentence) alone: how close it is, whatever its role

    @property
    def finding(self) -> bool:
        return self.role in FINDINGS

    def quoted(self) -> str:
        """The sentence as quoted, with its citation (an inline part label such as "RESULTS:" left out)."""
        return f"{_LABEL.sub('', self.text).rstrip()} [{self.n}]"


def is_contribution(sentence: str) -> bool:
    return bool(_CONTRIBUTION.search(sentence))


def hit_roles(hit: Hit, sentences: Sequence[str]) -> list[str]:
    """The role of each sentence of a hit: as the index recorded it, else from cues and position (an index built
    before roles were recorded; a later chunk of an abstract does not start with its background)."""
    if len(hit.roles) == len(sentences):
        return list(hit.roles)
    first = 0 if hit.chunk_id.endswith(":0") else 1
    return sentence_roles(sentences, first=first, total=first + len(sentences) + (0 if first == 0 else 1))


def role_weight(question: Question, role: str) -> float:
    if question.wants("aim") and role in AIM_WEIGHT:
        return AIM_WEIGHT[role]
    weight = ROLE_WEIGHT.get(role, 0.0)
    return weight + YES_NO_FINDING if question.wants("yes_no") and role in FINDINGS else weight


def hand_score(question: Question, s: Sentence, contribution: bool) -> float:
    """The hand-set score: the scale the learned score is put on (eval.sentence_fit), and its starting point."""
    bonus = role_weight(question, s.role)
    if s.contribution:
        bonus = CONTRIBUTION_BONUS if contribution else max(bonus, CONTRIBUTION_WEIGHT)
    return s.similarity + OVERLAP_WEIGHT * s.overlap + PAPER_PRIOR * s.paper + bonus + (BODY_WEIGHT if s.body else 0.0)


def quotable(sentence: str) -> bool:
    """Not a question itself, not a pointer to code or data ("Code is available at https://..."; links are answered
    from the metadata), and long enough to say something."""
    text = sentence.rstrip()
    pointer = _LINK.search(text) and _POINTER.search(_LINK_TEXT.sub(" ", text))
    return not text.endswith("?") and len(text.split()) >= 3 and not pointer


def candidates(question: Question, hits: Sequence[Hit], vectors: SentenceVectors) -> list[tuple[int, Sentence]]:
    """Every quotable sentence of the hits, with its source number (1-based) and what the score reads of it."""
    found = []
    for n, h in enumerate(hits, 1):
        if untrusted(h):  # a source that gives the model orders is never quoted
            continue
        sentences = split_sentences(h.text)
        for i, (s, role) in enumerate(zip(sentences, hit_roles(h, sentences), strict=True)):
            if quotable(s):
                found.append((n, i, s, role, sentences))
    if not found:
        return []
    vecs = vectors([question.text] + [s for _, _, s, _, _ in found])
    sims = vecs[1:] @ vecs[0]
    qwords = set(question.tokens)
    # words of the paper's own title mostly identify the paper, not the answer: a background sentence that restates
    # the topic does not beat the sentence that answers
    titles = {n: set(tokenize(h.paper.title)) for n, h in enumerate(hits, 1)}
    asked = {n: [w for w in qwords if w not in title] for n, title in titles.items()}
    words_of: dict[tuple[int, int], set[str]] = {}

    def words(n: int, i: int, sentences: list[str]) -> set[str]:
        if (n, i) not in words_of:
            words_of[n, i] = set(tokenize(sentences[i]))
        return words_of[n, i]

    out = []
    for (n, i, s, role, sentences), sim in zip(found, sims, strict=True):
        wanted = asked[n]
        own = words(n, i, sentences) if wanted else set()
        near = set().union(*(words(n, j, sentences) for j in range(max(0, i - 1), min(len(sentences), i + 2))
                             if j != i)) if wanted else set()  # fmt: skip
        share = sum(w in own for w in wanted) / len(wanted) if wanted else 0.0
        context = sum(w in own or w in near for w in wanted) / len(wanted) if wanted else 0.0
        out.append((n, Sentence(s, float(sim), share, context, hits[n - 1].dense_score or 0.0, role,
                                is_contribution(s), i, len(sentences), hits[n - 1].page is not None)))  # fmt: skip
    return out


def feature_rows(question: Question, sentences: Sequence[Sentence], contribution: bool) -> list[dict[str, float]]:
    """rag.answer.sentence_rank's FEATURES of each sentence, its hand-set score among them (what the answer scores
    and what eval.sentence_fit fits on)."""
    return [sentence_rank.features(question, s, contribution, hand_score(question, s, contribution)) for s in sentences]


def score_sentences(
    question: Question, hits: Sequence[Hit], vectors: SentenceVectors, contribution: bool = False
) -> list[Scored]:
    """Every quotable sentence of the hits, best first. `contribution`: the question asks what a paper proposes
    (its contribution sentence, "we introduce ...", counts for more)."""
    contribution = contribution or question.wants("contribution")
    found = candidates(question, hits, vectors)
    model = sentence_rank.stored()
    learned = [model.score(row) for row in feature_rows(question, [s for _, s in found], contribution)]
    out = [Scored(n, s.position, s.text, score, s.role, s.similarity)
           for (n, s), score in zip(found, learned, strict=True)]  # fmt: skip
    return sorted(out, key=lambda c: -c.score)
