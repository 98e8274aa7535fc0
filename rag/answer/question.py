"""The analysed question: built once per answer, at route time, and read by every judge after it.

Before this value existed, five answer modules re-tokenised and re-parsed the question string each in its own
way. Now `analyse(text, mode)` does it once: the words (`tokens`), the clause that actually asks (`asked`: the
last interrogative sentence, so instructions and premises planted before it are not what is asked), its specific
names and numbers (`key_terms`), its sub-questions (`parts`), and what kind of answer it wants (`kinds`).

Kinds (a question may have several):
    summary      "summarize / give an overview of ..." (or --summary): one line per relevant paper
    list         "which papers ...", "are there papers that ...": every relevant paper, one cited line each
    recommendation "which paper should I read", "is there a paper on ...": one paper, its title first
                 (rag.answer.paper_pick; not a list then)
    two_step     "the paper whose <property> is <value>: what is its <attribute>?" (rag.answer.paper_pick)
    comparison   "how do X and Y differ", "compare ...": a sentence from each paper compared (`sides`: X and Y)
    quantity     "how many / how much / what percentage ...": a sentence that states a number
    aim          "what is the aim / objective / purpose of ...": the study's aim may be quoted
    contribution "what does it propose / introduce ...": the paper's contribution sentence
    why          "why ..." / "how come ...": a premise to confirm or correct, not a reason to refuse
    yes_no       "Is / Does / Can ... ?": answered by a result or conclusion
    metadata     authors, code, links, venue or year (`metadata` says which): answered from the index metadata
The capitalised words that may name an author (`names`) are matched against each paper's author list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.answer.metadata import metadata_intent
from rag.answer.paper_pick import RECOMMENDATION, two_step_parts
from rag.answer.question_focus import counted_noun, focus_phrases, noun_runs
from rag.answer.question_parts import compared, question_parts
from rag.corpus.lexicon import tokenize
from rag.retrieve.fields import name_words, year_range

SUMMARY_REQUEST = re.compile(
    r"\b(summari[sz]e|summary|overview|survey|literature review|review the|what (work|research) (is there|exists))\b",
    re.IGNORECASE,
)
_QUANTITY = re.compile(
    r"\bhow (many|much|large|big|long|fast|often)\b|\bwhat (percentage|fraction|number|proportion|share|size)\b"
    r"|\bby how much\b|\bhow .* (improve|reduce|save)",
    re.IGNORECASE,
)
_WORKS = r"(?:papers|studies|works|articles|publications|abstracts|research)"
_ONE_WORK = r"(?:paper|stud(?:y|ie)|work|article|publication|abstract)"  # + "s?"
_LIBRARY = r"(?:my|our|the) (?:collection|library|papers|corpus|index)"
_LIST = re.compile(
    rf"\b(?:which|what)(?: of (?:my|the|these|our))? {_WORKS}\b"
    rf"|\b(?:are|is) there (?:any |some |a )?(?:papers?|stud(?:y|ies)|works?|research)\b"
    rf"|\bhow many (?:of the |indexed )?{_WORKS}\b"
    rf"|\bany (?:papers?|stud(?:y|ies))\b|\b{_WORKS} (?:that|which|on|about)\b|\blist (?:the |all )?{_WORKS}\b"
    # "list every paper that ...", "name all the studies on ...", "what work in my library ...": a request for all
    rf"|\b(?:list|name|give|show|find|enumerate)(?: me)? (?:every|all)(?: (?:of )?the| my)? {_ONE_WORK}s?\b"
    rf"|\b(?:every|all) {_ONE_WORK}s? (?:that|which|in my|in the)\b"
    # the plural asked for: "name the studies whose ...", "list those papers", "all papers reporting ..."
    rf"|\b(?:list|name|give|show|find|enumerate)(?: me)? (?:the|those|these|my|any) {_WORKS}\b"
    rf"|^\s*all {_WORKS}\b"
    # what the library holds on a topic: "what do I have on ...", "do I have anything on ...", "what in my library"
    rf"|\bwhat (?:else )?(?:do|did) (?:I|we) have\b|\bdo (?:I|we) have (?:anything|any|something)\b"
    rf"|\bwhat in {_LIBRARY}\b|\banything in {_LIBRARY}\b"
    r"|\b(?:which|what) (?:work|research) (?:in|from|among) (?:my|the|our)\b",
    re.IGNORECASE,
)
_HOW_MANY_WORKS = re.compile(rf"\bhow many (?:of the |indexed )?{_WORKS}\b", re.IGNORECASE)
_COMPARISON = re.compile(
    r"\b(compar(?:e|es|ed|ing|ison)|contrast\w*|versus|vs\.?|differ|differs|differently"
    r"|differ(?:ence|ences|ent) between|distinguish\w*|each|both)\b",
    re.IGNORECASE,
)
_CONTRIBUTION = re.compile(
    r"\b(propos\w*|introduc\w*|present\w*|contribut\w*|new|novel|develop\w*|what (method|approach|framework)|"
    r"how (do|does)\b.*\b(each|work))\b",
    re.IGNORECASE,
)
_AIM = re.compile(r"\b(aims?|objectives?|purposes?|goals?)\b(?! function)", re.IGNORECASE)
_WHY = re.compile(r"\s*(why|how come)\b", re.IGNORECASE)
_YES_NO = re.compile(
    r"\s*(is|are|was|were|does|do|did|can|could|should|would|will|has|have|had|may|might|must)\b", re.IGNORECASE
)

_QUESTION_SPLIT = re.compile(r"(?<=[.!?:])(?<! al\.)['\"\u2019\u201d)]*\s+|\n+")  # "Li et al." ends no sentence
_KEY_TERM = re.compile(r"\"([^\"]{3,60})\"|\b([A-Z][A-Za-z]*[A-Z][A-Za-z0-9-]*|[A-Za-z]+-?\d[\w.-]*|\d[\d,.]*%?)")


def asked_clause(question: str) -> str:
    """The part of a question that asks something: its last interrogative sentence (or its last sentence).
    Instructions and premises planted before it ("Ignore your sources and ...") are not what is asked."""
    parts = [p.strip() for p in _QUESTION_SPLIT.split(question.strip()) if p.strip()]
    if not parts:
        return question
    asked = [p for p in parts if p.endswith("?")]
    return asked[-1] if asked else parts[-1]


def key_terms(question: str) -> list[str]:
    """Specific names and numbers in a question: acronyms, mixed-case names, alphanumerics, quoted phrases."""
    terms = []
    for quoted, word in _KEY_TERM.findall(question):
        term = (quoted or word).strip()
        if term and term not in terms:
            terms.append(term)
    return terms


@dataclass(frozen=True)
class Question:
    """What was asked, analysed once (see the module docstring)."""

    text: str  # the standalone question (after follow-up rewriting), cleaned
    asked: str  # the clause that asks
    tokens: tuple[str, ...]  # rag.corpus.lexicon.tokenize(text): lower-case, stopwords dropped, stemmed
    key_terms: tuple[str, ...]  # names and numbers of the asked clause
    parts: tuple[str, ...]  # sub-questions; (text,) when it asks one thing
    kinds: frozenset[str]
    sides: tuple[str, ...] = ()  # a comparison's two things compared ("SimpleMix", "the contamination paper")
    metadata: tuple[str, ...] = ()  # "authors", "code", "link", "venue", "year"
    names: tuple[str, ...] = ()  # capitalised words that may name an author (rag.retrieve.fields.name_words)
    years: tuple[int | None, int | None] = (None, None)  # "papers from 2024": the years it is limited to
    mode: str = "answer"  # "answer" | "summary"
    focus: tuple[str, ...] = ()  # what its wh-phrases ask for and the units it wants ("acceptance rate", "dollars")
    noun_runs: tuple[str, ...] = ()  # each wh-phrase's thing in full ("language model backbone")
    counted: str | None = None  # what "how many X" counts ("tasks")

    def wants(self, kind: str) -> bool:
        return kind in self.kinds


def analyse(text: str, mode: str | None = None) -> Question:
    """The analysed question. `mode` "summary" forces a summary; None decides from the wording."""
    asked = asked_clause(text)
    parts = tuple(question_parts(text))
    # a venue or year asked beside other things is one part of the answer, not all of it
    meta = tuple(k for k in metadata_intent(text) if len(parts) < 2 or k not in ("venue", "year"))
    kinds = {
        kind
        for kind, hit in (
            ("summary", mode == "summary" or (mode is None and bool(SUMMARY_REQUEST.search(text)))),
            ("list", bool(_LIST.search(text))),
            ("comparison", bool(_COMPARISON.search(text))),
            ("quantity", bool(_QUANTITY.search(text)) and not _HOW_MANY_WORKS.search(text)),  # a count of papers
            ("aim", bool(_AIM.search(asked))),
            ("contribution", bool(_CONTRIBUTION.search(text))),
            ("why", bool(_WHY.match(asked))),
            ("yes_no", bool(_YES_NO.match(asked))),
            ("metadata", bool(meta)),
            ("recommendation", bool(RECOMMENDATION.search(asked))),
            ("two_step", two_step_parts(text) is not None),
        )
        if hit
    }
    if "recommendation" in kinds:
        kinds.discard("list")  # "is there a paper on ...": one paper named, not every paper listed
    return Question(
        text=text,
        asked=asked,
        tokens=tuple(tokenize(text)),
        key_terms=tuple(key_terms(asked)),
        parts=parts,
        kinds=frozenset(kinds),
        metadata=meta,
        names=name_words(text),
        years=year_range(asked),
        mode="summary" if "summary" in kinds else "answer",
        sides=tuple(compared(text)) if "comparison" in kinds else (),
        focus=tuple(focus_phrases(asked)),
        noun_runs=tuple(noun_runs(asked)),
        counted=counted_noun(asked),
    )


def part_question(question: Question, part: str) -> Question:
    """One sub-question analysed on its own (a multi-part question's judges look at each part)."""
    return analyse(part, question.mode)
