"""The relevance floor, derived from the collection itself when it is indexed.

One constant floor cannot serve every library: on a library of 400 clinical abstracts a question about a paper that
is not there still finds a neighbour at cosine 0.45, while on 19 machine-learning abstracts an answerable question
in a reader's own words may score 0.2. So each collection measures where similarity stops telling papers apart:

- pseudo-questions: up to PER_PAPER sentences (of MIN_WORDS words or more) of up to MAX_PAPERS papers, spread
  evenly over the collection; their vectors are the ones the docstore stored (embedded here only when the index
  keeps no sentence vectors or pooled ones: then PER_PAPER_EMBEDDED from each of MAX_PAPERS_EMBEDDED papers);
- each is scored against every passage (chunk vector) of its own paper and of all the other papers: it "finds its
  paper" when its own paper scores higher than any other;
- a logistic fit of "finds its paper" on its own-paper score gives the score at which pseudo-questions find their
  paper TARGET of the time: the floor. Below it, the best match says too little about which paper is meant.
- the same at sentence level (against the other sentences of its own paper, leaving itself out, and the sentences
  of the three nearest other papers) gives the sentence floor: a quoted sentence less similar than that does not
  address the question.

Costs one pass of matrix products over the stored vectors (no embedding with sentence vectors stored).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict

import numpy as np

from rag.index.docstore import DocStore
from rag.index.late_chunking import POOLING_PASSES
from rag.index.layout import Layout
from rag.text import split_sentences
from rag.types import Calibration

# the share of pseudo-questions that find their own paper first at the floor (both tuned on the dev splits): a
# passage must be a fairly sure match; a sentence only as likely to come from the right paper as from another
TARGET = 0.75
SENTENCE_TARGET = 0.5
MAX_PAPERS = 300
# when the pseudo-questions must be embedded (no sentence vectors, or pooled ones), embedding them is nearly all the
# calibration costs (600 of them: 11-13 CPU s, 15-17 % of a 300-abstract build; bench/bench_index_real.py): half then,
# two from each of MAX_PAPERS_EMBEDDED papers spread over the whole library (sentences of one paper resemble each
# other: more papers tell more than more sentences per paper). On PubMedQA's 422 abstracts the floor from 300 such
# questions lies within the sampling spread of the floor from 600 (bootstrap SD 0.009; BENCHMARKS.md section 9b)
MAX_PAPERS_EMBEDDED = 150
PER_PAPER_EMBEDDED = 2
PER_PAPER = 4
MIN_WORDS = 6
MIN_PAPERS = 50  # fewer papers: too few neighbours to measure where similarity stops telling papers apart
NEAREST = 3  # other papers whose sentences a pseudo-question is compared with at sentence level
BLOCK = 20_000  # chunk vectors per matrix product
FLOOR_RANGE = (0.0, 0.9)

Embed = Callable[[list[str]], np.ndarray]


def _papers(docs: DocStore) -> dict[str, list[int]]:
    rows: dict[str, list[int]] = {}
    for row, cid in enumerate(docs.ids):
        rows.setdefault(cid.rpartition(":")[0], []).append(row)
    return rows


def _sentences(docs: DocStore, rows: Sequence[int]) -> tuple[list[str], np.ndarray | None]:
    """A paper's distinct sentences (its windows overlap) and their stored vectors (None: not stored)."""
    texts: list[str] = []
    vectors: list[np.ndarray] = []
    for row in rows:
        chunk = docs.get(docs.ids[row])
        if chunk is None:
            continue
        sentences = split_sentences(chunk.text)
        stored = docs.sentence_vectors(chunk.id)
        for i, s in enumerate(sentences):
            if s not in texts:
                texts.append(s)
                if stored is not None and len(stored) == len(sentences):
                    vectors.append(stored[i])
    if len(vectors) == len(texts) and texts:
        return texts, np.stack(vectors).astype(np.float32)
    return texts, None


