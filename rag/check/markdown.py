"""A Markdown draft -> its running text, with citations as placeholders (rag.check.citations) and paragraph breaks
marked, every line kept where it was.

Dropped: YAML front matter, fenced code, HTML comments and tags, display math, headings, tables, horizontal rules,
images, footnote definitions. Links keep their text, emphasis and inline code their words, list items and block
quotes their text (each item its own paragraph). The section under a "References" / "Bibliography" heading is the
reference list ("[1] Author. Title. doi:..." or "1. ..." entries).
"""

from __future__ import annotations

import re

from rag.check.citations import BREAK, mark_latex, mark_numbered, mark_pandoc, numbered_entries, reference_section

_FRONT_MATTER = re.compile(r"\A---[ \t]*\n.*?\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
_FENCE = re.compile(r"^[ \t]{0,3}(```+|~~~+)[^\n]*\n.*?(?:^[ \t]{0,3}\1[ \t]*$|\Z)", re.DOTALL | re.MULTILINE)
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_DISPLAY_MATH = re.compile(r"\$\$.*?\$\$", re.DOTALL)
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}(?:[ \t].*)?$", re.MULTILINE)
_SETEXT = re.compile(r"^([^\n]+)\n[ \t]{0,3}(?:=+|-{2,})[ \t]*$", re.MULTILINE)
_RULE_OR_TABLE = re.compile(r"^[ \t]*(?:(?:[-*_][ \t]*){3,}|\|.*|[-:| \t]*\|[-:| \t]*)$", re.MULTILINE)
_FOOTNOTE_DEF = re.compile(r"^\[\^[^\]]+\]:.*$", re.MULTILINE)
_LINK_DEF = re.compile(r"^[ \t]{0,3}\[[^\]\d][^\]]*\]:[ \t]*\S+.*$", re.MULTILINE)
_FOOTNOTE_REF = re.compile(r"\[\^[^\]]+\]")
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)|!\[[^\]]*\]\[[^\]]*\]")
_LINK = re.compile(r"\[([^\[\]]*)\](?:\([^)]*\)|\[[^\]]*\])")
_AUTOLINK = re.compile(r"<(https?://[^>\s]+)>")
_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_CODE = re.compile(r"(`+)(.+?)\1")
_SHIELDED = re.compile("\ue016(\\d+)\ue017")
_INLINE_MATH = re.compile(r"(?<![\\$])\$([^$\n]+?)\$(?!\d)")
_LIST_ITEM = re.compile(r"^([ \t]*)(?:[-*+]|\d{1,3}[.)])[ \t]+", re.MULTILINE)
_QUOTE = re.compile(r"^[ \t]*(?:>[ \t]?)+", re.MULTILINE)
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EMPHASIS = re.compile(r"(?<![\w*])([*_])(?=\S)(.+?)(?<=\S)\1(?![\w*])")


def _blank(m: re.Match[str]) -> str:
    return BREAK + "\n" * m.group().count("\n")


def _math(m: re.Match[str]) -> str:
    body = m.group(1).replace("\\%", "%").replace("{,}", ",").replace("\\times", "×").replace("\\pm", "±")
    return " ".join(re.sub(r"\\[A-Za-z]+|[{}^_]", "", body).split())


def strip_markdown(text: str) -> tuple[str, dict[str, str]]:
    """(the running text with placeholders and breaks, the numbered reference list: "1" -> entry text)."""
    text = _FRONT_MATTER.sub(_blank, text)
    text = _FENCE.sub(_blank, text)
    text = _COMMENT.sub(_blank, text)
    references: dict[str, str] = {}
    start = reference_section(text)
    if start is not None:
        references = numbered_entries(_LINK.sub(lambda m: m.group(1), text[start:]))
        text = text[:start]
    text = _DISPLAY_MATH.sub(_blank, text)
    text = _SETEXT.sub(lambda m: BREAK + "\n", text)
    text = _HEADING.sub(BREAK, text)
    text = _RULE_OR_TABLE.sub(BREAK, text)
    text = _FOOTNOTE_DEF.sub(BREAK, text)
    text = _LINK_DEF.sub(BREAK, text)
    text = _FOOTNOTE_REF.sub("", text)
    code = [m.group(2) for m in _CODE.finditer(text)]  # inline code is text, never a citation (`@property`, `x[1]`)
    numbers = iter(range(len(code)))
    text = _CODE.sub(lambda m: f"\ue016{next(numbers)}\ue017", text)  # shielded while citations are marked
    text = mark_latex(mark_pandoc(text))  # pandoc Markdown may hold raw LaTeX citations too
    text = mark_numbered(text)
    text = _SHIELDED.sub(lambda m: code[int(m.group(1))], text)
    text = _IMAGE.sub("", text)
    text = _LINK.sub(lambda m: m.group(1), text)
    text = _AUTOLINK.sub(lambda m: m.group(1), text)
    text = _TAG.sub("", text)
    text = _INLINE_MATH.sub(_math, text)
    text = _QUOTE.sub("", text)
    text = _LIST_ITEM.sub(lambda m: BREAK + m.group(1), text)
    text = _STRONG.sub(lambda m: m.group(2), text)
    text = _EMPHASIS.sub(lambda m: m.group(2), text)
    return text.replace("\\", ""), references
