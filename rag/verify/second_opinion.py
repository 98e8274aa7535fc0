"""The LLM second opinion (`verify = "llm"`, "auto" for answers from an LLM endpoint, `rag check --llm-check`):
the claims the offline check passed are labelled by the model against the sources each cites, a few per call
(prompts/verify_claims.md). It only ever adds flags: a sentence either check rejects is unsupported. A failed or
unreadable call leaves the offline verdicts, with a note. Answers and drafts both come here, as (claim, cited
sources) pairs: the numbering the model sees is made here, per call."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rag.errors import LLMError
from rag.ports import ChatModel, complete
from rag.prompts import format_sources, load_prompt
from rag.types import Hit, Usage

_JSON = re.compile(r"\{.*\}", re.DOTALL)
BATCH = 6  # claims per call: a prompt holds every abstract they cite
Claim = tuple[str, Sequence[Hit]]  # a sentence (its citation markers removed) and the sources it cites


@dataclass(frozen=True)
class LLMVerdicts:
    rejected: frozenset[int]  # indexes (into the claims given) the model judged unsupported
    usage: Usage
    error: str | None = None  # why the check could not run


# claims -> the model's verdicts (rag.factory builds one for a configured chat model)
SecondOpinion = Callable[[Sequence[Claim]], LLMVerdicts]


def _numbered(claims: Sequence[Claim]) -> tuple[list[Hit], str]:
    """The sources the claims cite, each once, and the claims as the prompt lists them: "1. text (cites: [2])"."""
    shown: list[Hit] = []
    lines = []
    for i, (text, cited) in enumerate(claims, 1):
        numbers = []
        for hit in cited:
            if all(h.paper.id != hit.paper.id for h in shown):
                shown.append(hit)
            numbers.append(next(n for n, h in enumerate(shown, 1) if h.paper.id == hit.paper.id))
        lines.append(f"{i}. {text} (cites: {', '.join(f'[{n}]' for n in dict.fromkeys(numbers)) or 'nothing'})")
    return shown, "\n".join(lines)


def llm_check(chat: ChatModel, claims: Sequence[Claim], prompts_dir: Path, max_tokens: int = 512,
              batch: int = BATCH) -> LLMVerdicts:  # fmt: skip
    """Ask the model which claims their cited sources do not support, `batch` claims per call."""
    rejected: set[int] = set()
    usage = Usage()
    prompt = load_prompt(prompts_dir, "verify_claims")
    for start in range(0, len(claims), batch):
        part = claims[start : start + batch]
        shown, listed = _numbered(part)
        content = prompt.render(sources=format_sources(shown), claims=listed)
        try:
            text, used = complete(chat, [{"role": "user", "content": content}], max_tokens=max_tokens,
                                  temperature=0.0)  # fmt: skip
        except LLMError as exc:
            return LLMVerdicts(frozenset(), usage, f"the LLM check failed ({exc})")
        usage = Usage(usage.prompt_tokens + used.prompt_tokens, usage.completion_tokens + used.completion_tokens)
        found = parse_verdicts(text, len(part))
        if found is None:
            return LLMVerdicts(frozenset(), usage, "the LLM check's reply was not the JSON asked for")
        rejected.update(start + j for j in found)
    return LLMVerdicts(frozenset(rejected), usage)


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
