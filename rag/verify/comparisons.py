"""Quantities and comparisons, for the sentence check: what a number counts, and which way an effect or a
comparison goes.

- direction: the claim says an effect goes one way ("reduces", "inhibits", "lower", "negatively") where its
  evidence sentence says the other ("increased", "promotes", "higher", "positively") about the same thing;
- reversed comparison: "A is more stable than B" where the evidence says "B is more stable than A" (or "A is
  less stable than B");
- units: a number is checked with what it counts: "213,000 square kilometres" is not "213,000 wells".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.corpus.lexicon import FUNCTION_WORDS, stem
from rag.verify.vocabulary import VERB_FORM, norm, words

# prefixes of words that say which way an effect goes
_UP = ("increas", "rais", "rise", "rose", "higher", "greater", "enhanc", "promot", "activat", "elevat", "positiv",
       "improv", "accelerat", "exacerbat", "encourag", "stimulat", "upregulat", "augment", "boost", "strengthen",
       "maximi", "aggravat", "advanc")
_DOWN = ("decreas", "reduc", "lower", "fewer", "inhibit", "imped", "suppress", "deactivat", "inactivat", "attenuat",
         "negativ", "dampen", "impair", "downregulat", "diminish", "weaken", "declin", "lessen", "cut", "drop",
         "fell", "fall", "worsen", "alleviat", "ameliorat", "mitigat", "reliev", "abolish", "abrogat",
         "halt", "minimi", "hurt", "harm", "hinder", "degrad", "loosen", "slump", "slow")  # fmt: skip
_DIRECTION_SCOPE = 4  # words after a direction word that say what it applies to


def _direction(word: str) -> int:
    w = norm(word)
    if w.startswith(("non", "un", "in")) and w[2:].startswith(_UP + _DOWN):
        return 0  # "unimproved", "inactivated" are states, not effects
    if w.startswith(_UP):
        return 1
    if w.startswith(_DOWN):
        return -1
    return 0


_NOUN = re.compile(r"(?:tion|sion|ment|ance|ence)s?$")  # "downregulation", "enhancement": a subject or an object


def _directed(text: str) -> dict[int, set[str]]:
    """Per direction, the content stems the direction words of the text apply to: the next few words, up to the
    next direction word. Two in a row compose ("reduced activation of STING" lowers STING); a direction noun before
    a direction verb is its subject ("DUSP4 downregulation activates the pathway" raises the pathway)."""
    tokens = words(text)
    marks = [(i, d) for i, t in enumerate(tokens) if (d := _direction(t))]
    out: dict[int, set[str]] = {1: set(), -1: set()}
    carried = 1
    for n, (i, d) in enumerate(marks):
        nxt = marks[n + 1][0] if n + 1 < len(marks) else len(tokens)
        between = [norm(w) for w in tokens[i + 1 : nxt]]
        if nxt < len(tokens) and all(w in FUNCTION_WORDS for w in between) and len(between) <= 2:
            # adjacent to the next direction word: a verb or adjective modifies it, a noun is its subject
            carried = carried * (1 if _NOUN.search(norm(tokens[i])) else d)
            continue
        after = [stem(norm(w)) for w in tokens[i + 1 : min(nxt, i + 1 + _DIRECTION_SCOPE)]]
        out[carried * d] |= {w for w in after if w not in FUNCTION_WORDS and len(w) > 2} or {"_"}
        carried = 1
    return out


def direction_mismatch(claim: str, evidence: str | Sequence[str]) -> str | None:
    """The claim's effect goes only one way, the evidence's only the other, about something both name. With several
    evidence sentences (the closest few), one saying the other way is enough, unless another says the claim's way."""
    c = _directed(claim)
    found = [_directed(e) for e in ([evidence] if isinstance(evidence, str) else evidence)]
    for d in (1, -1):
        if not c[d] or c[-d]:
            continue
        # per object: the claim moves something one way that the evidence moves only the other way
        if any(c[d] & e[-d] - {"_"} for e in found) and not any(c[d] & e[d] - {"_"} for e in found):
            said, source = ("an increase", "a decrease") if d == 1 else ("a decrease", "an increase")
            return f"says {said} where the source says {source}"
    return None


_THAN = re.compile(r"\b(?:than|compared (?:to|with)|relative to)\b", re.I)
_COMPARATIVE = re.compile(r"\b(more|less|fewer|greater|higher|lower|better|worse|larger|smaller|faster|slower|"
                          r"stronger|weaker|longer|shorter|bigger|older|younger|earlier|later|heavier|easier|harder)\b",
                          re.I)  # fmt: skip
_QUANTITY = re.compile(r"\s*(?:[$€£~≈]?\d|(?:a|one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|fifty|"
                       r"hundred|thousand|half|twice|double|a\s+(?:few|dozen|third|quarter))\b)", re.I)
_LESS = frozenset("less fewer lower worse smaller slower weaker shorter younger earlier".split())
_NOT_COMPARATIVE = frozenset("other rather either neither whether however under over after never ever power".split())


