"""A parsed draft -> a CheckReport: each sentence checked against the library papers it cites, the way an answer's
sentences are (rag.verify.checker.SupportChecker, one seam for answers and drafts).

Per sentence: the library is searched with the sentence. A sentence that cites library papers is cut at its
citation groups into clauses and handed to the verify stage's one entry point, `SupportChecker.check(claim, cited,
retrieved, clauses, names)`: supported, not found, contradicted, or wrong paper (another retrieved paper says it,
or, clause by clause as for answers, another paper the sentence cites): "Dual-Arch is 87% more compact [@b],
while PaperBench has 8,316 tasks [@a]" is wrong paper when 87% is only in a, whose citation closes the other
clause. A sentence that cites nothing is `uncited`, and (unless it speaks of the draft's own work: "We propose
...", "Our results ...", "In this paper ...") each retrieved paper that supports it on its own is suggested. A
sentence whose every key is unknown is `not in library`, with suggestions too. With a second opinion (the LLM check of
rag.verify.second_opinion, which batches for answers and drafts alike), sentences the offline check passed are
judged by the model; one it rejects becomes `not found` (it only ever adds flags, as for answers).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from rag.check.draft import DraftSentence, Manuscript
from rag.check.render import shown_key
from rag.check.report import CheckReport, Cite, PaperRef, SentenceResult, invisible_note
from rag.check.resolve import Library
from rag.errors import QuestionError
from rag.ports import SupportJudge
from rag.retrieve.retriever import Retriever
from rag.retrieve.whole_abstracts import whole_abstracts
from rag.safe_text import neutralise_markdown, show_invisible
from rag.settings import AnswerSettings
from rag.types import NOT_FOUND, SUPPORTED, UNCITED, WRONG_PAPER, Hit, Paper
from rag.verify.checker import Clause, SupportChecker, Verdict, checker_for
from rag.verify.labels import NOT_IN_LIBRARY
from rag.verify.second_opinion import SecondOpinion
from rag.verify.sentence_vectors import SentenceVectors

Progress = Callable[[int, int], None]
SUGGEST_FROM = 3  # an uncited sentence: how many of the best retrieved papers are tried as a suggested citation
# a sentence about the draft's own work ("In this paper we propose ...", "Our experiments show ..."): no library
# paper can back it, and a general one ("a new method for continual learning") finds a paper that seems to
_LEAD = r"(?:(?:here|in this (?:paper|work|study|article|section|chapter|thesis)|to this end|finally|first(?:ly)?|" \
    r"second(?:ly)?|then|next|thus|therefore|hence|moreover|furthermore|in addition|specifically|overall|in summary|" \
    r"to our knowledge|in particular|instead|in contrast|however)\s*,?\s*)*"
_SUBJECT = r"(?:we|our|us|this (?:paper|work|study|article|thesis|section|chapter))\b"
_OWN_WORK = re.compile(r"(?:[^,.;:!?]{1,60},\s*)?" + _LEAD + _SUBJECT, re.I)  # "Motivated by this, we ..." too
_GROUP = re.compile(r"\[([^\[\]]+)\]")  # a citation group as DraftSentence.text shows it: [key; key]


def own_work(claim: str) -> bool:
    """Whether the sentence speaks of the draft's own work: "We ...", "Our ...", "In this paper, ...", "Here we"."""
    return _OWN_WORK.match(claim.strip(" \"'(")) is not None


def paper_hit(paper: Paper) -> Hit:
    """A library paper as a source to check against: its whole abstract."""
    return Hit(paper, f"{paper.id}:0", paper.abstract, 1.0)


