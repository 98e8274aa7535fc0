"""Which words of a question stand where its verb stands, found by structure rather than by a list of verbs.

A word right after a subject pronoun is that subject's verb: "which of them *saves* parameters", "who *evaluated*
it", "how was it *collected*" (after the auxiliary: "do any of them *outperform* ...", "were they *trained* ..."; not
"are they *faster*", where a predicate follows the copula). A follow-up borrows a phrase of the previous question
only when no word of it stands there (rag.answer.followup): "saves parameters" is a verb phrase, not a topic.
A verb whose subject is a speaker ("what do you *know* about ...", "can I *see* ...") says nothing about the papers;
it is kept apart so that the phrase around it can still be borrowed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SUBJECTS = frozenset("they it he she who".split())
_SPEAKERS = frozenset("i we you".split())
_PARTITIVE = frozenset("them these those".split())  # subjects after "of": "which of them", "either of those"
_DO = frozenset("do does did can could will would should may might must".split())  # a bare verb follows
_BE_HAVE = frozenset("is are was were be been being has have had".split())  # a participle, or a predicate, follows
_ADVERBS = frozenset("also not still only ever really actually all both each".split())
_PARTICIPLE = re.compile(r"(?:ed|en|ing)$")


@dataclass(frozen=True)
class VerbSlots:
    """Indexes (into the question's words) of verbs about the papers, and of verbs whose subject is a speaker."""

    verbs: frozenset[int]
    speakers: frozenset[int]


def _skip(words: list[str], j: int) -> int:
    while j < len(words) and words[j] in _ADVERBS:
        j += 1
    return j


def _verb_after(words: list[str], i: int) -> int | None:
    """The index of the verb of the subject at i, if the words after it have one."""
    j = _skip(words, i + 1)
    if j >= len(words):
        return None
    if words[j] in _DO or words[j] in _BE_HAVE:
        aux, j = words[j], _skip(words, j + 1)
        if j < len(words) and (aux in _DO or _PARTICIPLE.search(words[j])):
            return j
        return None
    return j


def verb_slots(words: list[str]) -> VerbSlots:
    lower = [w.lower() for w in words]
    verbs: set[int] = set()
    speakers: set[int] = set()
    for i, word in enumerate(lower):
        partitive = word in _PARTITIVE and i > 0 and lower[i - 1] == "of"
        if word in _SUBJECTS or partitive or word in _SPEAKERS:
            verb = _verb_after(lower, i)
            if verb is not None:
                (speakers if word in _SPEAKERS else verbs).add(verb)
    return VerbSlots(frozenset(verbs), frozenset(speakers))
