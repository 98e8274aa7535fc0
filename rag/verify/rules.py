"""Offline rules that find a claim its cited sources contradict or do not contain, before any similarity says
"close enough". Each rule returns the reason a claim fails, or None. All were measured on the claims benchmark's
dev split (eval/claims/dev.jsonl) and kept only when they caught more wrong sentences than they cost faithful ones.

- specific terms: names, acronyms, technical words and compound terms in the claim must occur in a cited source
  (a word is "specific" when it is capitalised inside the sentence, mixes letters and digits, is an acronym or
  a hyphenated compound, or is rare in general English: word frequencies from `wordfreq`);
- number words: "three", "two million", "twice", "thousands of" must agree with a number the source gives;
- strong words: "all", "every", "always", "never", "guarantees", "proves", "eliminates" only where the source
  says so;
- polarity: a negation ("not", "cannot", "fails to", "rarely") or an opposite ("lower" for "higher") that the
  evidence sentence does not have;
- swapped associations: two clauses whose distinctive terms the source pairs the other way round.
"""

from __future__ import annotations

import re

from rag.corpus.lexicon import FUNCTION_WORDS, stem
from rag.verify.names import abbreviations, glued_forms, plain
from rag.verify.vocabulary import RARE_ZIPF, VERB_FORM, SourceVocabulary, norm, words
from rag.verify.word_rarity import zipf


def _specific(word: str, first: bool) -> bool:
    """A word that names something: the claim may not introduce it."""
    if len(word) < 2 or not any(c.isalpha() for c in word):
        return False
    if any(c.isdigit() for c in word) or (word.isupper() and len(word) >= 2):
        return True  # "GPT-4o", "PPO", "ERA5"
    if any(c.isupper() for c in word[1:]):
        return True  # "EmotionGPT", "HyPO"
    if word[0].isupper() and not first:
        return True  # "Saskatchewan", "Maxar"
    w = norm(word)
    if w in FUNCTION_WORDS:
        return False
    if "-" in w:  # "PreSelect-chosen", "state-of-the-art": a compound names something new only through a new part
        return any(_specific(part, False) for part in word.split("-") if part)
    # a rare word names something; but a rare verb ("elucidates", "rebuilds", "quantifying") is a paraphrase
    return zipf(w) < RARE_ZIPF and not VERB_FORM.search(w)


def specific_words(text: str, names_only: bool = False) -> list[str]:
    """The words of a text that name something (names, acronyms, words with digits, rare terms), numbers aside;
    `names_only`: without the rare lower-case words ("plasticity"), which may be wording."""
    found = (w for i, w in enumerate(words(plain(text))) if not w[0].isdigit() and _specific(w, i == 0))
    return [w for w in dict.fromkeys(found) if not names_only or _name_like(w)]


def _defined_in_claim(claim: str, vocab: SourceVocabulary) -> set[str]:
    """Words of the claim's own "long form (ABBR)" pairs that the source names in one of the two forms."""
    out: set[str] = set()
    for short, long in abbreviations(claim):
        long_words = [w for w in words(long) if _specific(w, False)]
        if vocab.has(short) or (long_words and all(vocab.has(w) for w in long_words)):
            out |= {short, *words(long)}
    return out


_GLOSS = re.compile(r"([A-Za-z][\w'-]*)\s+\(([^()]{1,60})\)")


def _glossed(claim: str, vocab: SourceVocabulary) -> set[str]:
    """Words of a parenthesis that restates a term the source has: "baker's yeast (Saccharomyces cerevisiae)",
    "VgrG (Tssl)". The gloss names what the source names; it adds no finding."""
    out: set[str] = set()
    shorts = {short for short, _ in abbreviations(claim)}
    for m in _GLOSS.finditer(claim):
        gloss = m.group(2).strip()
        if gloss in shorts:
            continue  # "reactive oxygen species (ROS)": an abbreviation, checked as one (_defined_in_claim)
        if vocab.has(m.group(1)):
            out |= set(words(gloss))
    return out


def _name_like(word: str) -> bool:
    """Capitalised inside the sentence, an acronym, or with digits: a name, not merely a rare word."""
    return any(c.isdigit() for c in word) or any(c.isupper() for c in word[1:]) or word[:1].isupper()