def _content(part: str) -> set[str]:
    """Content stems, with the parts of hyphenated words ("classification-trained" also names "classification")."""
    tokens = [t for w in words(part) for t in (w, *(w.split("-") if "-" in w else ()))]
    return {stem(norm(w)) for w in tokens if norm(w) not in FUNCTION_WORDS and len(w) > 2}


def _than_sides(text: str) -> list[tuple[set[str], int, set[str]]]:
    """(what is compared: content stems before "than", the comparison's direction, what it is compared with) of
    "A is more X than B" or "X is higher in A than in B"; "more than ten" is a quantity, not a comparison."""
    out = []
    for m in _THAN.finditer(text):
        before = text[: m.start()]
        comps = [c for c in _COMPARATIVE.finditer(before) if c.group(1).lower() not in _NOT_COMPARATIVE]
        if not comps or (comps[-1].end() >= len(before.rstrip()) and _QUANTITY.match(text, m.end())):
            continue  # no comparative, or one right before "than" a quantity ("more than ten", "higher than 0.5")
        comp = comps[-1].group(1).lower()
        sign = -1 if comp in _LESS or _direction(comp) < 0 else 1
        clause = re.split(r"[,;:]", before)[-1]
        after = re.split(r"[,;:.]", text[m.end() :])[0]
        out.append((_content(clause) - {stem(comp)}, sign, _content(" ".join(words(after)[:6]))))
    return out


# verbs that rank their subject above (+1) or below (-1) their object: "A outperforms B", "A lags behind B"
_RANKING = re.compile(
    r"\b(?:(?P<passive>(?:is|are|was|were|being|been|be)\s+(?:\w+ly\s+)?)?"
    r"(?P<up>outperform\w*|surpass\w*|exceed\w*|outperformed|beat|beats|beaten|dominat\w*|outscor\w*|"
    r"outrank\w*|outdo\w*|outdone|outdid|(?:is|are|was|were)\s+superior\s+to)"
    r"|(?P<down>underperform\w*|trail\w*|lag\w*\s+behind|f[ae]ll\w*\s+short\s+of|"
    r"(?:is|are|was|were)\s+inferior\s+to))\b",
    re.I,
)


def _verb_sides(text: str) -> list[tuple[set[str], int, set[str]]]:
    """(subject, +1 or -1, object) of "A outperforms B", "A trails B", and of the passive "A is outperformed by B"
    (which ranks B above A)."""
    out = []
    for m in _RANKING.finditer(text):
        sign = 1 if m.group("up") else -1
        clauses = re.split(r"[,;:]", text[: m.start()])
        before = clauses[-1] if clauses[-1].strip() or len(clauses) < 2 else clauses[-2]  # ", outperforming B"
        rest = text[m.end() :]
        if m.group("passive") and m.group("up"):
            by = re.match(r"\s*(?:\w+ly\s+)?by\b", rest)
            if by is None:
                continue  # "is exceeded" with no agent: nothing to rank
            rest, sign = rest[by.end() :], -sign
        after = re.split(r"[,;:.]|\s(?:on|in|across|at|while|when|by|with|for)\s", rest)[0]
        left, right = _content(before), _content(" ".join(words(after)[:6]))
        if left and right:
            out.append((left, sign, right))
    return out


def _sides(text: str) -> list[tuple[set[str], int, set[str]]]:
    return _than_sides(text) + _verb_sides(text)


def _reverses(c: tuple[set[str], int, set[str]], e: tuple[set[str], int, set[str]]) -> bool | None:
    """True: the claim's comparison reverses the evidence's; False: it says the same; None: they compare
    different things."""
    (c_left, c_sign, c_right), (e_left, e_sign, e_right) = c, e
    c_left, c_right = c_left - c_right, c_right - c_left  # what tells the two sides apart ("deeper" / "wider")
    e_left, e_right = e_left - e_right, e_right - e_left
    swapped = bool(c_left & e_right) and bool(c_right & e_left) and not (c_left & e_left and c_right & e_right)
    same = bool(c_left & e_left) and bool(c_right & e_right) and not swapped
    if not (swapped or same):
        return None
    return (swapped and c_sign == e_sign) or (same and c_sign != e_sign)


def reversed_comparison(claim: str, evidence: str | Sequence[str]) -> str | None:
    """"A is more X than B" against "B is more X than A" or "A is less X than B"; "A outperforms B" against
    "B outperforms A" or "A is outperformed by B". With several evidence sentences, one reversing the claim is
    enough unless another says the same as the claim."""
    evidence_sides = [e for text in ([evidence] if isinstance(evidence, str) else evidence) for e in _sides(text)]
    for c in _sides(claim):
        found = [r for e in evidence_sides if (r := _reverses(c, e)) is not None]
        if found and all(found):
            return "reverses the comparison the source makes"
    return None


