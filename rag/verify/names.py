"""Names as scientific text writes them, for the sentence check: what is a name and what is a number, and when two
spellings are the same name.

- Greek letters are spelled out ("IFN-γ" = "IFN-gamma");
- a number joined to a name is part of the name, not a quantity: "Dscam1", "IL-6", "HIV-1", "CD4+", "H2O2",
  "MEK 1/2", "type 1 diabetes" (a small integer right after a capitalised word or an acronym);
- URLs are not text: their digits count for no number, their words for no term;
- abbreviations are learnt from the text itself, "multimodal large language models (MLLMs)": the short form and
  the long form name the same thing, in the sources and in the claim;
- spellings: hyphens and spaces inside a name ("iPSC-derived" = "iPSCderived"), British and American endings
  ("leukaemia" = "leukemia"), one typing error in a long word ("coatmer" = "coatomer").
"""

from __future__ import annotations

import re
from collections.abc import Callable

GREEK = {"α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ζ": "zeta", "η": "eta",
         "θ": "theta", "κ": "kappa", "λ": "lambda", "μ": "mu", "ν": "nu", "π": "pi", "ρ": "rho", "σ": "sigma",
         "τ": "tau", "φ": "phi", "χ": "chi", "ψ": "psi", "ω": "omega"}  # fmt: skip
_GREEK_RE = re.compile("[" + "".join(GREEK) + "]")
URL = re.compile(
    r"\b(?:https?://|www\.)\S+|\b[\w-]+(?:\.[\w-]+)*\.(?:com|org|io|net|edu|ai)/\S*"
    r"|\b(?:arXiv:)?\d{4}\.\d{4,5}(?:v\d+)?\b",
    re.I,
)
# a standalone quantity: not glued to a letter ("A2", "IL-6"), not after "+"/"-" of a name ("+1 nucleosome" stays)
_QUANTITY = re.compile(r"(?<![A-Za-z0-9.])(?<![A-Za-z][-/])(?<![A-Za-z]\d/)\d+(?:[.,]\d+)*")  # not the 4 of "Oct3/4"
_NAME_NUMBER = re.compile(r"\b([A-Z][A-Za-z0-9]*)\s+(\d{1,2}(?:/\d{1,2})?)(?![\d.,%])(?!\s*(?:%|percent))")
_ABBREVIATION = re.compile(r"((?:[\w'-]+\s+){1,8}?)\(([A-Za-z][A-Za-z0-9-]*[A-Z][A-Za-z0-9-]*)\)")
_SPELLING = ((re.compile(r"ae"), "e"), (re.compile(r"oe"), "e"), (re.compile(r"our\b"), "or"),
             (re.compile(r"is(e|ed|es|ing|ation)\b"), r"iz\1"))  # fmt: skip
MIN_TYPO_LENGTH = 7  # a word this long with one letter changed is the same word mistyped
# Greek letters inside a name with digits, spelled out: "APOE epsilon4" = "APOE4", "alphavbeta3" = "avbeta3"
_GREEK_NAME = re.compile("|".join(sorted((n for n in GREEK.values() if len(n) >= 4), key=len, reverse=True)))


def plain(text: str) -> str:
    """Greek letters spelled out and URLs removed: the text the check reads."""
    text = _GREEK_RE.sub(lambda m: GREEK[m.group()], text)
    return URL.sub(" ", text)


def links(text: str) -> list[str]:
    """The URLs of a text, without scheme and trailing punctuation: "github.com/x/y"."""
    return [re.sub(r"^(?:https?://)?(?:www\.)?", "", m.group().rstrip(".,;:)")).lower() for m in URL.finditer(text)
            if "/" in m.group() or m.group().lower().startswith("www")]  # fmt: skip


def quantities(text: str) -> set[str]:
    """The numbers of the text that state a quantity (names' digits, "MEK 1/2", "type 1", are not)."""
    text = plain(text)
    names = {m.start(2) for m in _NAME_NUMBER.finditer(text) if not _NAME_NUMBER_WORDS.match(m.group(1))}
    out = set()
    for m in _QUANTITY.finditer(text):
        if m.start() in names or any(m.start() > n and m.start() <= n + 5 and "/" in text[n : m.start()]
                                     for n in names):  # fmt: skip
            continue
        out.add(m.group().replace(",", "").rstrip("."))
    return out


def rounded_away(claimed: set[str], given: set[str]) -> set[str]:
    """The whole numbers claimed that are a given decimal rounded or truncated ("76-85%" for "76.3% to 85.4%"): an
    approximation, not an invention. A claimed decimal must be given as it is ("3.0" is not "3.05")."""
    decimals = [float(g) for g in given if re.fullmatch(r"\d+\.\d+", g)]
    return {c for c in claimed if c.isdigit() and any(round(g) == int(c) or int(g) == int(c) for g in decimals)}


# capitalised words after which a number is a quantity, not part of a name ("In 2019", "Over 30")
_NAME_NUMBER_WORDS = re.compile(r"^(?:In|On|At|By|For|From|To|Of|Over|Under|About|Around|Only|Just|All|The|"
                                r"Top|Table|Figure|Fig|Section|Step|Day|Days|Week|Year|Years|Phase)$")  # fmt: skip


def squash(word: str) -> str:
    """Lower case, letters and digits only, one spelling of British and American endings."""
    w = re.sub(r"[^0-9a-z]", "", plain(word).lower())
    for pattern, repl in _SPELLING:
        w = pattern.sub(repl, w)
    return w


