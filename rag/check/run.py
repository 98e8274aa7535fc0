"""A parsed draft -> a CheckReport: each sentence checked against the library papers it cites, the way an answer's
sentences are (rag.answer.grounding.SupportChecker, one seam for answers and drafts).

Per sentence: the library is searched with the sentence (the Retriever the Assistant uses). A sentence that cites
library papers gets `verdict_among(claim, cited, retrieved)`: supported, not found, contradicted, or wrong paper
(another retrieved paper says it). A supported sentence citing several papers in several places is then checked
clause by clause, as an answer is (rag.answer.attribution): "Dual-Arch is 87% more compact [@b], while PaperBench
has 8,316 tasks [@a]" is wrong paper when 87% is only in a, whose citation closes the other clause. A sentence
that cites nothing is `uncited`, and (unless it speaks of the draft's own work: "We propose ...", "Our results
...", "In this paper ...") each retrieved paper that supports it on its own is suggested. A sentence whose every
key is unknown is `not in library`, with suggestions too. With a second opinion (the LLM check of
rag.answer.llm_check), sentences the offline check passed are sent in batches; one the LLM rejects becomes `not
found` (it only ever adds flags, as for answers).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from rag.answer.attribution import misattributed
from rag.answer.grounding import SupportChecker, Verdict, number_evidence
from rag.answer.injection import untrusted
from rag.answer.llm_check import LLMVerdicts
from rag.answer.sentence_vectors import SentenceVectors
from rag.answer.sources import whole_abstracts
from rag.check.draft import Draft, DraftSentence
from rag.check.render import shown_key
from rag.check.report import NOT_IN_LIBRARY, CheckReport, Cite, PaperRef, SentenceResult
from rag.check.resolve import Library
from rag.errors import QuestionError
from rag.retrieve.retriever import Retriever
from rag.safe_text import neutralise_markdown
from rag.text import split_sentences
from rag.types import NOT_FOUND, SUPPORTED, UNCITED, WRONG_PAPER, Hit, Paper

SecondOpinion = Callable[[Sequence[str], Sequence[Hit]], LLMVerdicts]
Progress = Callable[[int, int], None]
LLM_BATCH = 6  # sentences per LLM call: a prompt holds their cited abstracts
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
        verdict = self.checker.verdict_among(sentence.claim, cited, hits)
        if verdict.supported and len(cited) > 1:
            clause = self._per_clause(base, sentence, {r.key: r.paper.id for r in resolved if r.paper}, cited)
            if clause is not None:
                return clause
        return self._with_verdict(base, verdict, cited, hits)

    def _per_clause(self, base: SentenceResult, sentence: DraftSentence, papers: Mapping[str, str],
                    cited: Sequence[Hit]) -> SentenceResult | None:  # fmt: skip
        """Wrong paper when a number or name of a clause is only in a paper another clause cites: the draft's
        citation groups become the answer path's [n] markers (n: the paper's place in `cited`), and the answer
        path's attribution check (rag.answer.attribution.misattributed) judges it. `papers`: key -> paper id."""
        number = {key: next(n for n, h in enumerate(cited, 1) if h.paper.id == pid) for key, pid in papers.items()}
        keys = set(sentence.keys)

        def markers(m: re.Match[str]) -> str:
            group = [k.strip() for k in m.group(1).split(";")]
            if not all(k in keys for k in group):
                return m.group(0)  # brackets of the sentence itself, not a citation
            return "".join(f"[{n}]" for n in dict.fromkeys(number[k] for k in group if k in number))

        marked = _GROUP.sub(markers, sentence.text)
        sources = {n: h for n, h in enumerate(cited, 1) if not untrusted(h)}
        found = misattributed(marked, sources, {n: number_evidence(h) for n, h in sources.items()})
        if found is None:
            return None
        term, own, where = found
        key = {n: next(k for k in sentence.keys if number.get(k) == n) for n in (own, where)}
        quote = next((s for s in split_sentences(number_evidence(sources[where]).replace("\n", ". ")) if term in s),
                     None)  # fmt: skip
        paper = PaperRef.of(sources[where].paper)
        return replace(base, label=WRONG_PAPER, evidence=quote, evidence_paper=paper if quote else None,
                       supported_by=(paper,), reason=f"{term!r} is in {shown_key(key[where])}, not in "
                       f"{shown_key(key[own])} which its clause cites")  # fmt: skip

    def _source(self, paper: Paper, hits: Sequence[Hit]) -> Hit:
        return next((h for h in hits if h.paper.id == paper.id and h.page is None), None) or paper_hit(paper)

    def _with_verdict(self, base: SentenceResult, v: Verdict, cited: Sequence[Hit], hits: Sequence[Hit]
                      ) -> SentenceResult:  # fmt: skip
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

    def check(self, draft: Draft, *, name: str, collection: str, references: Mapping[str, str] | None = None,
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

    def _second_opinion(self, results: list[SentenceResult], draft: Draft, refs: Mapping[str, str],
                        judge: SecondOpinion) -> tuple[list[SentenceResult], str | None]:  # fmt: skip
        passed = [i for i, r in enumerate(results) if r.label == SUPPORTED]
        out = list(results)
        for start in range(0, len(passed), LLM_BATCH):
            batch = passed[start : start + LLM_BATCH]
            hits: list[Hit] = []
            claims: list[str] = []
            for i in batch:
                numbers = []
                for c in results[i].cites:
                    paper = self.library.by_id.get(c.paper.id) if c.paper else None
                    if paper is None:
                        continue
                    if all(h.paper.id != paper.id for h in hits):
                        hits.append(paper_hit(paper))
                    numbers.append(next(n for n, h in enumerate(hits, 1) if h.paper.id == paper.id))
                claims.append(draft.sentences[i].claim + " " + "".join(f"[{n}]" for n in dict.fromkeys(numbers)))
            verdicts = judge(claims, hits)
            if verdicts.error:
                return results, f"{verdicts.error}; sentences were checked offline only"
            for j, i in enumerate(batch):
                rejected = j in verdicts.rejected
                out[i] = replace(out[i], checks=("offline", "llm"), llm="unsupported" if rejected else "supported",
                                 label=NOT_FOUND if rejected else out[i].label,
                                 reason="the LLM check found it unsupported" if rejected else out[i].reason)
        return out, None


def _unknown_reason(keys: Sequence[str], references: Mapping[str, str]) -> str:
    """ "smith2019 is not in the library"; a numbered citation without an entry says so."""
    listless = [k for k in keys if k.isdigit() and k not in references]
    if listless:
        return f"{', '.join(f'[{k}]' for k in listless)}: no such entry in the draft's reference list"
    return f"{', '.join(keys)} {'is' if len(keys) == 1 else 'are'} not in the library"