class DraftChecker:
    """Checks drafts against one opened library (thread-safe as its parts are: the UI checks for several visitors)."""

    def __init__(self, checker: SupportChecker, retriever: Retriever, library: Library, *, k: int = 5,
                 vectors: SentenceVectors | None = None) -> None:  # fmt: skip
        self.checker = checker
        self.retriever = retriever
        self.library = library
        self.k = k
        self.vectors = vectors

    @classmethod
    def over(cls, retriever: Retriever, library: Library, settings: AnswerSettings, *, k: int = 5,
             model: SupportJudge | None = None) -> DraftChecker:  # fmt: skip
        """The checker the settings ask for (rag.verify.checker.checker_for), over `retriever`'s library."""
        vectors = SentenceVectors(retriever.embedder)
        return cls(checker_for(settings, vectors, model), retriever, library, k=k, vectors=vectors)

    def retrieved(self, claim: str) -> list[Hit]:
        """The library's best papers for the sentence, each widened to its whole abstract."""
        try:
            found = self.retriever.search(claim, self.k)
        except QuestionError:
            return []
        hits, stored = whole_abstracts(found, self.retriever)
        if self.vectors is not None:
            self.vectors.remember(stored)
        return list(hits)

    def check_sentence(self, n: int, sentence: DraftSentence, references: Mapping[str, str]) -> SentenceResult:
        resolved = [self.library.resolve(key, references) for key in sentence.keys]
        cites = tuple(Cite(r.key, PaperRef.of(r.paper) if r.paper else None, r.matched_by) for r in resolved)
        base = SentenceResult(n, sentence.line, sentence.text, cites, UNCITED, file=sentence.file)
        if not sentence.keys and own_work(sentence.claim):  # nothing to search for
            return replace(base, reason="cites nothing; it speaks of the draft's own work, so no citation is "
                           "suggested")  # fmt: skip
        hits = self.retrieved(sentence.claim)
        papers = list({r.paper.id: r.paper for r in resolved if r.paper is not None}.values())
        if not papers:
            label = NOT_IN_LIBRARY if sentence.keys else UNCITED
            reason = _unknown_reason(sentence.keys, references) if sentence.keys else "cites nothing"
            return self._suggest(replace(base, label=label, reason=reason), sentence.claim, hits)
        cited = [self._source(p, hits) for p in papers]
        number = {r.key: next(n for n, p in enumerate(papers, 1) if p.id == r.paper.id)
                  for r in resolved if r.paper is not None}  # fmt: skip
        names = [shown_key(next(k for k in sentence.keys if number.get(k) == n)) for n in range(1, len(papers) + 1)]
        verdict = self.checker.check(sentence.claim, cited, hits, clauses(sentence, number), names)
        return self._with_verdict(base, verdict, cited, hits)

    def _source(self, paper: Paper, hits: Sequence[Hit]) -> Hit:
        return next((h for h in hits if h.paper.id == paper.id and h.page is None), None) or paper_hit(paper)

    def _with_verdict(self, base: SentenceResult, v: Verdict, cited: Sequence[Hit], hits: Sequence[Hit]
                      ) -> SentenceResult:  # fmt: skip
        if v.cited_instead is not None:  # a clause's number or name is in a paper another clause cites
            paper = PaperRef.of(cited[v.cited_instead].paper)
            quote = v.evidence[0][1] if v.evidence else None
            return replace(base, label=v.label, reason=v.reason, evidence=quote,
                           evidence_paper=paper if quote else None, supported_by=(paper,))  # fmt: skip
        if v.label == WRONG_PAPER:
            backing = [PaperRef.of(hits[j].paper) for j in v.supported_by]
            text = v.evidence[0][1] if v.evidence else None
            return replace(base, label=v.label, reason=v.reason, evidence=text,
                           evidence_paper=backing[0] if backing else None, supported_by=tuple(backing))  # fmt: skip
        if v.evidence:
            i, text = v.evidence[0]
            paper = PaperRef.of(cited[i].paper)
            return replace(base, label=v.label, reason=v.reason, evidence=text, evidence_paper=paper)
        return replace(base, label=v.label, reason=v.reason)

    def _suggest(self, result: SentenceResult, claim: str, hits: Sequence[Hit]) -> SentenceResult:
        backing = [(h, v) for h in hits[:SUGGEST_FROM] for v in [self.checker.verdict(claim, [h])] if v.supported]
        if not backing:
            return result
        first, verdict = backing[0]
        evidence = verdict.evidence[0][1] if verdict.evidence else None
        return replace(result, supported_by=tuple(PaperRef.of(h.paper) for h, _ in backing), evidence=evidence,
                       evidence_paper=PaperRef.of(first.paper))  # fmt: skip

    def check(self, draft: Manuscript, *, name: str, collection: str, references: Mapping[str, str] | None = None,
              progress: Progress | None = None, second_opinion: SecondOpinion | None = None,
              bibliography: Sequence[str] = ()) -> CheckReport:  # fmt: skip
        """Every sentence of the draft checked; `references`: more reference entries (the draft's .bib), the
        draft's own list wins."""
        started = time.perf_counter()
        refs = {**(references or {}), **draft.references}
        results: list[SentenceResult] = []
        total = len(draft.sentences)
        for n, sentence in enumerate(draft.sentences, 1):
            results.append(self.check_sentence(n, sentence, refs))
            if progress is not None:
                progress(n, total)
        checks: tuple[str, ...] = ("offline",)
        notes = list(draft.notes)  # what of the draft was not read (an included file not found ...)
        if second_opinion is not None:
            results, note = self._second_opinion(results, draft, refs, second_opinion)
            checks = ("offline", "llm") if note is None else checks
            notes += [note] if note else []
        results = [replace(r, text=neutralise_markdown(r.text)) for r in results]
        return CheckReport(name, draft.format, tuple(results), len(self.library), collection, checks, tuple(notes),
                           time.perf_counter() - started, tuple(bibliography))  # fmt: skip

    def _second_opinion(self, results: list[SentenceResult], draft: Manuscript, refs: Mapping[str, str],
                        judge: SecondOpinion) -> tuple[list[SentenceResult], str | None]:  # fmt: skip
        passed = [i for i, r in enumerate(results) if r.label == SUPPORTED]
        papers = self.library.by_id
        claims = [(draft.sentences[i].claim, [paper_hit(papers[c.paper.id]) for c in results[i].cites
                   if c.paper is not None and c.paper.id in papers]) for i in passed]  # fmt: skip
        verdicts = judge(claims)
        if verdicts.error:
            return results, f"{verdicts.error}; sentences were checked offline only"
        out = list(results)
        for j, i in enumerate(passed):
            rejected = j in verdicts.rejected
            out[i] = replace(out[i], checks=("offline", "llm"), llm="unsupported" if rejected else "supported",
                             label=NOT_FOUND if rejected else out[i].label,
                             reason="the LLM check found it unsupported" if rejected else out[i].reason)
        return out, None


