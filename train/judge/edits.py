"""Sentence edits for generated pairs: meaning-reversing ones (contradicted), meaning-preserving rewrites
(supported) and invented specifics (not found). Each function returns the edited sentence, or None when the edit
does not apply. Deterministic given the `random.Random` passed in."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

_AUX = r"\b(is|are|was|were|can|could|may|might|will|would|should|does|do|did|has|have|had)\b"
_NEG = re.compile(r"\b(is|are|was|were|can|could|does|do|did|has|have|had|will|would|should) not\b|\bcannot\b")

DIRECTION = [
    ("increase", "decrease"), ("increased", "decreased"), ("increases", "decreases"), ("increasing", "decreasing"),
    ("higher", "lower"), ("more", "less"), ("greater", "smaller"), ("larger", "smaller"), ("longer", "shorter"),
    ("improve", "worsen"), ("improved", "worsened"), ("improves", "worsens"), ("improvement", "deterioration"),
    ("better", "worse"), ("reduced", "increased"), ("reduces", "increases"), ("reduction", "increase"),
    ("positive", "negative"), ("positively", "negatively"), ("above", "below"), ("superior", "inferior"),
    ("elevated", "reduced"), ("high", "low"), ("enhanced", "impaired"), ("benefit", "harm"), ("rise", "fall"),
    ("gain", "loss"), ("outperformed", "underperformed"), ("outperforms", "underperforms"), ("faster", "slower"),
    ("earlier", "later"), ("shorter", "longer"), ("lowest", "highest"), ("most", "least"), ("efficient", "inefficient"),
    ("effective", "ineffective"), ("safe", "unsafe"), ("accurate", "inaccurate"), ("consistent", "inconsistent"),
]
_DIR_MAP = {a: b for a, b in DIRECTION} | {b: a for a, b in DIRECTION}
_DIR_RE = re.compile(r"\b(" + "|".join(sorted(_DIR_MAP, key=len, reverse=True)) + r")\b", re.IGNORECASE)

SCOPE = [
    (r"\bsome\b", "all"), (r"\bseveral\b", "all"), (r"\bmost\b", "all"), (r"\bmany\b", "all"), (r"\bmay\b", "will"),
    (r"\bmight\b", "will"), (r"\bsuggests?\b", "proves"), (r"\bpartially\b", "completely"), (r"\bpartly\b", "entirely"),
    (r"\bpossibly\b", "certainly"), (r"\bpotential\b", "proven"), (r"\bcould\b", "always"), (r"\boften\b", "always"),
    (r"\bsometimes\b", "always"), (r"\ba subset of\b", "all"), (r"\bin some\b", "in every"),
    (r"\blikely\b", "certain"),
    (r"\bminority\b", "majority"), (r"\bfew\b", "many"), (r"\bmoderate\b", "dramatic"),
    (r"\bslightly\b", "dramatically"),
]
FOLD = [(r"\bdoubled\b", "halved"), (r"\bhalved\b", "doubled"), (r"\btwice\b", "half"), (r"\bhalf\b", "twice"),
        (r"\btwo-fold\b", "half"), (r"\btwofold\b", "half"), (r"\bthree-fold\b", "one-third")]
_COMPARE_VERBS = r"(outperformed|outperforms|exceeded|exceeds|surpassed|surpasses|dominated|beat|beats)"
_NUM = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(\s?%)?")


def _case_like(word: str, template: str) -> str:
    return word.capitalize() if template[:1].isupper() else word


def negate(s: str, rng: random.Random) -> str | None:
    """Remove a negation where there is one, else add one after the first auxiliary verb."""
    if _NEG.search(s):
        return _NEG.sub(lambda m: "can" if m.group(0).lower() == "cannot" else m.group(1), s, count=1)
    for pattern, new in ((r"\bno significant\b", "a significant"), (r"\bno\b", "a"), (r"\bnot\b", ""),
                         (r"\bwithout\b", "with"), (r"\bneither\b", "either")):
        if re.search(pattern, s):
            return re.sub(r"\s+", " ", re.sub(pattern, new, s, count=1))
    m = re.search(_AUX, s)
    if m:
        return s[: m.end()] + (" not" if m.group(1).lower() != "can" else "not") + s[m.end():]
    m = re.search(r"\bsignificantly\b", s)
    if m:
        return s[: m.start()] + "not " + s[m.start():]
    return None


def swap_direction(s: str, rng: random.Random) -> str | None:
    found = list(_DIR_RE.finditer(s))
    if not found:
        return None
    m = rng.choice(found)
    return s[: m.start()] + _case_like(_DIR_MAP[m.group(1).lower()], m.group(1)) + s[m.end():]


def swap_sides(s: str, rng: random.Random) -> str | None:
    """'A outperformed B' -> 'B outperformed A'; 'A was higher than B' -> 'B was higher than A';
    'in A compared with B' -> 'in B compared with A'."""
    phrase = r"((?:the |a |an )?[\w-]+(?: [\w-]+){0,3}?)"
    m = re.search(phrase + r" " + _COMPARE_VERBS + r" " + phrase + r"(?=[,.;]| in | on | at |$)", s)
    if not m:
        m = re.search(phrase + r" ((?:was|were|is|are) (?:significantly |markedly |slightly )?"
                      r"(?:more|less|higher|lower|"
                      r"greater|smaller|longer|shorter|better|worse|faster|slower)(?: [\w-]+)?) than " + phrase
                      + r"(?=[,.;(]| in | at |$)", s)
    if not m:
        m = re.search(phrase + r" (compared (?:with|to)|versus|vs\.?) " + phrase + r"(?=[,.;(]|$)", s)
    if not m or m.group(1).lower() == m.group(3).lower():
        return None
    a, b = m.group(1), m.group(3)
    return s[: m.start()] + f"{b} {m.group(2)} {a}" + s[m.end():]


def change_number(s: str, rng: random.Random, others: list[str]) -> str | None:
    """Another number of the same kind from the same paper, else the number doubled, halved or shifted."""
    found = [m for m in _NUM.finditer(s) if not re.match(r"(19|20)\d\d$", m.group(1))]
    if not found:
        return None
    m = rng.choice(found)
    kind = bool(m.group(2))
    pool = [o for o in others if (o.endswith("%") == kind) and o.rstrip("% ") != m.group(1)]
    if pool and rng.random() < 0.6:
        new = rng.choice(pool).rstrip("% ")
    else:
        value = float(m.group(1))
        factor = rng.choice([2.0, 0.5, 3.0, 1.5, 0.3])
        new_value = value * factor if value else rng.choice([3.0, 12.0])
        new = f"{new_value:.{len(m.group(1).split('.')[1]) if '.' in m.group(1) else 0}f}"
        if new == m.group(1):
            return None
    return s[: m.start(1)] + new + s[m.end(1):]


def numbers_in(text: str) -> list[str]:
    return [m.group(1) + (m.group(2) or "").strip() for m in _NUM.finditer(text)]


def inflate_scope(s: str, rng: random.Random) -> str | None:
    options = [(p, r) for p, r in SCOPE + FOLD if re.search(p, s, re.IGNORECASE)]
    if not options:
        return None
    pattern, new = rng.choice(options)
    return re.sub(pattern, lambda m: _case_like(new, m.group(0)), s, count=1, flags=re.IGNORECASE)


CONTRADICT: dict[str, Callable[[str, random.Random], str | None]] = {
    "negation": negate, "direction": swap_direction, "swap_sides": swap_sides, "scope": inflate_scope,
}

# --- meaning-preserving rewrites (supported) ---------------------------------------------------------------------


def drop_clause(s: str, rng: random.Random) -> str | None:
    s2 = re.sub(r"\s*\([^()]*\)", "", s)
    if s2 != s and len(s2.split()) >= 6 and rng.random() < 0.5:
        return s2
    parts = re.split(r"(?:, (?:which|while|whereas|and|but|although)\b|; )", s)
    if len(parts) > 1 and len(parts[0].split()) >= 6:
        return parts[0].rstrip(" ,;") + "."
    return s2 if s2 != s and len(s2.split()) >= 6 else None


def round_numbers(s: str, rng: random.Random) -> str | None:
    def _round(m: re.Match[str]) -> str:
        value = float(m.group(1))
        digits = 0 if value >= 10 or rng.random() < 0.5 else 1
        return f"about {round(value, digits):.{digits}f}{(m.group(2) or '').strip()}"

    out = re.sub(r"(?<![\w.])(\d+\.\d+)(\s?%)?", _round, s, count=1)
    return out if out != s else None


def report_frame(s: str, rng: random.Random) -> str | None:
    frame = rng.choice(["The study found that", "The authors report that", "The results show that",
                        "According to the paper,", "The paper reports that", "In this study,"])
    if len(s) < 2:
        return None
    return f"{frame} {s[0].lower() if not s[1:2].isupper() else s[0]}{s[1:]}"


def abbreviation(s: str, abstract: str, rng: random.Random) -> str | None:
    """Expand or contract an abbreviation the abstract defines as 'Long Form (LF)'."""
    for m in re.finditer(r"((?:[A-Za-z-]+ ){1,5}[A-Za-z-]+) \(([A-Z][A-Za-z]*[A-Z]s?)\)", abstract):
        long, short = m.group(1), m.group(2)
        words = long.split()[-len(short.rstrip("s")):]
        long = " ".join(words)
        if re.search(rf"\b{re.escape(short)}\b", s) and long.lower() not in s.lower():
            return re.sub(rf"\b{re.escape(short)}\b", long, s, count=1)
        if long.lower() in s.lower():
            return re.sub(re.escape(long), short, s, count=1, flags=re.IGNORECASE)
    return None


SPECIFICS = [
    "in a cohort of 12,000 Danish adults", "as measured by the SF-36 questionnaire",
    "because of reduced oxidative stress",
    "in children under five years of age", "at a dose of 40 mg daily", "using the MIMIC-III database",
    "over a ten-year follow-up", "in a randomised trial across 14 European centres", "in mice lacking the p53 gene",
    "due to increased insulin sensitivity", "on the ImageNet benchmark", "as measured by the area under the ROC curve",
    "in postmenopausal women", "after adjustment for smoking and body mass index", "through activation of NF-kB",
    "in rural Chinese hospitals", "as shown by magnetic resonance imaging", "in patients older than 80 years",
    "because of a genetic variant in APOE", "in the UK Biobank cohort", "with a 30% lower mortality",
]


def invent_specifics(s: str, rng: random.Random) -> str | None:
    if not s.endswith("."):
        return None
    extra = rng.choice([x for x in SPECIFICS if x.split()[-1].lower() not in s.lower()])
    return f"{s[:-1]} {extra}."
