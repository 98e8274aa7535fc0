"""The LLM support check (`verify = "llm"`, or "auto" for answers from an LLM endpoint): one batched call
labels every claim against the sources it cites (prompts/verify_claims.md). It only ever adds flags: a
sentence either check rejects is unsupported. A failed or unreadable call leaves the offline verdicts, with a
note."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rag.answer.citations import format_sources, parse_markers, strip_markers
from rag.answer.prompts import load_prompt
from rag.errors import LLMError
from rag.ports import ChatModel, complete
from rag.types import Hit, Usage

_JSON = re.compile(r"\{.*\}", re.DOTALL)


@dataclass(frozen=True)
class LLMVerdicts:
    rejected: frozenset[int]  # indexes (into the sentences given) the model judged unsupported
    usage: Usage
    error: str | None = None  # why the check could not run


def llm_check(
    chat: ChatModel, sentences: Sequence[str], hits: Sequence[Hit], prompts_dir: Path, max_tokens: int = 512
) -> LLMVerdicts:
    """Ask the model which of `sentences` (with their [n] markers) the cited hits do not support."""
    if not sentences:
        return LLMVerdicts(frozenset(), Usage())
    cited = sorted({n for s in sentences for n in parse_markers(s) if 1 <= n <= len(hits)})
    # keep the prompt's numbering: every source up to the highest cited one, the uncited ones shortened
    shown = [hits[n - 1] for n in range(1, (max(cited) if cited else 0) + 1)]
    claims = "\n".join(
        f"{i}. {strip_markers(s)} (cites: {', '.join(f'[{n}]' for n in parse_markers(s)) or 'nothing'})"
        for i, s in enumerate(sentences, 1)
    )
    prompt = load_prompt(prompts_dir, "verify_claims")
    content = prompt.render(sources=format_sources(shown), claims=claims)
    try:
        text, usage = complete(chat, [{"role": "user", "content": content}], max_tokens=max_tokens, temperature=0.0)
    except LLMError as exc:
        return LLMVerdicts(frozenset(), Usage(), f"the LLM check failed ({exc})")
    rejected = parse_verdicts(text, len(sentences))
    if rejected is None:
        return LLMVerdicts(frozenset(), usage, "the LLM check's reply was not the JSON asked for")
    return LLMVerdicts(rejected, usage)


def parse_verdicts(text: str, count: int) -> frozenset[int] | None:
    """Indexes (0-based) of the claims labelled unsupported; None when the reply is unusable."""
    found = _JSON.search(text or "")
    if not found:
        return None
    try:
        data = json.loads(found.group(0))
    except ValueError:
        return None
    items = data.get("claims") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return None
    rejected = set()
    for position, item in enumerate(items):
        if not isinstance(item, dict):
            return None
        index = item.get("id", position + 1)
        if not isinstance(index, int) or not 1 <= index <= count:
            continue
        if item.get("supported") is False:
            rejected.add(index - 1)
    return frozenset(rejected)
