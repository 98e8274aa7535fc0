"""Is a sentence supported by the sources it cites?

No NLI model ships in any package here, so support is judged from what is: exact containment, numbers
(every number in a claim must appear in a cited source), content-word overlap, and sentence-level
embedding similarity with the same local embedder the index uses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from rag.corpus.lexicon import tokenize
from rag.corpus.roles import reports_others_view, states_no_finding
from rag.ports import SupportJudge
from rag.settings import AnswerSettings
from rag.text import split_sentences
from rag.types import CONTRADICTED, NOT_FOUND, SUPPORTED, UNCITED, WRONG_PAPER, Hit
from rag.verify import comparisons, rules
from rag.verify.attribution import misattributed
from rag.verify.evidence_choice import carrying_first
from rag.verify.injection import untrusted
from rag.verify.learned import Judge
from rag.verify.names import links, quantities, rounded_away
from rag.verify.number_words import number_word_mismatch
from rag.verify.sentence_vectors import SentenceVectors
from rag.verify.verdict import Clause, Verdict
from rag.verify.vocabulary import SourceVocabulary

_BULLET = re.compile(r"^\s*(?:[-*\u2022]\s+)")
# the rules of rag.verify.rules, in the order they are tried. A rule that caught substituted two-word terms
# ("logistic regression" for "ridge regression") was dropped: on the claims test split it flagged 4 faithful
# sentences for 3 wrong ones caught.
RULES = ("terms", "number_words", "units", "strong", "polarity", "direction", "comparison", "swap")
# the rules whose failure means the cited paper says otherwise (CONTRADICTED), not merely that it does not say it
# a cited sentence this close makes the claim a paraphrase: a rare lower-case word it adds ("neurotransmission") is
# wording, not an invented term (names, acronyms and numbers are still checked)
PARAPHRASE = 0.7  # dev: SciFact supported flagged 65 -> 56/185, contradicted caught 50 -> 48/103, claims dev -1 catch
NO_SENTENCE = "no cited sentence says this"  # the reason when only the similarity step failed
NEAR = 3  # sentences read for which way an effect or a comparison goes (dev_direction claims: the closest alone missed
# the one that states it)
CONTRADICTING_RULES = frozenset({"number_words", "units", "polarity", "direction", "comparison", "swap"})


def source_text(hit: Hit) -> str:
    """Everything a citation of this hit can be supported by: the passage and the paper's metadata."""
    p = hit.paper
    meta = [
        p.title,
        "; ".join(p.authors),
        p.venue or "",
        str(p.year or ""),
        f"paper link: {p.url}" if p.url else "",
        f"code repository: {p.code_url}" if p.code_url else "",
        f"arXiv id: {p.arxiv_id}" if p.arxiv_id else "",
    ]
    return "\n".join(x for x in meta if x) + "\n" + hit.text


def numbers_in(text: str) -> set[str]:
    """The quantities of a text: digits that are part of a name ("IL-6", "MEK 1/2") or of a URL are not."""
    return quantities(text)


def number_evidence(hit: Hit) -> str:
    """The text a number may be found in: the title, venue, year and passage (links and ids never count)."""
    p = hit.paper
    return "\n".join(x for x in (p.title, p.venue or "", str(p.year or ""), hit.text) if x)


