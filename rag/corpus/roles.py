"""Sentence roles: what each sentence of an abstract does (background, objective, method, result, conclusion).

Shared by the indexer (which records each chunk's roles with the paper's whole abstract in view), the answer step
(which leads with the result or conclusion that answers) and summaries (each paper's main finding). A structured
abstract's own labels ("RESULTS:", PubMed's section labels, kept through the readers as `Paper.abstract_sections`)
decide when the source has them; otherwise cue phrases and the sentence's position in the abstract do.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.types import AbstractSection

BACKGROUND, OBJECTIVE, METHOD, RESULT, CONCLUSION = "background", "objective", "method", "result", "conclusion"
ROLES = (BACKGROUND, OBJECTIVE, METHOD, RESULT, CONCLUSION)
FINDINGS = frozenset({RESULT, CONCLUSION})  # what an answer leads with

# a label's words -> role; the first word group that matches decides ("BACKGROUND AND AIMS" -> objective: the
# aim is what the part states; "METHODS AND RESULTS" -> result)
_LABEL_WORDS: tuple[tuple[str, str], ...] = (
    (r"conclu|interpretation|implication|significance|discussion|summary|take[- ]home|relevance", CONCLUSION),
    (r"result|finding|observation|outcome(?!\s+measure)|data synthesis|main results", RESULT),
    (r"aim|objective|purpose|goal|hypothes|question|rationale", OBJECTIVE),
    (r"method|design|setting|patient|participant|subject|material|intervention|measure|procedure|data source|"
     r"study selection|data extraction|sample|population|analysis|protocol", METHOD),
    (r"background|introduction|context|importance|motivation|premise", BACKGROUND),
)  # fmt: skip
_INLINE_LABEL = re.compile(r"^\s*([A-Z][A-Z ,&/-]{2,60}):\s+")  # "RESULTS: ..." at a sentence's start

_CUES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(in conclusion|we conclude|these (results|findings|data) (suggest|indicate|show|support)|"
                r"our (results|findings) (suggest|indicate|show)|this (study|work) (shows|demonstrates|suggests))\b",
                re.I), CONCLUSION),
    (re.compile(r"\b(the (aim|objective|purpose|goal) of|we (aimed|sought|set out|investigate[ds]?|examine[ds]?)|"
                r"this study (aims|aimed|investigate[ds]?|examine[ds]?|evaluate[ds]?)|to (determine|assess|evaluate|"
                r"investigate|examine) (whether|if|the))\b", re.I), OBJECTIVE),
    (re.compile(r"\b(we (found|show|observed?|demonstrate|achieve|report)|results? (show|showed|indicate|"
                r"demonstrate)|significantly|p\s*[<=>]\s*0?\.\d|odds ratio|\bOR\b|confidence interval|"
                r"outperform\w*|improve[sd]?\b.*\bby\b|(increase|decrease|reduc)\w* (of|by) \d)", re.I), RESULT),
    (re.compile(r"\b(we (propose|introduce|present|develop|design|use[d]?|train(ed)?|collect(ed)?|"
                r"recruit(ed)?|enroll?(ed)?|analy[sz]ed)|were (randomi[sz]ed|enrolled|recruited|included|assigned)|"
                r"retrospective|prospective|cohort|randomi[sz]ed)\b", re.I), METHOD),
)  # fmt: skip


def role_of_label(label: str) -> str | None:
    """The role a structured abstract's section label stands for ("MATERIALS AND METHODS" -> method)."""
    text = label.strip().lower()
    for words, role in _LABEL_WORDS:
        if re.search(words, text):
            return role
    return None


def _cue_role(sentence: str) -> str | None:
    for pattern, role in _CUES:
        if pattern.search(sentence):
            return role
    return None


_OPEN_QUESTION = re.compile(r"\b(?:remains?|is|are|was|were) (?:still |largely )?(?:elusive|unclear|unknown|debated|"
                            r"controversial|(?:poorly|incompletely|not (?:well |fully )?)(?:understood|described|"
                            r"studied|known))\b|\bhas not been (?:well )?(?:studied|described|examined|investigated)\b",
                            re.I)  # fmt: skip