def clauses(sentence: DraftSentence, number: Mapping[str, int]) -> list[Clause]:
    """The sentence cut after each run of its citation groups: (text, the cited papers' places in `number`). Text
    after the last run belongs to the last clause; brackets that are not citations stay in the text."""
    keys = set(sentence.keys)
    out: list[Clause] = []
    pos = 0
    run: list[re.Match[str]] = []
    groups = [m for m in _GROUP.finditer(sentence.text) if all(k.strip() in keys for k in m.group(1).split(";"))]
    for m in groups:
        if run and sentence.text[run[-1].end() : m.start()].strip() == "":
            run.append(m)
            continue
        if run:
            out.append(_clause(sentence.text, pos, run, number))
            pos = run[-1].end()
        run = [m]
    if run:
        out.append(_clause(sentence.text, pos, run, number))
        pos = run[-1].end()
    if out and sentence.text[pos:].strip(" .;:!?"):
        text, numbers = out[-1]
        out[-1] = (text + sentence.text[pos:], numbers)
    return out


def _clause(text: str, pos: int, run: Sequence[re.Match[str]], number: Mapping[str, int]) -> Clause:
    keys = [k.strip() for m in run for k in m.group(1).split(";")]
    start = run[0].start()
    while start > pos and text[start - 1].isspace():  # the space before a citation is not the clause's
        start -= 1
    return text[pos:start], tuple(dict.fromkeys(number[k] for k in keys if k in number))


def _unknown_reason(keys: Sequence[str], references: Mapping[str, str]) -> str:
    """ "smith2019 is not in the library"; a numbered citation without an entry says so; a key holding an invisible
    character says that too (rag.check.report.invisible_note)."""
    listless = [k for k in keys if k.isdigit() and k not in references]
    if listless:
        return f"{', '.join(f'[{k}]' for k in listless)}: no such entry in the draft's reference list"
    hidden = [note for k in keys if (note := invisible_note(k)) is not None]
    return "; ".join([f"{', '.join(map(show_invisible, keys))} {'is' if len(keys) == 1 else 'are'} not in the library",
                      *hidden])  # fmt: skip