def abbreviations(text: str) -> list[tuple[str, str]]:
    """(short form, long form) pairs the text defines: "multimodal large language models (MLLMs)"."""
    out = []
    for m in _ABBREVIATION.finditer(plain(text)):
        short = m.group(2)
        letters = [c for c in short.rstrip("s") if c.isupper()] or list(short)
        before = m.group(1).split()
        n = min(len(before), max(1, len(letters) + 1))
        long = before[-n:]
        # keep the words from the first whose initial is the abbreviation's first letter
        first = next((i for i, w in enumerate(long) if w[:1].lower() == short[0].lower()), None)
        if first is not None:
            out.append((short, " ".join(long[first:])))
    return out


def edits_at_most_one(a: str, b: str) -> bool:
    """Levenshtein distance <= 1."""
    if a == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def glued_forms(word: str, text: str) -> list[str]:
    """The forms a name with digits takes in the text around it: the whole run of letters and digits the word is
    cut from ("T3" of "3T3"), and that run joined to the word before it ("NIH 3T3" = "NIH3T3")."""
    runs = re.findall(r"[A-Za-z0-9]+", text)
    out = []
    for i, run in enumerate(runs):
        if word in run:
            out += [run, (runs[i - 1] if i else "") + run]
    return [f for f in out if f != word]


_LETTERS_DIGITS = re.compile(r"([a-z]{2,})(\d+)")


def _subsequence(short: str, long: str) -> bool:
    it = iter(long)
    return all(c in it for c in short)


def _is_name(word: str) -> bool:
    """Written as a name: with a digit or a capital after the first letter ("Dscam1", "VSMCs", "cRCT")."""
    return any(c.isdigit() for c in word) or any(c.isupper() for c in word[1:])


def greek_folds(squashed: str) -> set[str]:
    """A squashed name with digits, with its spelled-out Greek letters dropped and reduced to their initial
    ("apoeepsilon4" -> "apoe4", "apoee4"): writers spell the same gene or allele all three ways."""
    if not any(c.isdigit() for c in squashed) or not _GREEK_NAME.search(squashed):
        return set()
    return {_GREEK_NAME.sub("", squashed), _GREEK_NAME.sub(lambda m: m.group()[0], squashed)}


def name_variant(s: str, known: set[str]) -> bool:
    """A name one character longer than a name the sources use, its variant: a letter before it ("VSMC" of
    "SMC", "cRCT" of "RCT") or a letter or digit after it ("Dscam1" of "Dscam", "MUC1-C" of "MUC1", "cyclin A2"
    of "cyclin A"); never a digit after a digit ("CIFAR-100" is not "CIFAR-10")."""
    if len(s) < 4:
        return False
    before, after = s[1:], s[:-1]
    if s[0].isalpha() and not s[1].isdigit() and before in known and not _sibling(s[0], lambda c: c + before, known):
        return True
    if s[-1].isdigit() and s[-2].isdigit():
        return False
    return after in known and not _sibling(s[-1], lambda c: after + c, known)


def _sibling(char: str, form: Callable[[str], str], known: set[str]) -> bool:
    """The sources name a sibling: the same name with another digit or letter there ("HIV-1" when the claim says
    "HIV-2"): then the claim's name is a substitution, not a variant."""
    pool = "0123456789" if char.isdigit() else "abcdefghijklmnopqrstuvwxyz"
    return any(form(c) in known for c in pool if c != char)


class NameForms:
    """The forms in which the sources write their names: squashed words and word pairs, and the abbreviations
    they define."""

    def __init__(self, tokens: list[str], text: str) -> None:
        squashed = [squash(t) for t in tokens]
        self.squashed = set(squashed) | {a + b for a, b in zip(squashed, squashed[1:], strict=False)}
        self.squashed |= {squash(p) for t in tokens if "-" in t for p in t.split("-")}  # "FOXO3" of "FOXO3-driven"
        self.squashed |= {f for s in list(self.squashed) for f in greek_folds(s)}
        self.by_length: dict[int, set[str]] = {}
        for s in self.squashed:
            self.by_length.setdefault(len(s), set()).add(s)
        self.defined = {squash(short.rstrip("s")) for short, _ in abbreviations(text)}
        self.numbered = {(m.group(1), m.group(2)) for s in self.squashed if (m := _LETTERS_DIGITS.fullmatch(s))}

    def _abbreviates(self, s: str) -> bool:
        """ "interleukin2" and "il2": letters then digits, where one's letters are the start and a subsequence of
        the other's and the digits are the same (a gene or protein written long or short)."""
        m = _LETTERS_DIGITS.fullmatch(s)
        if m is None:
            return False
        letters, digits = m.groups()
        for other, d in self.numbered:
            if d != digits or other == letters or min(len(other), len(letters)) < 2:
                continue
            short, long = sorted((other, letters), key=len)
            if len(long) >= 2 * len(short) and short[0] == long[0] and _subsequence(short, long):
                return True
        return False

    def has(self, word: str) -> bool:
        s = squash(word)
        if not s:
            return False
        if s in self.squashed or (s.endswith("s") and s[:-1] in self.squashed) or s in self.defined:
            return True
        if any(c.isdigit() for c in s) and self._abbreviates(s):
            return True
        if any(f in self.squashed for f in greek_folds(s)):
            return True
        if _is_name(word) and any(name_variant(v, self.squashed) for v in {s, s[:-1] if s.endswith("s") else s}):
            return True
        if len(s) >= MIN_TYPO_LENGTH and not any(c.isdigit() for c in s):
            near = self.by_length.get(len(s), set()) | self.by_length.get(len(s) - 1, set())
            near |= self.by_length.get(len(s) + 1, set())
            return any(edits_at_most_one(s, t) for t in near)
        return False
