"""What a question asks, in parts: "What imagery does it use, and who sourced the records?" asks two things, and
an answer needs a sentence for each. Also which retrieved papers a question names ("How do SimpleMix and
PreSelect ..."): a question naming two papers wants both."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.corpus.lexicon import tokenize
from rag.types import Hit

_GENERIC = frozenset(tokenize("paper study work approach method framework model dataset one other"))

_WH = r"(?:what|which|who|whom|whose|how|when|where|why)"
_AUX = r"(?:does|do|did|is|are|was|were|can|could|has|have)"
# a new part starts at ";", at "and" followed by a wh-word within three words ("and up to how many"), or at
# at "," followed by a wh-word, or at ", and" followed by an auxiliary ("..., and does it ..."; but "How much, in
# euros, did ..." is one question)
_SPLIT = re.compile(
    rf";\s*|,?\s+and\s+(?=(?:\w+\s+){{0,3}}{_WH}\b)|,\s+(?={_WH}\b)|,\s+and\s+(?={_AUX}\b)", re.IGNORECASE
)
_SENTENCE = re.compile(r"(?<=[?.!])\s+")
_NAME = re.compile(r"\b[A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9-]*\b|\b[A-Z]{2,}[a-z]?\b")  # SimpleMix, PaperBench, KDS
_IDENTIFIER = re.compile(r"\b(?=[A-Za-z-]*\d)(?=[\d-]*[A-Za-z])[A-Za-z0-9][A-Za-z0-9-]*[A-Za-z0-9]\b")  # Zorp123, GPT-4


def question_parts(question: str, max_parts: int = 3) -> list[str]:
    """The sub-questions of a question (the whole question when it asks one thing)."""
    sentences = [s for s in _SENTENCE.split(question.strip()) if s.strip()]
    asked = [s for s in sentences if s.rstrip().endswith("?")] or sentences  # instructions around it are not asked
    parts = [p.strip(" ,.?") for s in asked for p in _SPLIT.split(s) if p and len(p.split()) >= 3]
    return parts[:max_parts] if len(parts) > 1 else [question]


_END = r"(?=\s*(?:[?.,;:]|$|\s(?:in|on|when|for|regarding|with respect to)\s))"
_SIDES = [re.compile(p, re.IGNORECASE) for p in (
    rf"\bbetween\s+(?P<a>.+?)\s+and\s+(?P<b>.+?){_END}",
    rf"\b(?:compare|contrast)\s+(?P<a>.+?)\s+(?:with|to|and|against)\s+(?P<b>.+?){_END}",
    r"\b(?:do|does|did)\s+(?P<a>.+?)\s+and\s+(?P<b>.+?)\s+(?:differ|compare|each|both)\b",
    r"\b(?:how|in what ways?)\s+(?:do|does|did)\s+(?P<a>.+?)\s+and\s+(?P<b>(?:the\s+)?[\w-]+(?:\s+(?:paper|study|"
    r"work|method|approach|dataset|model|framework))?)\s+\w+.*\bdifferent(?:ly)?\b",
    rf"\b(?:do|does|did|is|are)\s+(?P<a>.+?)\s+(?:differ|different)\s+from\s+(?P<b>.+?){_END}",
    rf"\bdistinguishes\s+(?:the\s+)?(?:\w+\s+){{0,4}}?of\s+(?P<a>.+?)\s+and\s+(?P<b>.+?){_END}",
    rf"^(?:\W*)(?P<a>.+?)\s+(?:versus|vs\.?)\s+(?P<b>.+?){_END}",
)]  # fmt: skip


def compared(question: str) -> list[str]:
    """The two things a comparison compares: "How do SEFE and DPCR differ" -> ["SEFE", "DPCR"]; [] when its
    wording has no two sides."""
    for pattern in _SIDES:
        m = pattern.search(question)
        if m:
            sides = [re.sub(r"^(?:the|a|an)\s+", "", m.group(side).strip(" ,'\""), flags=re.IGNORECASE)
                     for side in ("a", "b")]  # fmt: skip
            if all(sides) and all(len(s) <= 80 for s in sides):
                return sides
    return []


def side_paper(side: str, hits: Sequence[Hit]) -> int | None:
    """The source (1-based) a side of a comparison means: the one whose title (counted twice) and text share the
    most of the side's words ("the contamination paper", "PreSelect"); None when no source shares any."""
    words = set(tokenize(side)) - _GENERIC
    if not words:
        return None
    scores = [2 * len(words & set(tokenize(h.paper.title))) + len(words & set(tokenize(h.text))) for h in hits]
    best = max(scores, default=0)
    return scores.index(best) + 1 if best > 0 else None


def _names(hit: Hit) -> set[str]:
    """Names of a paper: acronyms and mixed-case names in its title (and the title's lead before a colon,
    "PaperBench: Evaluating ..."), and those its abstract uses more than once ("we propose DPCR ... DPCR ...")."""
    title = hit.paper.title
    lead = title.split(":", 1)[0].strip()
    names = set(_NAME.findall(title))
    if ":" in title and len(lead.split()) <= 3:
        names.add(lead)
    used = _NAME.findall(hit.text)
    names |= {n for n in set(used) if used.count(n) > 1}
    return {n for n in names if len(n) >= 3}


def named_papers(question: str, hits: Sequence[Hit]) -> list[int]:
    """Source numbers (1-based) of the retrieved papers the question names by a name only that paper uses (a name
    several papers use, "LLMs", names none of them); the first source of each, when a paper has several windows."""
    q = question.lower()
    texts = [f"{h.paper.title} {h.text}".lower() for h in hits]
    out: list[int] = []
    for n, h in enumerate(hits, 1):
        if any(hits[m - 1].paper.id == h.paper.id for m in out):  # a full-text paper's further windows: named once
            continue
        for name in _names(h):
            pattern = rf"\b{re.escape(name.lower())}\b"
            if not re.search(pattern, q):  # most names are not the question's: the sources are not searched
                continue
            papers = {hits[m].paper.id for m, t in enumerate(texts) if re.search(pattern, t)}  # papers, not windows
            if len(papers) == 1:
                out.append(n)
                break
    return out


def identified_paper(question: str, hits: Sequence[Hit]) -> int | None:
    """The source (1-based) that an identifier in the question points at: the question holds letter-and-digit
    identifiers ("Zorp123"), and exactly one retrieved source mentions them (in its title or text). Near-duplicate
    papers that differ in such names are told apart this way. (Acronyms such as "LLM" are left out: that only one
    of the few retrieved sources spells one out says little.)"""
    terms = {t.lower() for t in _IDENTIFIER.findall(question) if len(t) >= 3}
    if not terms:
        return None
    texts = [f"{h.paper.title} {h.text}".lower() for h in hits]
    mentioned = {tuple(n for n, text in enumerate(texts, 1) if re.search(rf"\b{re.escape(t)}\b", text)) for t in terms}
    mentioned.discard(())  # a name no source mentions says nothing here (the abstention check handles it)
    only = next(iter(mentioned)) if len(mentioned) == 1 else ()
    return only[0] if only and len({hits[n - 1].paper.id for n in only}) == 1 else None  # windows of one paper
