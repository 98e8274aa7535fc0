"""Optional LLM-as-judge scores (only with `rag eval --judge`).

* faithfulness (RAGAS-style): the judge splits the answer into statements and marks each as supported or not
  by the answer's sources; score = supported / statements, in [0, 1].
* answer relevance: the judge rates 1-5 how well the answer addresses the question.

Both are judged only for answered questions (not abstentions, not failed questions). The judge must reply
with a JSON object; a reply that cannot be parsed scores None and is counted as unparsable, never as 0.
These scores are a model's opinion: they are reported apart from the deterministic metrics.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from typing import TYPE_CHECKING, Any

from eval.metrics import mean
from rag.errors import LLMError, RagError
from rag.ports import ChatModel, complete
from rag.prompts import format_sources, load_prompt, prompt_id
from rag.types import Hit, Paper

if TYPE_CHECKING:
    from rag.answer.assistant import Assistant

__all__ = ["JudgeUnavailable", "parse_faithfulness", "parse_json_object", "parse_relevance", "run_judge"]

MAX_CONSECUTIVE_FAILURES = 3  # endpoint failures in a row before the judge gives up on the rest
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)
_SCORE = re.compile(r'"?score"?\s*[:=]\s*"?([1-5](?:\.\d+)?)', re.IGNORECASE)


class JudgeUnavailable(RagError):
    """--judge was asked for without an OpenAI-compatible endpoint."""


def parse_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in a model reply (code fences and chatter around it tolerated); None if there is none."""
    if not text:
        return None
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    for cand in candidates:
        start = cand.find("{")
        while start != -1:
            try:
                obj, _ = decoder.raw_decode(cand[start:])
            except json.JSONDecodeError:
                start = cand.find("{", start + 1)
                continue
            if isinstance(obj, dict):
                return obj
            start = cand.find("{", start + 1)
    return None