_NUMBER = re.compile(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)(?!\w)")
_SCALE_WORDS = frozenset("k m b thousand million billion hundred times fold percent per".split())
_VERB = VERB_FORM
UNIT_WINDOW = 6  # words after a number in the source that may say what it counts ("57 classification ... tasks")


def _after(text: str, end: int, n: int) -> list[str]:
    return [stem(norm(w)) for w in words(text[end:])[:n] if not w[0].isdigit()]


def _units(text: str) -> dict[str, set[str]]:
    """Per number of the source, the stems of the words that follow it."""
    out: dict[str, set[str]] = {}
    for m in _NUMBER.finditer(text):
        out.setdefault(m.group(1).replace(",", ""), set()).update(_after(text, m.end(), UNIT_WINDOW))
    return out


def unit_mismatch(claim: str, source: str) -> str | None:
    """A number of the claim whose next content words (its unit, or what it counts) follow that number nowhere in
    the source: "213,000 square kilometres" against "213,000 wells"."""
    src = _units(source)
    skip = {stem(w) for w in FUNCTION_WORDS | _SCALE_WORDS}
    for m in _NUMBER.finditer(claim):
        known = src.get(m.group(1).replace(",", ""))
        if not known or claim[m.end() : m.end() + 1] == "%":
            continue
        nxt = re.match(r"\s*([A-Za-z][A-Za-z-]*)", claim[m.end() :])  # the very next word, no punctuation between
        before = words(claim[: m.start()])[-1:]
        year = len(m.group(1)) == 4 and m.group(1)[:2] in ("19", "20")
        if nxt is None or year or (before and before[0][0].isupper()) or _VERB.search(nxt.group(1).lower()):
            continue  # a version ("Eval 2.0"), a year, or a number followed by a verb or a clause
        phrase = re.match(r"[\sA-Za-z-]*", claim[m.end() :])  # up to the next punctuation
        heads = [w for w in _after(phrase.group() if phrase else "", 0, 2) if w not in skip]
        if stem(norm(nxt.group(1))) in skip:
            continue
        if not heads or set(heads) & known or any(h[:5] == k[:5] for h in heads for k in known if len(k) >= 5):
            continue
        if not known - skip:
            continue  # the source says nothing about what its number counts
        return f"{m.group(1)} {' '.join(words(claim[m.end():])[:2])}: the source gives {m.group(1)} for something else"
    return None


_CURRENCY = "$€£¥"


def _heads(text: str, start: int, end: int) -> tuple[str, ...]:
    """What the number at text[start:end] counts: its currency sign, and the first content word after it (past
    "%" and scale words: "213,000 wells", "$5 billion", "one in five surgical trials" -> "surgic")."""
    sign = text[start - 1] if start and text[start - 1] in _CURRENCY else ""
    skip = {stem(w) for w in FUNCTION_WORDS | _SCALE_WORDS}
    after = [w for w in _after(re.split(r"[,;:()]", text[end:])[0], 0, 3) if w not in skip and len(w) > 2]
    return tuple(x for x in (sign, after[0] if after else "") if x)


def different_number(claim: str, source: str, missing: set[str]) -> str | None:
    """A number the source lacks, where the source gives another number for the same thing: "500 wells" against
    "213,000 wells", "$5 billion" against "$750 million". None when the source counts nothing alike (then the
    number is merely not found)."""
    given: dict[tuple[str, ...], list[tuple[str, str]]] = {}
    for m in _NUMBER.finditer(source):
        if heads := _heads(source, m.start(), m.end()):
            given.setdefault(heads, []).append((m.group(1).replace(",", ""), _phrase(source, m)))
    for m in _NUMBER.finditer(claim):
        number = m.group(1).replace(",", "")
        if number not in missing:
            continue
        heads = _heads(claim, m.start(), m.end())
        others = [phrase for n, phrase in given.get(heads, []) if n != number] if heads else []
        if others:
            return f"says {_phrase(claim, m)} where the source says {others[0]}"
    return None


# kept with its number: a unit written as a sign ("87%", "3×", "45 %"), the end of a range ("10-60%", "2001–2010")
_UNIT_SIGN = re.compile(r"(?:[-–]\d[\d,]*(?:\.\d+)?)?\s?[%‰×]|[-–]\d[\d,]*(?:\.\d+)?(?![\w.])")


def _phrase(text: str, m: re.Match[str]) -> str:
    """The number as written, with its sign or unit and the next two words: "$750 million", "213,000 wells",
    "87% more compact" (not "87 more compact", which reads as a count), "10-60% without compromising"."""
    sign = text[m.start() - 1] if m.start() and text[m.start() - 1] in _CURRENCY else ""
    unit = _UNIT_SIGN.match(text, m.end())
    rest = text[unit.end() if unit else m.end() :]
    after = words(re.split(r"[,;:()]", rest)[0])[:2]
    while after and norm(after[-1]) in FUNCTION_WORDS:
        after.pop()
    return " ".join([sign + m.group(1) + (unit.group() if unit else ""), *after])