def states_no_finding(sentence: str) -> bool:
    """An aim ("To determine whether ...", "OBJECTIVE: ...") or an open question ("... remains elusive"): the
    sentence asks, it does not say which way a result went."""
    inline = _INLINE_LABEL.match(sentence)
    if inline and role_of_label(inline.group(1)) == OBJECTIVE:
        return True
    return _cue_role(sentence) == OBJECTIVE or bool(_OPEN_QUESTION.search(sentence))


_OTHERS_VIEW = re.compile(
    r"\b(?:some|other|prior|previous|earlier|existing|many|several)\s+(?:studies|works?|research(?:ers)?|methods|"
    r"approaches|papers|authors)\s+(?:\w+\s+){0,2}(?:suggest|claim|argue|report|assume|believe|indicate|show|find|"
    r"found)\w*|\bit (?:is|has been) (?:commonly|widely|often|generally) (?:believed|assumed|thought|held)\b",
    re.I,
)


def reports_others_view(sentence: str) -> bool:
    """The sentence tells what other work holds ("some studies suggest that ...", "it is widely believed ..."):
    background the paper argues with, not its own finding."""
    return bool(_OTHERS_VIEW.search(sentence))

def _norm(text: str) -> str:
    return re.sub(r"\W+", " ", text).strip().lower()


def sentence_roles(
    sentences: Sequence[str], sections: Sequence[AbstractSection] = (), *, first: int = 0, total: int | None = None
) -> list[str]:
    """One role per sentence. `sections`: the paper's labelled parts (decide where a sentence lies inside one);
    `first`/`total`: the sentences' position in the whole abstract (a chunk window starts at `first` of `total`),
    for the position rule: an unlabelled, uncued first sentence is background, a last one a conclusion."""
    total = len(sentences) + first if total is None else total
    labelled = [(_norm(s.text), role_of_label(s.label)) for s in sections]
    out: list[str] = []
    for i, sentence in enumerate(sentences):
        role: str | None = None
        inline = _INLINE_LABEL.match(sentence)
        if inline:
            role = role_of_label(inline.group(1))
        if role is None and labelled:
            norm = _norm(sentence)
            role = next((r for text, r in labelled if r and norm and norm in text), None)
        role = role or _cue_role(sentence)
        if role is None:
            at = first + i
            role = BACKGROUND if at == 0 else CONCLUSION if at == total - 1 and total > 2 else METHOD
        out.append(role)
    return out


# -- compact form, one letter a sentence: what the index stores per chunk ("bomrrc") ------------------------------
_LETTER = {BACKGROUND: "b", OBJECTIVE: "o", METHOD: "m", RESULT: "r", CONCLUSION: "c"}
_ROLE = {letter: role for role, letter in _LETTER.items()}


def encode_roles(roles: Sequence[str]) -> str:
    return "".join(_LETTER[r] for r in roles)


def decode_roles(code: object, count: int) -> tuple[str, ...]:
    """The roles a chunk's metadata stores, when they are one per sentence of its text (`count`); else ()."""
    if not isinstance(code, str) or len(code) != count or any(c not in _ROLE for c in code):
        return ()
    return tuple(_ROLE[c] for c in code)


def window_roles(window: Sequence[str], sentences: Sequence[str], roles: Sequence[str]) -> list[str]:
    """Roles of a window of an abstract's sentences (a chunk), given the whole abstract's `sentences` and their
    `roles`: each window sentence is found in order (a sentence cut into pieces takes the role of the one it is
    part of); one that cannot be found keeps the role before it."""
    out: list[str] = []
    at = 0
    for piece in window:
        found = next((i for i in range(at, len(sentences)) if piece == sentences[i]), None)
        if found is None:
            found = next((i for i in range(at, len(sentences)) if piece in sentences[i]), None)
        if found is None:
            out.append(out[-1] if out else (roles[at] if at < len(roles) else METHOD))
            continue
        out.append(roles[found])
        at = found if piece != sentences[found] else found + 1
    return out
