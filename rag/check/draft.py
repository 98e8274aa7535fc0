"""A researcher's draft (Markdown or LaTeX) -> its sentences, each with the citation keys it carries and its line.

    parse_draft(text, name) -> Manuscript(format, sentences, references, bibliography_files)

The format comes from the file name (.tex/.latex/.ltx, .md/.markdown/.txt...) or, without one, from the content.
Citations are found first (rag.check.citations), the markup is stripped (rag.check.latex, rag.check.markdown), the
running text is cut into paragraphs and sentences (rag.text.split_sentences). A citation written after the full
stop ("... wells. [3]", "... wells.\\cite{x}") belongs to the sentence before it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.check.citations import BREAK, KEY_END, KEY_SEP, KEY_START, PLACEHOLDER, clean_private, keys_of
from rag.check.latex import strip_latex
from rag.check.markdown import strip_markdown
from rag.text import split_sentences

LATEX_SUFFIXES = (".tex", ".latex", ".ltx")
MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdown", ".mkd", ".rmd", ".qmd", ".txt")
_LATEX_HINT = re.compile(r"\\(?:documentclass|begin\{|section\*?\{|cite[pt]?\*?[\[{]|usepackage|emph\{|textbf\{)")
# citations after a full stop that end the sentence: the next thing is a capital, another paragraph or the end (a
# citation followed by a lower-case word is the subject of the next sentence: "\\citet{x} show that ...")
_AFTER_STOP = re.compile(f"([.!?])((?:\\s*{KEY_START}[^{KEY_END}]*{KEY_END})+)(?=\\s*(?:$|[A-Z0-9\"'(\\[]))")
_TOKEN = re.compile("\\[0\ue014(\\d+)\ue015\\]")  # a placeholder while sentences are split: "[0" starts one
_PARAGRAPH = re.compile(f"\\n[ \\t]*\\n|{BREAK}")
_BIB_LATEX = re.compile(r"\\(?:bibliography|addbibresource)\s*(?:\[[^\]]*\])?\s*\{([^{}]+)\}")
_BIB_YAML = re.compile(r"\A---[ \t]*\n.*?^bibliography:[ \t]*(\S[^\n]*)$", re.DOTALL | re.MULTILINE)
MIN_WORDS = 3  # shorter pieces ("Table 2.", "Thanks.") are not claims


@dataclass(frozen=True)
class DraftSentence:
    text: str  # the sentence as a reader sees it, citations shown as [key; key]
    claim: str  # what is checked: the sentence without its citations
    keys: tuple[str, ...]  # citation keys in order ("smith2020", or "3" for a numbered citation)
    line: int  # 1-based line of the draft where the sentence starts (of `file` when it is set)
    file: str | None = None  # the included file it is in (rag.check.includes); None: the draft itself


@dataclass(frozen=True)
class Manuscript:
    format: str  # "markdown" | "latex"
    sentences: tuple[DraftSentence, ...]
    references: dict[str, str]  # the draft's reference list: number or \bibitem key -> entry text
    bibliography_files: tuple[str, ...] = ()  # .bib files the draft names (\bibliography{}, YAML bibliography:)
    notes: tuple[str, ...] = ()  # what was not read, in one line each (an included file not found ...)

    @property
    def keys(self) -> list[str]:
        return list(dict.fromkeys(k for s in self.sentences for k in s.keys))


def detect_format(text: str, name: str | None = None) -> str:
    lowered = (name or "").lower()
    if lowered.endswith(LATEX_SUFFIXES):
        return "latex"
    if lowered.endswith(MARKDOWN_SUFFIXES):
        return "markdown"
    return "latex" if len(_LATEX_HINT.findall(text[:200_000])) >= 2 else "markdown"


def _shown(keys: list[str]) -> str:
    return "[" + "; ".join(keys) + "]"


def _tidy(text: str) -> str:
    text = " ".join(text.split())
    text = re.sub(r"\s+([.,;:!?)])", r"\1", text)
    text = re.sub(r"\(\s*(?:see|e\.g\.,?|cf\.)?\s*\)", "", text)
    return " ".join(text.replace("( ", "(").split())


def _sentences(block: str, first_line: int) -> list[DraftSentence]:
    block = _AFTER_STOP.sub(lambda m: m.group(2) + m.group(1), block)  # "wells. [3] Next" -> "wells [3]. Next"
    marks = PLACEHOLDER.findall(block)
    tokens = iter(range(len(marks)))
    tokenised = PLACEHOLDER.sub(lambda m: f"[0\ue014{next(tokens)}\ue015]", block)
    spaced = tokenised.replace("\n", " \n ")
    out: list[DraftSentence] = []
    pos = 0
    for raw in split_sentences(spaced):
        head = raw[:40]  # a sentence is found where the one before it ended: its line is the newlines before it
        at = spaced.find(head, pos)
        line = first_line + spaced.count("\n", 0, at if at >= 0 else pos)
        pos = at + len(head) if at >= 0 else pos
        piece = _TOKEN.sub(lambda m: f"{KEY_START}{marks[int(m.group(1))]}{KEY_END}", raw)
        keys = [k for m in PLACEHOLDER.finditer(piece) for k in keys_of(m.group(1))]
        if out and not PLACEHOLDER.sub("", piece).strip(" \n.,;"):  # only citations: they belong to the sentence before
            prev = out.pop()
            joined = list(dict.fromkeys([*prev.keys, *keys]))
            out.append(DraftSentence(f"{prev.claim} {_shown(joined)}", prev.claim, tuple(joined), prev.line))
            continue
        claim = _tidy(PLACEHOLDER.sub(" ", piece))
        if len(re.findall(r"[^\W\d_]{2,}", claim)) < MIN_WORDS:
            continue
        text = _tidy(PLACEHOLDER.sub(lambda m: " " + _shown(keys_of(m.group(1))), piece))
        out.append(DraftSentence(text, claim, tuple(dict.fromkeys(keys)), line))
    return out


def _bibliography_files(text: str, fmt: str) -> tuple[str, ...]:
    if fmt == "latex":
        names = [n.strip() for m in _BIB_LATEX.finditer(text) for n in m.group(1).split(",")]
        return tuple(n if n.endswith(".bib") else f"{n}.bib" for n in names if n)
    m = _BIB_YAML.search(text)
    return (m.group(1).strip().strip("'\"[]"),) if m else ()


def parse_draft(text: str, name: str | None = None, fmt: str | None = None) -> Manuscript:
    text = clean_private(text.replace("\r\n", "\n").replace("\r", "\n").removeprefix("\ufeff"))
    fmt = fmt or detect_format(text, name)
    body, references = strip_latex(text) if fmt == "latex" else strip_markdown(text)
    sentences: list[DraftSentence] = []
    pos, line = 0, 1
    for m in [*_PARAGRAPH.finditer(body), None]:
        end = m.start() if m is not None else len(body)
        sentences += _sentences(body[pos:end], line)
        if m is None:
            break
        line += body.count("\n", pos, m.end())
        pos = m.end()
    return Manuscript(fmt, tuple(sentences), references, _bibliography_files(text, fmt))


__all__ = ["Manuscript", "DraftSentence", "KEY_SEP", "detect_format", "parse_draft"]
