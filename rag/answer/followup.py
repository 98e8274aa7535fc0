"""Follow-up questions ("and which of them report parameter savings?") become standalone questions
before retrieval: by the LLM with prompts/condense_followup.md when one is configured, else by putting the
previous question's topic where the follow-up refers to it ("which of the continual learning papers report
parameter savings?"); the previous question itself is never glued on."""

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
    fallback = offline_standalone(question, previous)
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


_SCAFFOLD = frozenset(
    """summarize summarise summary overview give me tell show list find explain describe compare what which who how
    when where why is are was were do does did can could would should please the a an of on about in for to and or
    papers paper work works study studies research literature review that this these those there any all some
    main key new recent existing their its they them""".split()
)
_REFERENCE = re.compile(
    r"\b(?:(of) (?:them|those|these)|(they|them|those|these|these papers|those papers)|(this one|that one|"
    r"the former|the latter|it)|(its|their))\b",
    re.IGNORECASE,
)


def topic_of(question: str) -> str:
    """The subject words of a question: "Summarize the continual learning papers" -> "continual learning"."""
    words = re.findall(r"[\w-]+", question)
    if re.match(r"\s*\w+\s+(does|do|did)\b", question, re.IGNORECASE) and len(words) > 3:
        words = words[:-1]  # "What does the Alberta Wells Dataset contain?": the last word is the verb
    kept = [w for w in words if w.lower() not in _SCAFFOLD]
    return " ".join(kept[:6])


def offline_standalone(question: str, previous: str) -> str:
    """The follow-up with its references resolved to the previous question's topic, without an LLM."""
    topic = topic_of(previous)
    if not topic:
        return question

    def resolve(m: re.Match[str]) -> str:
        if m.group(1):
            return f"of the {topic} papers"
        if m.group(2):
            return f"the {topic} papers"
        if m.group(3):
            return f"the {topic} paper"
        return f"the {topic} paper's"

    resolved, count = _REFERENCE.subn(resolve, question, count=2)
    return resolved if count else f"{question.rstrip(' ?')} ({topic})?"