def missing_specific_terms(claim: str, vocab: SourceVocabulary, names_only: bool = False) -> list[str]:
    """The claim's specific terms the source lacks; `names_only`: rare lower-case words ("neurotransmission") are
    let through (the caller found a source sentence close enough to count as a paraphrase)."""
    claim = plain(claim)
    defined = _defined_in_claim(claim, vocab) | _glossed(claim, vocab)
    out = []
    for i, word in enumerate(words(claim)):
        if word in defined:
            continue
        if word[0].isdigit():
            continue  # numbers have their own rule
        if any(c.isdigit() for c in word):  # a name with digits ("IL-6", "HIV-1") is there as it is, or not at all
            found = vocab.forms.has(word) or norm(word) in vocab.exact
            if not (found or any(vocab.forms.has(g) for g in glued_forms(word, claim))) and word not in out:
                out.append(word)
            continue
        if "-" in word:  # a compound adds a term only through a specific part the source lacks
            if vocab.forms.has(word):
                continue
            parts = [part for part in word.split("-") if part]
            new = [part for j, part in enumerate(parts) if _specific(part, i == 0 and j == 0) and not vocab.has(part)]
            if new and word not in out:
                out.append(word)
        elif _specific(word, i == 0) and not vocab.has(word) and word not in out:
            out.append(word)
    if names_only:
        out = [w for w in out if _name_like(w) or any(_name_like(p) for p in w.split("-"))]
    denied = _negated(claim)  # "does not train a transformer scorer": a term the claim rules out is no invention
    return [w for w in out if stem(norm(w)) not in denied]


# -- strong words, polarity, swapped associations ------------------------------------------------------------------
STRONG = ("all", "every", "always", "never", "none", "any", "entire", "entirely", "complete", "completely", "fully",
          "guarantee", "guarantees", "guaranteed", "ensure", "ensures", "prove", "proves", "proven", "provably",
          "eliminate", "eliminates", "optimal", "impossible", "universal", "universally", "perfect", "perfectly",
          "sole", "solely", "exclusively")  # fmt: skip
_NEGATION = re.compile(r"\b(not|no|never|cannot|can't|won't|don't|doesn't|isn't|aren't|fails?|failed|lacks?|"
                       r"lacking|unable|neither|nor|none|rarely|seldom|little|hardly|absent|prevents?|preventing|"
                       r"prevented|minimal|negligible|unrelated|unaffected|unchanged|incapable|ineffective|"
                       r"inaccurate|insufficient)\b|n't\b", re.I)  # fmt: skip
NEGATION_SCOPE = 5  # words after a negation that it governs
OPPOSITES = (
    ("higher", "lower"),
    ("increase", "decrease"),
    ("increases", "decreases"),
    ("more", "fewer"),
    ("more", "less"),
    ("better", "worse"),
    ("faster", "slower"),
    ("larger", "smaller"),
    ("improves", "degrades"),
    ("improve", "hurt"),
    ("preserve", "lose"),
    ("preserving", "losing"),
    ("plentiful", "scarce"),
    ("abundant", "scarce"),
    ("strong", "weak"),
    ("stronger", "weaker"),
    ("easy", "hard"),
    ("easier", "harder"),
    ("success", "failure"),
    ("before", "after"),
    ("early", "late"),
    ("above", "below"),
    ("rise", "drop"),
    ("rises", "drops"),
    ("outperforms", "underperforms"),
    ("consistent", "inconsistent"),
    ("known", "unknown"),
    ("public", "private"),
    ("released", "withheld"),
    ("minimum", "maximum"),
    ("reduce", "increase"),
    ("reduces", "increases"),
    ("reduced", "increased"),
    ("lowers", "raises"),
    ("cut", "raise"),
)


def strong_words_missing(claim: str, vocab: SourceVocabulary) -> list[str]:
    found = []
    tokens = [norm(w) for w in words(claim)]
    for i, w in enumerate(tokens):
        if w in ("any", "all") and {"without", "no", "not", "never"} & set(tokens[max(0, i - 2) : i]):
            continue  # "without any loss", "not all": a denial, not an over-claim
        if w in STRONG and not vocab.has(w) and w not in found:
            found.append(w)
    return found


_WITHOUT = re.compile(r"\b(without)\b", re.I)
_CONTRAST = re.compile(r"\bbut\s*$", re.I)  # right before a negation: it contrasts, not denies the clause