def _truthy(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return value > 0
    if isinstance(value, str):
        v = value.strip().lower()
        if v in {"true", "yes", "supported", "1"}:
            return True
        if v in {"false", "no", "unsupported", "not supported", "0"}:
            return False
    return None


def parse_faithfulness(text: str) -> tuple[float | None, int]:
    """(share of supported statements, number of statements) from a judge reply; (None, 0) when unusable."""
    obj = parse_json_object(text)
    if obj is None:
        return None, 0
    statements = obj.get("statements")
    if isinstance(statements, list):
        verdicts = [_truthy(s.get("supported")) if isinstance(s, dict) else None for s in statements]
        known = [v for v in verdicts if v is not None]
        if not known:
            return None, 0
        return sum(known) / len(known), len(known)
    supported, total = obj.get("supported"), obj.get("total")
    if isinstance(supported, (int, float)) and isinstance(total, (int, float)) and total > 0:
        return max(0.0, min(1.0, supported / total)), int(total)
    score = obj.get("faithfulness", obj.get("score"))
    if isinstance(score, (int, float)) and 0.0 <= score <= 1.0:
        return float(score), 0
    return None, 0


def parse_relevance(text: str) -> float | None:
    """The 1-5 relevance score from a judge reply; None when there is none in range."""
    obj = parse_json_object(text)
    value: Any = None
    if obj is not None:
        value = obj.get("score", obj.get("relevance"))
        if isinstance(value, str):
            try:
                value = float(value.strip())
            except ValueError:
                value = None
    else:
        m = _SCORE.search(text or "")
        value = float(m.group(1)) if m else None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 1 <= value <= 5:
        return None
    return float(value)


def judge_model(assistant: Assistant, model: str | None = None) -> ChatModel:
    """The judge's ChatModel; JudgeUnavailable when no OpenAI-compatible endpoint is configured."""
    if not assistant.chats.configured():
        raise JudgeUnavailable(
            "--judge needs an OpenAI-compatible endpoint: set OPENAI_BASE_URL (and OPENAI_API_KEY if it needs one), "
            "pass --base-url, or use RAG_PRESET"
        )
    return assistant.chats.chat("openai", model)


class _Sources:
    """Paper abstracts by id, looked up once, rendered as the answer step numbers them."""

    def __init__(self, assistant: Assistant) -> None:
        self._assistant = assistant
        self._papers: dict[str, Paper | None] = {}

    def render(self, paper_ids: Sequence[str]) -> str:
        hits: list[Hit] = []
        for pid in paper_ids:
            if pid not in self._papers:
                self._papers[pid] = self._assistant.retriever.paper(pid)
            paper = self._papers[pid]
            if paper is None:  # keep the numbering: [n] must still mean the n-th source
                paper = Paper(id=pid, title=pid, abstract="(abstract not found in the index)")
            hits.append(Hit(paper=paper, chunk_id=f"{pid}:0", text=paper.abstract, score=0.0))
        return format_sources(hits)


def run_judge(
    assistant: Assistant,
    results: Sequence[MutableMapping[str, Any]],
    *,
    model: str | None = None,
    chat: ChatModel | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Judge every answered result; adds ``result["judge"]`` to each and returns the aggregate block.

    The block: backend, model, prompt, n_judged, faithfulness (mean), answer_relevance (mean of 1-5),
    unparsable counts, failures, by_type, and `stopped` (a reason) when the endpoint kept failing.
    """
    chat = chat or judge_model(assistant, model)
    settings = assistant.settings
    faith_prompt = load_prompt(settings.prompts_dir, "judge_faithfulness")
    rel_prompt = load_prompt(settings.prompts_dir, "judge_relevance")
    sources = _Sources(assistant)

    todo = [r for r in results if not r.get("error") and not r.get("abstained") and str(r.get("answer") or "").strip()]
    for r in results:
        r["judge"] = None
    unparsable = {"faithfulness": 0, "answer_relevance": 0}
    failures = 0
    consecutive = 0
    stopped: str | None = None

    def ask(prompt_text: str, max_tokens: int) -> str | None:
        nonlocal failures, consecutive, stopped
        try:
            text, _usage = complete(chat, [{"role": "user", "content": prompt_text}], max_tokens=max_tokens,
                                    temperature=0.0)
        except LLMError as exc:
            failures += 1
            consecutive += 1
            if consecutive >= MAX_CONSECUTIVE_FAILURES:
                stopped = f"stopped after {consecutive} endpoint failures in a row: {' '.join(str(exc).split())}"
            return None
        consecutive = 0
        return text

    if progress:
        progress(0, len(todo))
    for i, r in enumerate(todo, start=1):
        if stopped:
            break
        question, answer = str(r["question"]), str(r["answer"])
        verdict: dict[str, Any] = {"faithfulness": None, "statements": 0, "answer_relevance": None}
        sources_text = sources.render(r.get("sources") or [])
        reply = ask(faith_prompt.render(question=question, answer=answer, sources=sources_text), 900)
        if reply is not None:
            verdict["faithfulness"], verdict["statements"] = parse_faithfulness(reply)
            unparsable["faithfulness"] += verdict["faithfulness"] is None
        if not stopped:
            reply = ask(rel_prompt.render(question=question, answer=answer), 200)
            if reply is not None:
                verdict["answer_relevance"] = parse_relevance(reply)
                unparsable["answer_relevance"] += verdict["answer_relevance"] is None
        r["judge"] = verdict
        if progress:
            progress(i, len(todo))

    judged = [
        r for r in results
        if r.get("judge") and (r["judge"]["faithfulness"] is not None or r["judge"]["answer_relevance"] is not None)
    ]
    by_type: dict[str, list[Mapping[str, Any]]] = {}
    for r in judged:
        by_type.setdefault(str(r.get("type") or "unknown"), []).append(r)
    return {
        "backend": getattr(chat, "backend", "openai"),
        "model": getattr(chat, "model", model or ""),
        "prompt": prompt_id(faith_prompt, rel_prompt),
        "n_eligible": len(todo),
        "n_judged": len(judged),
        "judged_share": len(judged) / len(todo) if todo else None,  # gated: a judge that judged nothing fails
        "faithfulness": mean(r["judge"]["faithfulness"] for r in judged),
        "answer_relevance": mean(r["judge"]["answer_relevance"] for r in judged),
        "unparsable": unparsable,
        "failures": failures,
        "stopped": stopped,
        "by_type": {
            t: {
                "n": len(rs),
                "faithfulness": mean(r["judge"]["faithfulness"] for r in rs),
                "answer_relevance": mean(r["judge"]["answer_relevance"] for r in rs),
            }
            for t, rs in sorted(by_type.items())
        },
    }
