"""Follow-up questions ("and which of them report parameter savings?") become standalone questions
before retrieval: by the LLM with prompts/condense_followup.md when one is configured, else by putting the
previous question's topic where the follow-up refers to it ("which of the continual learning papers report
parameter savings?"); the previous question itself is never glued on. The topic is a noun phrase: a verb phrase
("which of them saves parameters?") lends nothing (rag.answer.verb_slots). The previous question is the last one that
was answered: a refused turn is no part of the conversation a follow-up refers to, for the LLM too."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rag.answer.citations import REFUSAL
from rag.answer.verb_slots import verb_slots
from rag.corpus.lexicon import stem
from rag.errors import LLMError
from rag.ports import ChatModel, Message, complete
from rag.prompts import load_prompt
from rag.types import Usage

_FOLLOWUP = re.compile(
    r"\b(they|them|their|those|these|it|its|this one|that one|the former|the latter|which of|any of|each of|"
    r"the same|above|previous|also|more about)\b|^\s*(and|but|what about|how about|why|so)\b",
    re.IGNORECASE,
)


def looks_like_followup(question: str) -> bool:
    return bool(_FOLLOWUP.search(question)) or len(question.split()) <= 3


def answered(history: Sequence[Message]) -> list[tuple[Message, Message | None]]:
    """The conversation's turns (question, answer) that were not refused, in order. A refused turn's answer is the
    refusal (rag.answer.checked makes every abstention exactly REFUSAL); a follow-up never refers to it. A turn
    without an answer (it failed or was stopped) keeps its question."""
    turns: list[tuple[Message, Message | None]] = []
    for message in history:
        role, content = message.get("role"), str(message.get("content", "")).strip()
        if role == "user" and content:
            turns.append((message, None))
        elif role == "assistant" and turns and turns[-1][1] is None:
            if REFUSAL in content:
                turns.pop()
            else:
                turns[-1] = (turns[-1][0], message)
    return turns


def previous_question(history: Sequence[Message]) -> str | None:
    """The last answered question as it was searched: when it was a follow-up itself, resolved against the answered
    question before it ("and which of them saves parameters?" -> "... of the continual learning papers ...")."""
    questions = [str(q["content"]).strip() for q, _ in answered(history)]
    if not questions:
        return None
    resolved = questions[0]
    for question in questions[1:]:
        resolved = offline_standalone(question, resolved) if looks_like_followup(question) else question
    return resolved


def condense(question: str, history: Sequence[Message], chat: ChatModel | None, prompts_dir: Path) -> tuple[str, Usage]:
    """The standalone form of `question` given the conversation so far, and the tokens it cost."""
    previous = previous_question(history)
    if previous is None or not looks_like_followup(question):
        return question, Usage()
    fallback = offline_standalone(question, previous)
    if chat is None:
        return fallback, Usage()
    transcript = "\n".join(
        f"{m['role']}: {str(m['content'])[:1500]}" for turn in answered(history) for m in turn if m is not None
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
    main key new recent existing their its they them you your we our i us have has had""".split()
)
_THINGS = ("papers?|studies|study|works?|methods?|approach(?:es)?|models?|datasets?|benchmarks?|articles?|techniques?|"
           "algorithms?|systems?|ones?")  # fmt: skip
_HEADS = frozenset("dataset benchmark model method paper corpus framework algorithm library task challenge".split())
_AUX = r"(?:do|does|did|can|could|would|should|will|is|are)\b"  # "What papers do you have on …": no relative clause
_WHICH_THING = re.compile(
    rf"^\s*(?:(?:and|but|so|or)\s+)?(?:which|what)\s+({_THINGS})\s+(?!{_AUX})(.+?)[\s?.!]*$", re.IGNORECASE
)
_THE_GROUP = re.compile(r"\bthe\s+((?:[\w-]+\s+){1,4}?(?:papers|studies|works|methods|models|datasets))\b", re.I)
_REFERENCE = re.compile(
    rf"\b(?:(?P<of>of (?:them|those|these)(?:\s+(?P<n1>{_THINGS}))?)"
    rf"|(?P<many>(?:they|them|those|these)(?:\s+(?P<n2>{_THINGS}))?)"
    rf"|(?P<one>(?:this|that)\s+(?:{_THINGS})|the former|the latter|it)|(?P<own>its|their))\b",
    re.IGNORECASE,
)
_OWNED_AT_END = re.compile(r"\b(?:its|their)\s+([\w-]+(?:\s+[\w-]+){0,2})\s*([?.!]*)\s*$", re.IGNORECASE)
_VERBS = frozenset("need needs use uses report reports show shows require requires work works get gets do does make "
                   "makes have has beat beats outperform outperforms".split())  # fmt: skip