def _negated(text: str, without: bool = False, contrast: bool = False) -> set[str]:
    """Stems of the content words a negation in the text governs (the few words after it). `without` counts as a
    negation when asked: a claim's "without exemplars" agrees with a source's "does not require exemplars", but a
    source's "without compromising accuracy" is not a finding a claim must repeat."""
    out: set[str] = set()
    text = re.sub(r"\bnot (?:only|just|merely)\b", "", text, flags=re.I)  # "not only X but also Y" affirms X
    matches = [*_NEGATION.finditer(text), *(_WITHOUT.finditer(text) if without else ())]
    for m in matches:
        scope = NEGATION_SCOPE
        if contrast and _CONTRAST.search(text[: m.start()]):  # a source's "in chronic but not in episodic
            # headache" denies one word, not the clause
            scope = 1 + sum(1 for w in words(text[m.end() :])[:3] if norm(w) in FUNCTION_WORDS)
        after = [stem(norm(w)) for w in words(text[m.end() :])[:scope]]
        out |= {w for w in after if w not in FUNCTION_WORDS and len(w) > 2}
    if without:  # "exemplar-free" denies exemplars as "without exemplars" does
        out |= {stem(norm(m.group(1))) for m in _FREE.finditer(text)}
    return out


_FREE = re.compile(r"\b([A-Za-z]{3,})-free\b", re.I)


def polarity_mismatch(claim: str, evidence: str, source: str | None = None) -> str | None:
    """The claim negates (or opposes) what its closest source sentence says, or the other way round: a negation
    counts when what it governs is also in the other sentence (so "not only" in another clause does not)."""
    c_stems, e_stems = {stem(norm(w)) for w in words(claim)}, {stem(norm(w)) for w in words(evidence)}
    c_neg = _negated(claim, without=True)
    # a negation the source itself states elsewhere ("without retaining exemplars", "exemplar-free") corrects a
    # premise; it does not contradict the closest sentence
    stated = bool(source and c_neg & _negated(source, without=True))
    if c_neg & e_stems and not _negated(evidence, without=True) and not stated:
        return "says the opposite of the source (negation)"
    if _negated(evidence, contrast=True) & c_stems and not c_neg:
        return "drops the source's negation"
    c, e = {norm(w) for w in words(claim)}, {norm(w) for w in words(evidence)}
    for a, b in OPPOSITES:
        if (a in c and b in e and a not in e and b not in c) or (b in c and a in e and b not in e and a not in c):
            return f"'{a if a in c else b}' where the source says '{b if a in c else a}'"
    return None


_CLAUSE = re.compile(r",?\s+(?:while|whereas|but|yet)\s+|;\s*|,\s+and\s+", re.I)
_AND = re.compile(r"\s+and\s+", re.I)
MIN_CLAUSE_WORDS = 5  # a bare "and" joins two clauses only when both sides are this long ("oil and gas" is not)


def clauses(text: str) -> list[str]:
    out: list[str] = []
    for part in _CLAUSE.split(text):
        merged: list[str] = []
        for piece in _AND.split(part):
            short = merged and (len(words(merged[-1])) < MIN_CLAUSE_WORDS or len(words(piece)) < MIN_CLAUSE_WORDS)
            if merged and (short or re.search(r"\b(both|between)\b", merged[-1], re.I)):  # "both X and Y": nouns
                merged[-1] = f"{merged[-1]} and {piece}"
            else:
                merged.append(piece)
        out += [m for m in merged if m.strip()]
    return out


def swapped_association(claim: str, evidence: str) -> str | None:
    """Two clauses of the claim each pair terms that the evidence sentence keeps in different clauses."""
    e_clauses = [set(map(stem, map(norm, words(c)))) for c in clauses(evidence)]
    c_clauses = [[stem(norm(w)) for w in words(c)] for c in clauses(claim)]
    if len(e_clauses) < 2 or len(c_clauses) < 2:
        return None

    def home(term: str) -> int | None:
        where = [i for i, c in enumerate(e_clauses) if term in c]
        return where[0] if len(where) == 1 else None  # only terms distinctive of one evidence clause

    mixed = 0
    for clause in c_clauses:
        homes = {h for t in clause if t not in FUNCTION_WORDS and len(t) > 2 and (h := home(t)) is not None}
        mixed += len(homes) >= 2
    return "pairs the source's terms the other way round" if mixed >= 2 else None