class SupportChecker:
    """The offline check. `check` gives one Verdict per sentence: its label, why it is not supported, and the
    source sentences that back it best (shown in the UI as the evidence)."""

    def __init__(
        self,
        vectors: SentenceVectors,
        threshold: float = 0.55,
        overlap: float = 0.6,
        rules: Sequence[str] = RULES,
        terms_below: float | None = None,
        judge: Judge | None = None,
    ) -> None:
        self.vectors = vectors
        self.threshold = threshold
        self.overlap = overlap
        self.rules = frozenset(rules)
        self.paraphrase = PARAPHRASE
        # a cited sentence at least this close vouches for the claim's names too (None: names are always checked);
        # the trade-off between real claims' background names and invented ones (eval: the names trust curve)
        self.terms_below = terms_below
        self.judge = judge  # the learned judge decides (rag.verify.learned); None: the rules do

    def supported(self, claim: str, cited: Sequence[Hit]) -> bool:
        """True when the cited sources back the claim (markers already stripped)."""
        return self.verdict(claim, cited).supported

    def verdict(self, claim: str, cited: Sequence[Hit]) -> Verdict:
        """The label, why it is not supported, and the evidence as (index into `cited`, sentence) for one claim."""
        claim = _BULLET.sub("", claim).strip().strip("*").strip()
        trusted = [(i, h) for i, h in enumerate(cited) if not untrusted(h)]  # a source giving orders is no evidence
        if not claim:
            return Verdict(NOT_FOUND, "empty", [])
        if not cited:
            return Verdict(UNCITED, "cites no retrieved source", [])
        if not trusted:
            return Verdict(NOT_FOUND, "cites only a source that gives orders", [])
        for _, h in trusted:  # a summary line "Title: contribution" claims the contribution; the title names the paper
            if claim.lower().startswith(h.paper.title.lower()) and claim[len(h.paper.title) :].startswith(":"):
                claim = claim[len(h.paper.title) + 1 :].strip()
        sources = [(i, source_text(h)) for i, h in trusted]
        joined = " ".join(s for _, s in sources)
        # evidence is what the paper says (its title and text), never its links, ids or author list
        sentences = [(i, s) for i, h in trusted for s in split_sentences(f"{h.paper.title}. {h.text}")]
        if _norm(claim) in _norm(joined):
            c = _norm(claim)
            quoted = [(i, s) for i, s in sentences if (n := _norm(s)) and (n in c or c in n)]
            return Verdict(SUPPORTED, None, quoted[:2])
        own_links = " ".join(links(joined))
        if bad := [u for u in links(claim) if u not in own_links]:
            return Verdict(NOT_FOUND, f"{bad[0]} is not a link of the cited paper", [])
        numbers_text = " ".join(number_evidence(h) for _, h in trusted)
        given = numbers_in(numbers_text)
        missing = numbers_in(claim) - given
        missing -= rounded_away(missing, given)
        if missing:
            if "units" in self.rules and (other := comparisons.different_number(claim, numbers_text, missing)):
                said = other.split(" where the source says ", 1)[1]
                quote = [(i, s) for i, s in sentences if said in s][:1]
                return Verdict(CONTRADICTED, other, quote)  # the source gives another number for the same thing
            return Verdict(NOT_FOUND, f"{', '.join(sorted(missing))} is not in the cited source", [])  # invented
        if not sentences:
            return Verdict(NOT_FOUND, "the cited source has no text", [])
        vecs = self.vectors([claim, *[s for _, s in sentences]])
        sims = vecs[1:] @ vecs[0]
        order = np.argsort(-sims)
        best = sentences[int(order[0])]
        passages = " ".join(f"{h.paper.title}. {h.text}" for _, h in trusted)  # numbers of ids and links do not count
        if self.judge is not None:
            vetoed = self.contradiction(claim, joined, best[1], cited=len(trusted), passages=passages,
                                        similarity=float(sims[int(order[0])]), only=self.judge.vetoes)  # fmt: skip
            if vetoed:
                return Verdict(CONTRADICTED if vetoed[0] in CONTRADICTING_RULES else NOT_FOUND, vetoed[1], [best])
            top = [sentences[int(j)] for j in order[: self.judge.reads]]
            return self.judge.verdict(claim, top, float(sims[int(order[0])]))
        # which way an effect or a comparison goes: the closest few, past the closest only what the paper itself finds
        near = [best[1]] + [t for j in order[1:NEAR] if not states_no_finding(t := sentences[int(j)][1])
                            and not reports_others_view(t)]  # fmt: skip
        broken = self.contradiction(claim, joined, best[1], cited=len(trusted), passages=passages,
                                    similarity=float(sims[int(order[0])]), near=near)  # fmt: skip
        if broken:
            rule, reason = broken
            return Verdict(CONTRADICTED if rule in CONTRADICTING_RULES else NOT_FOUND, reason, [best])
        close = [sentences[int(j)] for j in order if sims[int(j)] >= self.threshold * 0.8]
        evidence = close[:2] or [best]
        words = set(tokenize(claim))
        if words and len(words & set(tokenize(joined))) / len(words) >= self.overlap:
            return Verdict(SUPPORTED, None, carrying_first(claim, evidence, close))
        closest = float(sims[int(order[0])])
        if closest >= self.threshold:  # the label is settled; the evidence shown is the sentence with its numbers
            return Verdict(SUPPORTED, None, carrying_first(claim, evidence, close), similarity=closest)
        return Verdict(NOT_FOUND, NO_SENTENCE, [], similarity=closest)

    def verdict_among(self, claim: str, cited: Sequence[Hit], others: Sequence[Hit]) -> Verdict:
        """`verdict`, and when the cited papers do not support the claim but another retrieved paper does on its own:
        WRONG_PAPER, with `supported_by` indexing `others` and the evidence taken from the first of them."""
        verdict = self.verdict(claim, cited)
        if verdict.supported or verdict.label == CONTRADICTED or not cited:
            return verdict  # a cited paper that says otherwise is the stronger finding
        ids = {h.paper.id for h in cited}
        backing = [(j, v) for j, h in enumerate(others) if h.paper.id not in ids for v in [self.verdict(claim, [h])]]
        backing = [(j, v) for j, v in backing if v.supported]
        if not backing:
            return verdict
        first = backing[0][1]
        return Verdict(WRONG_PAPER, "the cited paper does not say this; another retrieved paper does", first.evidence,
                       tuple(j for j, _ in backing))  # fmt: skip

    def contradiction(
        self,
        claim: str,
        source: str,
        evidence: str,
        cited: int = 1,
        passages: str | None = None,
        similarity: float | None = None,
        only: frozenset[str] | None = None,
        near: Sequence[str] = (),
    ) -> tuple[str, str] | None:
        """The first rule of rag.verify.rules the claim breaks, as (rule, reason), among those enabled
        (None: none)."""
        vocab = SourceVocabulary(source)
        on = self.rules if only is None else self.rules & only  # `only`: the rules kept as vetoes of the judge
        lenient = similarity is not None and similarity >= self.paraphrase
        trusting = self.terms_below is not None and similarity is not None and similarity >= self.terms_below
        if "terms" in on and not trusting and (terms := rules.missing_specific_terms(claim, vocab, names_only=lenient)):
            verb = "is" if len(terms) == 1 else "are"
            return "terms", f"{', '.join(repr(t) for t in terms[:3])} {verb} not in the cited source"
        if "number_words" in on and (num := number_word_mismatch(claim, passages or source, cited)):
            return "number_words", num
        if "units" in on and (unit := comparisons.unit_mismatch(claim, passages or source)):
            return "units", unit
        if "strong" in on and (strong := rules.strong_words_missing(claim, vocab)):
            return "strong", f"claims more than the source: {', '.join(repr(w) for w in strong)}"
        asks = states_no_finding(evidence)  # an aim or an open question: its "not" or "whether" states no result
        if "polarity" in on and not asks and (pol := rules.polarity_mismatch(claim, evidence, passages or source)):
            return "polarity", pol
        if "direction" in on and (way := comparisons.direction_mismatch(claim, near or evidence)):
            return "direction", way
        if "comparison" in on and (rev := comparisons.reversed_comparison(claim, near or evidence)):
            return "comparison", rev
        if "swap" in on and cited == 1 and (swap := rules.swapped_association(claim, evidence)):  # within a paper
            return "swap", swap
        return None

    def check(self, claim: str, cited: Sequence[Hit], retrieved: Sequence[Hit] = (),
              clauses: Sequence[Clause] = (), names: Sequence[str] = ()) -> Verdict:  # fmt: skip
        """The one entry point, for answers and drafts alike.

        `claim`: the sentence without its citation markers; `cited`: the sources it cites; `retrieved`: the papers
        found for it, any of which may be the one that does say it (WRONG_PAPER, `supported_by` indexing
        `retrieved`); `clauses`: the sentence cut at its citations, each (text, 1-based positions into `cited`),
        checked one by one when the sentence cites in several places (a number or name only in a paper another
        clause cites: WRONG_PAPER, `cited_instead` indexing `cited`); `names`: how each cited source is written
        in the sentence ("[2]", "smith2020"), for that reason."""
        v = self.verdict_among(claim, cited, retrieved)
        if v.supported and len({n for _, ns in clauses for n in ns}) > 1:
            return self._per_clause(clauses, cited, names) or v
        return v

    def _per_clause(self, clauses: Sequence[Clause], cited: Sequence[Hit], names: Sequence[str]) -> Verdict | None:
        sources = {n: cited[n - 1] for _, ns in clauses for n in ns if 1 <= n <= len(cited)}
        sources = {n: h for n, h in sources.items() if not untrusted(h)}
        found = misattributed(clauses, sources, {n: number_evidence(h) for n, h in sources.items()})
        if found is None:
            return None
        term, own, where = found
        text = number_evidence(sources[where])
        quote = next((s for s in split_sentences(text.replace("\n", ". ")) if term in s), "")
        name = lambda n: names[n - 1] if n <= len(names) else f"[{n}]"  # noqa: E731
        return Verdict(WRONG_PAPER, f"{term!r} is in {name(where)}, not in {name(own)} which its clause cites",
                       [(where - 1, quote)] if quote else [], cited_instead=where - 1)  # fmt: skip


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[^\w\s]", " ", text.lower())).strip()


def checker_for(settings: AnswerSettings, vectors: SentenceVectors, model: SupportJudge | None = None
                ) -> SupportChecker:  # fmt: skip
    """The checker the settings ask for (answers and `rag check` alike); `model`: the learned judge's model, used
    when settings.judge is "learned"."""
    judge = None
    if settings.judge == "learned" and model is not None:
        judge = Judge(model, settings.judge_supported, settings.judge_contradicted)
    return SupportChecker(vectors, settings.support_threshold, terms_below=settings.trust_names_above, judge=judge)