@dataclass(frozen=True)
class Referent:
    """What a follow-up's "it", "them", "its" stand for, as a noun phrase to put after "the": "paper that saves
    parameters" (relative: it names its own noun), "continual learning papers" (group), "Alberta dataset" (name)."""

    phrase: str
    kind: str  # "relative" | "group" | "name"


def topic_of(question: str) -> str:
    """The subject words of a question: "Summarize the continual learning papers" -> "continual learning"; "" when
    a word of them is the question's verb ("which of them saves parameters?": a verb phrase names nothing)."""
    words = re.findall(r"[\w-]+", question)
    if re.match(r"\s*\w+\s+(does|do|did)\b", question, re.IGNORECASE) and len(words) > 3:
        words = words[:-1]  # "What does the Alberta Wells Dataset contain?": the last word is the verb
    slots = verb_slots(words)
    kept = [i for i, w in enumerate(words) if w.lower() not in _SCAFFOLD and i not in slots.speakers]
    if slots.verbs.intersection(kept):
        return ""
    return " ".join(words[i] for i in kept[:6])


def _named(question: str) -> str:
    """The longest run of name-like words after the first word ("Alberta Wells Dataset", "PaperBench"), with a
    following head noun ("the Alberta dataset" -> "Alberta dataset")."""
    words = re.findall(r"[\w-]+", question)
    best: list[str] = []
    run: list[str] = []
    for i, word in enumerate([*words, ""]):
        name = i > 0 and word not in ("", "I") and any(c.isdigit() or c.isupper() for c in word)
        if name:
            run.append(word)
            continue
        if run and word.lower() in _HEADS:
            run.append(word)
        if len(run) > len(best):
            best = run
        run = []
    return " ".join(best)


def referent(previous: str) -> Referent:
    """The noun phrase a follow-up to `previous` refers to (phrase "" when the question names nothing)."""
    if m := _WHICH_THING.match(previous):
        return Referent(f"{m.group(1).lower()} that {m.group(2).strip()}", "relative")
    if name := _named(previous):
        return Referent(name, "name")
    if m := _THE_GROUP.search(previous):
        return Referent(" ".join(m.group(1).split()), "group")
    return Referent(topic_of(previous), "name")


def offline_standalone(question: str, previous: str) -> str:
    """The follow-up with its references resolved to what the previous question was about, without an LLM:
    "Summarize these papers" after "Which paper saves parameters?" -> "Summarize the paper that saves parameters"."""
    ref = referent(previous)
    if not ref.phrase:
        return question
    tail = ""
    if ref.kind == "relative" and re.search(r"\b(?:its|their)\b", question, re.IGNORECASE):
        owned = _OWNED_AT_END.search(question)
        if owned and not _VERBS.intersection(w.lower() for w in owned.group(1).split()):  # "its main result?"
            question = f"{question[: owned.start()]}the {owned.group(1)} of the {ref.phrase}{owned.group(2)}"
        else:  # "Does its benchmark need human grading?": the phrase would not fit inside
            tail = f" (the {ref.phrase})"

    def resolve(m: re.Match[str]) -> str:
        noun = m.group("n1") or m.group("n2")
        group = f"{ref.phrase} {noun or 'papers'}" if ref.kind == "name" else ref.phrase  # "these methods"
        if m.group("of"):
            return f"of the {group}"
        if m.group("many"):
            return f"the {group}"
        if m.group("one"):
            return f"the {ref.phrase}"
        return "the" if ref.kind == "relative" else f"the {ref.phrase}'s"

    resolved, count = _REFERENCE.subn(resolve, question, count=2)
    if tail:
        body = resolved.rstrip(" ?.!")
        return f"{body}{tail}{resolved[len(body) :].strip() or '?'}"
    if count == 0:  # nothing to resolve ("what about savings?"): say what it is about, unless it says so itself
        if ref.phrase.casefold() in question.casefold():
            return question
        return f"{question.rstrip(' ?')} ({ref.phrase})?"
    return re.sub(r"\bthe the\b", "the", resolved, flags=re.IGNORECASE)


def adds_words(question: str, standalone: str) -> bool:
    """Whether the rewritten question says more than the follow-up: a word that is not scaffolding, in no form
    the follow-up has ("its" -> "the" or "paper" -> "papers" adds nothing worth showing)."""

    def content(text: str) -> set[str]:
        return {stem(w) for w in re.findall(r"[\w-]+", text.casefold()) if w not in _SCAFFOLD}

    return bool(content(standalone) - content(question))
