"""Follow-up questions ("and which of them report parameter savings?") become standalone questions
before retrieval: by the LLM with prompts/condense_followup.md when one is configured, else by carrying
the previous question's words along."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from rag.answer.prompts import load_prompt
from rag.errors import LLMError
from rag.ports import ChatModel, Message, complete
from rag.types import Usage

_FOLLOWUP = re.compile(
    r"\b(they|them|their|those|these|it|its|this one|that one|the former|the latter|which of|any of|each of|"
    r"the same|above|previous|also|more about)\b|^\s*(and|but|what about|how about|why|so)\b",
    re.IGNORECASE,
)


def looks_like_followup(question: str) -> bool:
    return bool(_FOLLOWUP.search(question)) or len(question.split()) <= 3


def last_user_question(history: Sequence[Message]) -> str | None:
    for message in reversed(history):
        if message.get("role") == "user" and str(message.get("content", "")).strip():
            return str(message["content"]).strip()
    return None


def condense(
    question: str, history: Sequence[Message], chat: ChatModel | None, prompts_dir: Path
) -> tuple[str, Usage]:
    """The standalone form of `question` given the conversation so far, and the tokens it cost."""
    previous = last_user_question(history)
    if previous is None or not looks_like_followup(question):
        return question, Usage()
    fallback = f"{previous} {question}"
    if chat is None:
        return fallback, Usage()
    transcript = "\n".join(
        f"{m['role']}: {str(m['content'])[:1500]}" for m in history if m.get("role") in ("user", "assistant")
    )
    prompt = load_prompt(prompts_dir, "condense_followup")
    try:
        text, usage = complete(
            chat,
            [{"role": "user", "content": prompt.render(history=transcript, question=question)}],
            max_tokens=96,
            temperature=0.0,
        )
    except LLMError:
        return fallback, Usage()
    text = text.strip().strip('"').splitlines()[0].strip() if text.strip() else ""
    if not text or len(text) > 3 * len(fallback) + 50:
        return fallback, usage  # a model that rambles does not get to steer retrieval
    return text, usage
