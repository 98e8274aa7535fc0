"""Numbers written in words ("three", "two hundred thousand", "twice", "thousands of") must agree with a number
the cited source gives. Digits are checked exactly elsewhere (rag.verify.checker)."""

from __future__ import annotations

import re

_UNITS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve thirteen "
                                       "fourteen fifteen sixteen seventeen eighteen nineteen".split())}  # fmt: skip
_TENS = {w: 10 * i for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if i >= 2}
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_MULTIPLES = {"twice": 2, "double": 2, "doubles": 2, "doubled": 2, "triple": 3, "tripled": 3, "half": 0.5,
              "halves": 0.5, "halved": 0.5, "dozen": 12, "tenfold": 10, "twofold": 2, "threefold": 3}  # fmt: skip
_MAGNITUDE = re.compile(r"\b(dozens|hundreds|thousands|millions|billions)\b", re.I)
_DIGITS = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*([kKmMbB]\b|thousand|million|billion)?")


def _word_numbers(text: str) -> list[float]:
    """Values of the numbers written in words: "two hundred thousand" -> 200000, "twice" -> 2."""
    out: list[float] = []
    tokens = re.findall(r"[a-z]+", text.lower().replace("-", " "))
    value, current, active = 0.0, 0.0, False
    for t in [*tokens, "_end"]:
        if t in _UNITS or t in _TENS:
            current += _UNITS.get(t, 0) + _TENS.get(t, 0)
            active = True
        elif t in _SCALES and active:
            current = max(current, 1) * _SCALES[t]
            if _SCALES[t] >= 1000:
                value, current = value + current, 0.0
        elif t == "and" and active:
            continue
        else:
            if active:
                out.append(value + current)
            value, current, active = 0.0, 0.0, False
            if t in _MULTIPLES:
                out.append(float(_MULTIPLES[t]))
    return [v for v in out if v not in (0.0, 1.0)]  # "one of", "zero-shot": not quantities


def _source_numbers(text: str) -> list[float]:
    out = []
    for digits, scale in _DIGITS.findall(text):
        try:
            v = float(digits.replace(",", ""))
        except ValueError:
            continue
        mult = {"k": 1e3, "m": 1e6, "b": 1e9, "thousand": 1e3, "million": 1e6, "billion": 1e9}.get(scale.lower(), 1)
        out.append(v * mult)
    return out + _word_numbers(text)


_COUNTED = re.compile(
    r"\b(\w+)\s+(?:of\s+(?:the|these|them)\s+)?(?:papers|studies|works|articles|sources|abstracts)\b", re.I
)


def number_word_mismatch(claim: str, source: str, cited: int = 1) -> str | None:
    """Number words must agree with the source; "two papers" may count the papers the claim cites."""
    values = _source_numbers(source)
    counts = {v for m in _COUNTED.finditer(claim) for v in _word_numbers(m.group(1))}
    for v in _word_numbers(claim):
        if v in counts and v == cited:
            continue
        # "over two hundred thousand" for 213,000: a rounded figure within a quarter of a stated one
        if not any(abs(s - v) <= 0.25 * max(abs(v), 1e-9) for s in values):
            return f"{v:g} (written as a word) is not a number the source gives"
    for m in _MAGNITUDE.finditer(claim):
        word = m.group(1).lower()
        if re.search(rf"\b{word}\b", source, re.I):
            continue
        lo = {"dozens": 24, "hundreds": 200, "thousands": 2e3, "millions": 2e6, "billions": 2e9}[word]
        if not any(lo <= s < lo * 500 for s in values):
            return f"'{word}' does not match the numbers the source gives"
    return None