def picked(texts: Sequence[str], per_paper: int) -> list[int]:
    """Which of a paper's sentences are its pseudo-questions: up to `per_paper` long enough ones, spread out."""
    usable = [i for i, t in enumerate(texts) if len(t.split()) >= MIN_WORDS]
    return usable[:: max(1, len(usable) // per_paper)][:per_paper]


def spread_questions(docs: DocStore) -> list[tuple[str, int, str, np.ndarray | None]]:
    """The pseudo-questions that are embedded: PER_PAPER_EMBEDDED sentences from each of MAX_PAPERS_EMBEDDED
    papers spread over the whole library, as (paper, index among its sentences, text, its stored sentence
    vectors). The sentence map (rag.index.sentence_map) is fitted on the same sentences, so an embedder that
    remembers them embeds them once."""
    papers = _papers(docs)
    names = list(papers)
    count = min(len(names), MAX_PAPERS_EMBEDDED)
    out: list[tuple[str, int, str, np.ndarray | None]] = []
    for name in dict.fromkeys(names[round(k * (len(names) - 1) / max(1, count - 1))] for k in range(count)):
        texts, vecs = _sentences(docs, papers[name])
        out += [(name, i, texts[i], vecs) for i in picked(texts, PER_PAPER_EMBEDDED)]
    return out


def _fit_floor(own: np.ndarray, found: np.ndarray, target: float) -> float | None:
    """The own-paper score at which a logistic fit of `found` on `own` reaches `target`; None when it cannot be
    fitted (every pseudo-question found its paper, or none did, or finding it does not grow with the score) or lies
    above nearly every score seen (then no similarity level tells the papers apart)."""
    if len(own) < 10 or found.all() or not found.any():
        return None
    x = np.stack([np.ones_like(own), own], 1).astype(np.float64)
    w = np.zeros(2)
    for _ in range(100):  # Newton's method on the log-likelihood, with a little ridge for separable data
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        grad = x.T @ (found - p) - 1e-3 * w
        hess = -(x.T * (p * (1 - p))) @ x - 1e-3 * np.eye(2)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    floor = (np.log(target / (1 - target)) - w[0]) / w[1] if w[1] > 0 else np.inf
    if floor > np.percentile(own, 90):  # even the closest pseudo-questions rarely find their paper: not measurable
        return None
    return float(np.clip(floor, *FLOOR_RANGE))


def calibrate(
    docs: DocStore,
    fingerprint: str,
    embed: Embed | None = None,
    target: float = TARGET,
    sentence_target: float = SENTENCE_TARGET,
) -> Calibration | None:
    """The collection's floors (None: too few papers or sentences to measure)."""
    papers = _papers(docs)
    if len(papers) < MIN_PAPERS:
        return None
    names = list(papers)
    step = max(1, len(names) // MAX_PAPERS)
    sampled = names[::step][:MAX_PAPERS]
    number = {name: k for k, name in enumerate(names)}
    paper_of_row = np.empty(len(docs.ids), dtype=np.int64)
    for name, k in number.items():
        paper_of_row[papers[name]] = k
    questions: list[tuple[int, np.ndarray, np.ndarray | None, int]] = []  # (paper, vector, own sentences, index)
    # without usable stored sentence vectors only the pseudo-questions are embedded: (paper, text, sentences, index)
    to_embed: list[tuple[int, str, np.ndarray | None, int]] = []
    # sentence vectors pooled from the chunk's pass (rag.index.late_chunking) carry their chunk's context: a
    # question is encoded on its own, so they cannot stand in for one; the pseudo-questions are embedded then
    pooled = docs.info.get("sentence_pass") in POOLING_PASSES and embed is not None
    # mapped toward standalone encodings (rag.index.sentence_map), pooled vectors can be the sentences a question is
    # compared with at sentence level, though not the questions themselves
    mapped = pooled and bool(docs.info.get("sentence_map"))
    stand_in = docs.has_sentence_vectors and not pooled
    if stand_in:
        for name in sampled:
            texts, vecs = _sentences(docs, papers[name])
            for i in picked(texts, PER_PAPER):
                if vecs is not None:
                    questions.append((number[name], vecs[i], vecs, i))
                elif embed is not None:
                    to_embed.append((number[name], texts[i], None, 0))
    elif embed is not None:
        to_embed = [(number[name], text, vecs if mapped else None, i) for name, i, text, vecs in spread_questions(docs)]
    if to_embed and embed is not None:
        embedded = np.asarray(embed([t for _, t, _, _ in to_embed]), dtype=np.float32)
        questions += [(k, v, vecs, i) for (k, _, vecs, i), v in zip(to_embed, embedded, strict=True)]
    if len(questions) < 10:
        return None
    q = np.stack([v for _, v, _, _ in questions])
    owner = np.array([p for p, _, _, _ in questions])
    own = np.full(len(q), -2.0)
    other = np.full(len(q), -2.0)
    nearest: list[list[tuple[float, int]]] = [[] for _ in questions]
    vectors = np.asarray(docs.vectors, dtype=np.float32)
    for start in range(0, len(docs.ids), BLOCK):
        sims = q @ vectors[start : start + BLOCK].T
        mine = paper_of_row[start : start + BLOCK][None, :] == owner[:, None]
        own = np.maximum(own, np.where(mine, sims, -2.0).max(1))
        others = np.where(mine, -2.0, sims)
        other = np.maximum(other, others.max(1))
        for j, row in enumerate(others):  # the nearest other papers, for the sentence level
            best = np.argpartition(-row, min(NEAREST, len(row) - 1))[: NEAREST + 1]
            nearest[j] += [(float(row[b]), int(paper_of_row[start + b])) for b in best]
    floor = _fit_floor(own, own > other, target)
    if floor is None:
        return None
    sentence_floor = _sentence_floor(docs, papers, names, questions, nearest, sentence_target)
    papers_used = len(set(owner.tolist()))
    return Calibration(round(floor, 4), sentence_floor, target, len(questions), papers_used, fingerprint,
                       sentence_target)  # fmt: skip


def _sentence_floor(
    docs: DocStore,
    papers: dict[str, list[int]],
    names: list[str],
    questions: list[tuple[int, np.ndarray, np.ndarray | None, int]],
    nearest: list[list[tuple[float, int]]],
    target: float,
) -> float | None:
    """The same fit at sentence level, from stored sentence vectors only (None without them)."""
    own, other = [], []
    cache: dict[int, np.ndarray | None] = {}
    for (_, vector, sentences, i), near in zip(questions, nearest, strict=True):
        if sentences is None or len(sentences) < 2:
            continue
        rest = np.delete(sentences, i, axis=0) @ vector
        best_other = -2.0
        chosen = []
        for _, p in sorted(near, reverse=True):
            if p not in chosen:
                chosen.append(p)
        for p in chosen[:NEAREST]:
            if p not in cache:
                cache[p] = _sentences(docs, papers[names[p]])[1]
            vecs = cache[p]
            if vecs is None:
                return None
            best_other = max(best_other, float((vecs @ vector).max()))
        own.append(float(rest.max()))
        other.append(best_other)
    floor = _fit_floor(np.array(own), np.array(own) > np.array(other), target) if own else None
    return None if floor is None else round(floor, 4)


def to_json(calibration: Calibration) -> str:
    return json.dumps(asdict(calibration), sort_keys=True)


def from_json(text: object) -> Calibration | None:
    """A stored calibration, or None when there is none or it cannot be read."""
    if not isinstance(text, str) or not text:
        return None
    try:
        values = json.loads(text)
        return Calibration(
            floor=float(values["floor"]),
            sentence_floor=None if values.get("sentence_floor") is None else float(values["sentence_floor"]),
            target=float(values["target"]),
            questions=int(values["questions"]),
            papers=int(values["papers"]),
            fingerprint=str(values["fingerprint"]),
            sentence_target=float(values.get("sentence_target", SENTENCE_TARGET)),
        )
    except (ValueError, KeyError, TypeError):
        return None


def stored(layout: Layout, fingerprint: str | None = None) -> Calibration | None:
    """The calibration saved beside the collection's local copies (for `fingerprint`, when given)."""
    try:
        found = from_json(layout.calibration_file.read_text(encoding="utf-8"))
    except OSError:
        return None
    return found if found is not None and (fingerprint is None or found.fingerprint == fingerprint) else None


def ensure(layout: Layout, fingerprint: str, embed: Embed | None = None) -> Calibration | None:
    """The collection's calibration for `fingerprint`: the saved one when it fits, else derived now from the
    docstore and saved (atomically). None when the collection is too small to calibrate."""
    found = stored(layout, fingerprint)
    if found is not None:
        return found
    docs = DocStore.load(layout.docs_dir)
    if docs is None or docs.fingerprint != fingerprint:
        return None
    calibration = calibrate(docs, fingerprint, embed)
    tmp = layout.calibration_file.with_suffix(".tmp")
    if calibration is None:
        layout.calibration_file.unlink(missing_ok=True)
        return None
    tmp.write_text(to_json(calibration), encoding="utf-8")
    tmp.replace(layout.calibration_file)
    return calibration
