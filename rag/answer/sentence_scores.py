"""Every quotable sentence of the retrieved sources, scored for how well it answers the question.

score(sentence) = cosine(question, sentence) + OVERLAP_WEIGHT * share of the question's words it contains
                + PAPER_PRIOR * the paper's own relevance (BODY_WEIGHT less for a full-text body window)
                + a role weight (rag.corpus.roles): a result or conclusion is what answers a question; an aim or
                  background sentence only restates it, unless the question asks for the aim
A sentence that is itself a question ("One question is whether ...?") is never quoted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag.answer.question import Question
from rag.corpus.lexicon import tokenize
from rag.corpus.roles import BACKGROUND, CONCLUSION, FINDINGS, METHOD, OBJECTIVE, RESULT, sentence_roles
from rag.text import split_sentences
from rag.types import Hit
from rag.verify.injection import untrusted
from rag.verify.sentence_vectors import SentenceVectors

# -- weights, in one place (tuned on the dev splits only) -------------------------------------------------------------
OVERLAP_WEIGHT = 0.3  # word overlap catches exact terms the embedding blurs
PAPER_PRIOR = 0.3  # sentences of the most relevant paper come first
# a question word also in the paper's title names the paper, not the answer (0.5 lost 3 dev facts)
TITLE_WORD_WEIGHT = 0.0
CONTRIBUTION_BONUS = 0.15  # "what does it propose?": the paper's contribution sentence ("we introduce ...")
CONTRIBUTION_WEIGHT = 0.05  # otherwise a contribution sentence still carries the answer more often than background
# by role: what a result or conclusion says answers; an aim or background restates the question
ROLE_WEIGHT = {RESULT: 0.06, CONCLUSION: 0.08, METHOD: 0.0, OBJECTIVE: -0.12, BACKGROUND: -0.06}
AIM_WEIGHT = {OBJECTIVE: 0.1, BACKGROUND: 0.0}  # ... unless the question asks for the aim
# a sentence of a full-text body window (a PDF's page): the abstract states a paper's claims, the body repeats them
# with details and extraction noise, so the abstract's sentence answers when both do about as well (dev PDFs: the
# abstract lost "9x faster than R-CNN" to a body table's timings by 0.06, "2.2 million images" by 0.04)
BODY_WEIGHT = -0.1
YES_NO_FINDING = 0.06  # a yes/no question is answered by a finding: more so than a "what" question

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


def quotable(sentence: str) -> bool:
    """Not a question itself, not a pointer to code or data ("Code is available at https://..."; links are answered
    from the metadata), and long enough to say something."""
    text = sentence.rstrip()
    pointer = _LINK.search(text) and _POINTER.search(_LINK_TEXT.sub(" ", text))
    return not text.endswith("?") and len(text.split()) >= 3 and not pointer


def score_sentences(
    question: Question, hits: Sequence[Hit], vectors: SentenceVectors, contribution: bool = False
) -> list[Scored]:
    """Every quotable sentence of the hits, best first. `contribution`: the question asks what a paper proposes,
    so its contribution sentence ("we introduce ...") gets CONTRIBUTION_BONUS."""
    contribution = contribution or question.wants("contribution")
    candidates = []
    for n, h in enumerate(hits, 1):
        if untrusted(h):  # a source that gives the model orders is never quoted
            continue
        sentences = split_sentences(h.text)
        for i, (s, role) in enumerate(zip(sentences, hit_roles(h, sentences), strict=True)):
            if quotable(s):
                candidates.append((n, i, s, role))
    if not candidates:
        return []
    vecs = vectors([question.text] + [s for _, _, s, _ in candidates])
    sims = vecs[1:] @ vecs[0]
    qwords = set(question.tokens)
    # words of the paper's own title mostly identify the paper, not the answer: they count TITLE_WORD_WEIGHT, so
    # a background sentence that restates the topic does not beat the sentence that answers
    weights_of = {n: {w: TITLE_WORD_WEIGHT if w in title else 1.0 for w in qwords}
                  for n, title in ((n, set(tokenize(h.paper.title))) for n, h in enumerate(hits, 1))}  # fmt: skip
    out = []
    for (n, i, s, role), sim in zip(candidates, sims, strict=True):
        weights = weights_of[n]
        total = sum(weights.values())
        words = set(tokenize(s)) if total else set()  # once per sentence, not once per question word
        overlap = sum(v for w, v in weights.items() if w in words) / total if total else 0.0
        prior = PAPER_PRIOR * (hits[n - 1].dense_score or 0.0) + (BODY_WEIGHT if hits[n - 1].page is not None else 0.0)
        bonus = role_weight(question, role)
        if is_contribution(s):
            bonus = CONTRIBUTION_BONUS if contribution else max(bonus, CONTRIBUTION_WEIGHT)
        out.append(Scored(n, i, s, float(sim) + OVERLAP_WEIGHT * overlap + prior + bonus, role, float(sim)))
    return sorted(out, key=lambda c: -c.score)
