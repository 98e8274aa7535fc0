"""Citations in a draft, found before its markup is stripped, and held in the text as placeholders so the sentence
splitter keeps them with the sentence they belong to.

Forms:
    pandoc      [@key], [@a; @b], [see @a, p. 3], [-@a], and @key in the running text
    LaTeX       \\cite{a,b}, \\citep[p.~3]{a}, \\citet, \\citealp, \\parencite, \\textcite ... (not \\nocite)
    numbered    [1], [1, 3], [1-3], [2–4, 7] (resolved through the draft's reference list)

A placeholder is KEY_START key KEY_SEP key ... KEY_END, in private-use characters the draft cannot contain (they
are removed from it first). Numbered keys are kept as their digits ("3").
"""

from __future__ import annotations

import re

from rag.safe_text import FORMAT_CHARS

KEY_START, KEY_SEP, KEY_END, BREAK = "\ue010", "\ue012", "\ue011", "\ue013"  # BREAK: a paragraph break
_PRIVATE = re.compile("[\ue010-\ue01f]")  # \ue014-\ue015: rag.check.draft's tokens, \ue016-\ue017: markdown's
PLACEHOLDER = re.compile(f"{KEY_START}([^{KEY_END}]*){KEY_END}")

# a key's characters as pandoc allows them, and invisible format characters (rag.safe_text.FORMAT_CHARS): pandoc
# would end "icml\u200b2025" at the zero-width space; kept in the key, the report can say the key holds one
_KEY_CHARS = r"[\w:.#$%&+?<>~/" + FORMAT_CHARS + "-]*"
_PANDOC_KEY = re.compile(r"-?@\{?([A-Za-z0-9_]" + _KEY_CHARS + ")")
_PANDOC_GROUP = re.compile(r"\[([^\[\]\n]*?(?<![\w.])-?@[^\[\]\n]*)\](?![(:])")
_PANDOC_INLINE = re.compile(r"(?<![\w@.\\/])@([A-Za-z0-9_]" + _KEY_CHARS + ")")
_KEY_TRAILING = re.compile(r"[.:#$%&+?<>~/-]+$")
_LATEX_CITE = re.compile(
    r"\\(?!nocite)[A-Za-z]*cite[A-Za-z]*\*?(?:\s*\[[^\[\]]*\]){0,2}\s*\{([^{}]*)\}"
)
_NUMBERED = re.compile(r"\[(\d{1,4}(?:\s*[-\u2013\u2014,;]\s*\d{1,4})*)\](?![(:])")
_RANGE = re.compile(r"(\d+)\s*[-\u2013\u2014]\s*(\d+)")
MAX_RANGE = 50


def clean_private(text: str) -> str:
    """The draft without the private-use characters the placeholders are made of."""
    return _PRIVATE.sub("", text)


def placeholder(keys: list[str]) -> str:
    keys = [k for k in dict.fromkeys(keys) if k]
    return f"{KEY_START}{KEY_SEP.join(keys)}{KEY_END}" if keys else ""


def keys_of(mark: str) -> list[str]:
    return [k for k in mark.split(KEY_SEP) if k]


def _pandoc_key(raw: str) -> str:
    return _KEY_TRAILING.sub("", raw.rstrip("}"))


def mark_pandoc(text: str) -> str:
    """[@a; @b, p. 3] and @key in the running text -> placeholders."""
    text = _PANDOC_GROUP.sub(lambda m: placeholder([_pandoc_key(k) for k in _PANDOC_KEY.findall(m.group(1))]), text)
    return _PANDOC_INLINE.sub(lambda m: placeholder([_pandoc_key(m.group(1))]), text)


def mark_latex(text: str) -> str:
    """\\cite{a,b} and its variants -> placeholders."""
    return _LATEX_CITE.sub(lambda m: placeholder([k.strip() for k in m.group(1).split(",")]), text)


def numbered_keys(inside: str) -> list[str]:
    """ "1, 3-5" -> ["1", "3", "4", "5"] (a range longer than MAX_RANGE is read as its two ends)."""
    keys: list[str] = []
    for part in re.split(r"\s*[,;]\s*", inside):
        m = _RANGE.fullmatch(part.strip())
        if m:
            a, b = int(m.group(1)), int(m.group(2))
            keys += [str(n) for n in range(a, b + 1)] if 0 <= b - a <= MAX_RANGE else [str(a), str(b)]
        elif part.strip().isdigit():
            keys.append(str(int(part.strip())))
    return keys


def mark_numbered(text: str) -> str:
    """[1], [1, 3], [1-3] -> placeholders."""
    return _NUMBERED.sub(lambda m: placeholder(numbered_keys(m.group(1))), text)


# -- the reference list ----------------------------------------------------------------------------------------------
_REF_HEADING = re.compile(
    r"^[ \t]*(?:#{1,6}[ \t]*|\*\*|__)?(?:\d+\.?[ \t]+)?(references|bibliography|works cited|literature cited|"
    r"reference list)[ \t]*(?:\*\*|__)?:?[ \t]*#*[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)
_ENTRY = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?(?:\[(\d{1,4})\]:?|(\d{1,4})[.)])[ \t]+(\S.*)$")


def reference_section(text: str) -> int | None:
    """Where the last "References" / "Bibliography" heading line starts (None: no such heading)."""
    found = list(_REF_HEADING.finditer(text))
    return found[-1].start() if found else None


def numbered_entries(text: str) -> dict[str, str]:
    """ "[1] Author. Title. doi:..." / "1. Author ..." lines -> {"1": "Author. Title. doi:..."}; a line that
    starts no entry continues the one before."""
    entries: dict[str, str] = {}
    current: str | None = None
    for line in text.splitlines():
        m = _ENTRY.match(line)
        if m:
            current = str(int(m.group(1) or m.group(2)))
            entries[current] = m.group(3).strip()
        elif current is not None and line.strip():
            entries[current] += " " + line.strip()
    return entries
