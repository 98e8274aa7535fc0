"""Run a question set through one Assistant (models loaded once) and score retrieval baselines.

Per question the runner records what `summarize()` in eval.metrics needs, plus what a reader needs to see
why a question went wrong. A failing question is recorded with its error and the run goes on.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from eval.findings import finding_scores
from eval.metrics import mean, ndcg_at_k, recall_at_k, reciprocal_rank
from eval.questions import Question
from rag.errors import RagError

if TYPE_CHECKING:
    from rag.answer.assistant import Assistant
    from rag.retrieve.retriever import Retriever

__all__ = ["BASELINE_MODES", "RETRIEVED_K", "run_eval", "run_retrieval_baselines", "run_searches"]

RETRIEVED_K = 10  # ranked papers recorded per question for retrieval metrics (recall@1..10, MRR, nDCG@10)
BASELINE_MODES = ("hybrid", "dense", "lexical")

Progress = Callable[[int, int], None]


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    if isinstance(exc, RagError):
        return text or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _retrieved_k(assistant: Assistant, k: int | None) -> int:
    """Enough ranked papers to contain every source of the answer (summary mode uses 2k), at least 10."""
    settings = assistant.retriever.settings
    return max(1, min(settings.max_k, max(RETRIEVED_K, 2 * (k or settings.k))))


def _base_result(q: Question) -> dict[str, Any]:
    return {
        "id": q.id,
        "question": q.question,
        "type": q.type,
        "gold": None if q.gold is None else list(q.gold),
        "answer": "",
        "citations": [],
        "retrieved": [],
        "sources": [],
        "abstained": False,
        "unsupported": [],
        "n_sentences": 0,
        "must_include": list(q.must_include),
        "must_not_include": list(q.must_not_include),
        "latency_s": None,
        "backend": None,
        "model": None,
        "prompt": None,
        "prompt_tokens": None,
        "completion_tokens": None,
        "notes": [],
        "abstain_reason": None,
        "checks": [],
        "finding": None,
        "error": None,
    }


def run_one(
    assistant: Assistant,
    q: Question,
    *,
    llm: str | None = None,
    model: str | None = None,
    k: int | None = None,
    findings: Sequence[str] = (),
) -> dict[str, Any]:
    """Answer one question and record the ranked retrieval; never raises for a RagError or a bug. `findings`:
    the own paper's conclusion and results sentences, when known (eval.findings)."""
    result = _base_result(q)
    query = q.question
    try:
        answer = assistant.ask(q.question, llm=llm, model=model, k=k)
    except Exception as exc:  # a failing question must not stop the run
        result["error"] = _one_line(exc)
    else:
        query = answer.standalone_question or q.question
        result.update(
            answer=answer.text,
            citations=[c.paper_id for c in answer.citations],
            sources=[h.paper.id for h in answer.sources],
            abstained=bool(answer.abstained),
            unsupported=list(answer.unsupported),
            n_sentences=int(answer.checked_sentences),
            latency_s=float(answer.latency_s),
            backend=answer.backend,
            model=answer.model,
            prompt=answer.prompt,
            prompt_tokens=answer.usage.prompt_tokens,
            completion_tokens=answer.usage.completion_tokens,
            notes=list(answer.notes),
            abstain_reason=answer.abstain_reason,
            checks=list(answer.checks),
            finding=None if answer.abstained else finding_scores(answer.text, findings),
        )
    try:
        hits = assistant.retriever.search(query, _retrieved_k(assistant, k), mode="hybrid")
        result["retrieved"] = [h.paper.id for h in hits]
    except Exception as exc:
        if result["error"] is None:
            result["error"] = "retrieval: " + _one_line(exc)
    return result


def _warm_up(assistant: Assistant, text: str) -> None:
    with contextlib.suppress(Exception):  # the real run records any failure per question
        assistant.retriever.search(" ".join(text.split()) or "warm up", 1)


def run_eval(
    assistant: Assistant,
    questions: Sequence[Question],
    *,
    llm: str | None = None,
    model: str | None = None,
    k: int | None = None,
    progress: Progress | None = None,
    warmup: bool = True,
    findings: Mapping[str, Sequence[str]] | None = None,
) -> list[dict[str, Any]]:
    """One result dict per question, in order (keys: see README). `progress(done, total)` after each question.
    `findings`: question id -> its own paper's finding sentences (eval.findings.load_findings).

    With `warmup`, one search runs first so that loading the embedder is not counted in the first latency.
    """
    results: list[dict[str, Any]] = []
    total = len(questions)
    if warmup and questions:
        _warm_up(assistant, questions[0].question)
    if progress:
        progress(0, total)
    for i, q in enumerate(questions, start=1):
        results.append(run_one(assistant, q, llm=llm, model=model, k=k, findings=(findings or {}).get(q.id, ())))
        if progress:
            progress(i, total)
    return results


def run_searches(
    retriever: Retriever, questions: Sequence[Question], *, progress: Progress | None = None
) -> list[dict[str, Any]]:
    """A retrieval-only suite (claims to find evidence for, not questions to answer): the ranked papers of the
    hybrid search per question, marked `search_only` so no answer metric is computed from them."""
    rows: list[dict[str, Any]] = []
    for i, q in enumerate(questions, start=1):
        row = {"id": q.id, "question": q.question, "type": q.type, "gold": None if q.gold is None else list(q.gold),
               "retrieved": [], "search_only": True, "error": None}  # fmt: skip
        try:
            row["retrieved"] = [h.paper.id for h in retriever.search(" ".join(q.question.split()), RETRIEVED_K)]
        except RagError as exc:
            row["error"] = _one_line(exc)
        rows.append(row)
        if progress:
            progress(i, len(questions))
    return rows


def _retrieval_block(rankings: Sequence[tuple[Sequence[str], Sequence[str]]]) -> dict[str, Any]:
    block: dict[str, Any] = {"n": len(rankings)}
    for k in (1, 3, 5, 10):
        block[f"recall@{k}"] = mean(recall_at_k(r, g, k) for r, g in rankings)
    block["mrr"] = mean(reciprocal_rank(r, g) for r, g in rankings)
    block["ndcg@10"] = mean(ndcg_at_k(r, g, 10) for r, g in rankings)
    block["recall_curve"] = [mean(recall_at_k(r, g, k) for r, g in rankings) for k in range(1, RETRIEVED_K + 1)]
    return block


def run_retrieval_baselines(
    retriever: Retriever,
    questions: Sequence[Question],
    *,
    modes: Sequence[str] = BASELINE_MODES,
    progress: Progress | None = None,
) -> dict[str, dict[str, Any]]:
    """Retrieval-only scores per search mode on the same questions (those with non-empty gold).

    Each mode's dict: n, recall@1/3/5/10, mrr, ndcg@10, recall_curve (recall@1..10) and errors (count).
    """
    answerable = [q for q in questions if q.gold]
    out: dict[str, dict[str, Any]] = {}
    total = len(answerable) * len(modes)
    done = 0
    for mode in modes:
        rankings: list[tuple[Sequence[str], Sequence[str]]] = []
        errors = 0
        started = time.perf_counter()
        for q in answerable:
            assert q.gold is not None
            try:
                query = " ".join(q.question.split())
                ranked = [h.paper.id for h in retriever.search(query, RETRIEVED_K, mode=mode)]
            except RagError:
                ranked, errors = [], errors + 1
            rankings.append((ranked, q.gold))
            done += 1
            if progress:
                progress(done, total)
        block = _retrieval_block(rankings)
        block["errors"] = errors
        block["seconds"] = time.perf_counter() - started
        out[mode] = block
    return out
