"""A LaTeX draft -> its running text, with citations as placeholders (rag.check.citations) and paragraph breaks
marked, every line kept where it was (so a sentence can be reported by its line).

Dropped: the preamble, comments, display math and floats (equation, align, figure, table, verbatim, listings,
tikz ...), headings (a heading is no claim), labels and references, footnotes, captions. Inline math keeps its
readable text ($92\\%$ -> 92%, $213{,}000$ -> 213,000). Formatting commands keep their argument. The
thebibliography environment becomes the reference list: \\bibitem{key} -> its text.
"""

from __future__ import annotations

import re

from rag.check.citations import BREAK, mark_latex, mark_numbered, numbered_entries
from rag.corpus.bibtex import latex_to_text

_COMMENT = re.compile(r"(?<!\\)%.*$", re.MULTILINE)
_DROPPED_ENVS = ("equation", "align", "alignat", "gather", "multline", "eqnarray", "displaymath", "math", "figure",
                 "table", "tabular", "tabularx", "verbatim", "Verbatim", "lstlisting", "minted", "tikzpicture",
                 "algorithm", "algorithmic", "comment", "thebibliography", "wrapfigure", "subfigure")  # fmt: skip
_ENV = re.compile(r"\\begin\{(" + "|".join(_DROPPED_ENVS) + r")(\*?)\}.*?\\end\{\1\2\}", re.DOTALL)
_DISPLAY = re.compile(r"\$\$.*?\$\$|\\\[.*?\\\]", re.DOTALL)
_INLINE_MATH = re.compile(r"(?<!\\)\$((?:[^$\\]|\\.)+?)(?<!\\)\$|\\\((.+?)\\\)", re.DOTALL)
_BIBLIOGRAPHY = re.compile(r"\\begin\{thebibliography\}(?:\{[^{}]*\})?(.*?)\\end\{thebibliography\}", re.DOTALL)
_BIBITEM = re.compile(r"\\bibitem\s*(?:\[[^\]]*\])?\s*\{([^{}]+)\}")
_REF_SECTION = re.compile(r"\\(?:section|chapter)\*?\{\s*(?:references|bibliography)\s*\}", re.IGNORECASE)
_COMMAND = re.compile(r"\\([A-Za-z]+)\*?")
_BARE_INPUT = re.compile(r"\\input[ \t]+[^\s{}%\\]+")  # plain TeX's \input file (rag.check.includes reads it)
_SPACING = re.compile(r"(?<=(\d))?(?<!\\)\\([,;:! @/])(?=(\d|\\%))?")  # thin spaces, control space, \@, \/
_HEADINGS = frozenset({"part", "chapter", "section", "subsection", "subsubsection", "paragraph", "subparagraph",
                       "title", "author", "date", "maketitle", "tableofcontents", "appendix"})  # fmt: skip
_DROPPED = frozenset({
    "label", "ref", "eqref", "cref", "Cref", "autoref", "pageref", "nameref", "includegraphics", "bibliography",
    "bibliographystyle", "addbibresource", "printbibliography", "usepackage", "documentclass", "input", "include",
    "subfile", "includeonly",
    "vspace", "hspace", "footnote", "footnotetext", "thanks", "caption", "url", "newcommand", "renewcommand",
    "providecommand", "def", "setlength", "setcounter", "nocite", "affiliation", "email", "keywords", "todo",
    "marginpar", "hypersetup", "graphicspath", "centering", "noindent", "newpage", "clearpage", "small", "large",
    "Large", "footnotesize", "normalsize", "medskip", "bigskip", "smallskip", "par", "linewidth", "textwidth",
})  # fmt: skip
_KEEP_SYMBOLS = frozenset({"ldots", "dots", "textendash", "textemdash", "ss", "ae", "AE", "oe", "OE", "aa", "AA",
                           "LaTeX", "TeX", "textless", "textgreater", "textbackslash"})  # fmt: skip
_MATH_SYMBOLS = {"times": "×", "pm": "±", "leq": "≤", "le": "≤", "geq": "≥", "ge": "≥", "approx": "≈", "sim": "~",
                 "cdot": "·", "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "lambda": "λ",
                 "mu": "μ", "sigma": "σ", "tau": "τ", "theta": "θ", "pi": "π", "rho": "ρ", "infty": "∞",
                 "rightarrow": "→", "to": "→", "ell": "ℓ", "neq": "≠", "%": "%"}  # fmt: skip


def _blank(text: str, mark: str = BREAK) -> str:
    """A span replaced by a paragraph break, its newlines kept (line numbers stay right)."""
    return mark + "\n" * text.count("\n")


def _group_end(text: str, i: int) -> int:
    """Index after the brace group (or [...] option) opening at text[i]."""
    if text[i] == "[":
        end = text.find("]", i)
        return len(text) if end < 0 else end + 1
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "{" and (j == 0 or text[j - 1] != "\\"):
            depth += 1
        elif text[j] == "}" and text[j - 1] != "\\":
            depth -= 1
            if depth == 0:
                return j + 1
    return len(text)


def _args_end(text: str, i: int) -> int:
    """Index after every [...] and {...} argument that follows position i."""
    while True:
        j = i
        while j < len(text) and text[j] in " \t":
            j += 1
        if j < len(text) and text[j] in "[{":
            i = _group_end(text, j)
        else:
            return i


def _commands(text: str) -> str:
    """Headings and the commands of _DROPPED removed with their arguments; \\href{url}{text} -> text."""
    out, pos = [], 0
    while (m := _COMMAND.search(text, pos)) is not None:
        name = m.group(1)
        if name == "href":  # drop the URL argument; the link text stays
            j = m.end()
            while j < len(text) and text[j] in " \t":
                j += 1
            url_end = _group_end(text, j) if j < len(text) and text[j] == "{" else j
            out.append(text[pos : m.start()] + _blank(text[m.start() : url_end], ""))
            pos = url_end
            continue
        if name not in _HEADINGS and name not in _DROPPED:
            out.append(text[pos : m.end()])
            pos = m.end()
            continue
        end = _args_end(text, m.end())
        out.append(text[pos : m.start()] + _blank(text[m.start() : end], BREAK if name in _HEADINGS else ""))
        if name in _HEADINGS:
            out.append(BREAK)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _spacing(m: re.Match[str]) -> str:
    """92.3\\,\\% -> 92.3%, 213\\,000 -> 213,000, e.g.\\ x -> e.g. x, \\! \\@ \\/ -> nothing."""
    if m.group(2) == "," and m.group(1) and m.group(3):
        return "," if m.group(3).isdigit() else ""
    return "" if m.group(2) in "!@/" else " "


def _math(m: re.Match[str]) -> str:
    body = m.group(1) if m.group(1) is not None else m.group(2)
    body = body.replace("{,}", ",").replace("\\,", " ").replace("\\!", "")
    body = re.sub(r"\\([A-Za-z]+|%)", lambda c: _MATH_SYMBOLS.get(c.group(1), ""), body)
    body = re.sub(r"\\mathrm|\\text\w*|[{}^_]", "", body)
    return " ".join(body.split()) + "\n" * m.group(0).count("\n")


def _bibliography(text: str) -> dict[str, str]:
    entries: dict[str, str] = {}
    for env in _BIBLIOGRAPHY.finditer(text):
        items = list(_BIBITEM.finditer(env.group(1)))
        for n, item in enumerate(items):
            end = items[n + 1].start() if n + 1 < len(items) else len(env.group(1))
            raw = _COMMENT.sub("", env.group(1)[item.end() : end])
            raw = _COMMAND.sub(lambda m: m.group() if m.group(1) in _KEEP_SYMBOLS or len(m.group(1)) == 1 else " ",
                               _keep_urls(raw))
            entries[item.group(1).strip()] = " ".join(latex_to_text(raw).split())
    return entries


def _keep_urls(text: str) -> str:
    r"""\url{x} and \href{x}{y} keep their URL in a reference entry (a DOI or arXiv link identifies the paper)."""
    return re.sub(r"\\(?:url|href)\s*\{([^{}]*)\}", lambda m: " " + m.group(1).replace("\\", "") + " ", text)


_NEWCOMMAND = re.compile(r"\\(?:re|provide)?newcommand\*?\s*\{?\\([A-Za-z]+)\}?\s*(?=\{)")


def _macros(text: str) -> str:
    """The draft's own argument-free macros (\\newcommand{\\method}{\\textsc{Dual-Arch}}) written out, once."""
    found: dict[str, str] = {}
    for m in _NEWCOMMAND.finditer(text):
        end = _group_end(text, m.end())
        found.setdefault(m.group(1), text[m.end() + 1 : end - 1])
    for name, body in found.items():
        if "cite" not in name and len(body) < 500:
            text = re.sub(r"\\" + name + r"(?![A-Za-z])(?:\{\})?", body.replace("\\", "\\\\"), text)  # literal
    return text


def strip_latex(text: str) -> tuple[str, dict[str, str]]:
    """(the running text with placeholders and breaks, the reference list: key or number -> entry text)."""
    text = _macros(_COMMENT.sub("", text))
    begin, end = text.find("\\begin{document}"), text.find("\\end{document}")
    if begin >= 0:
        text = "\n" * text.count("\n", 0, begin) + text[begin + len("\\begin{document}") : end if end > begin else None]
    references = _bibliography(text)
    section = _REF_SECTION.search(text)
    if section is not None:  # a "References" section written out: "[1] Author. Title. ..." lines
        listed = latex_to_text(_keep_urls(_commands(text[section.end() :]).replace(BREAK, "\n")))
        references.update(numbered_entries(listed))
        text = text[: section.start()]
    text = _ENV.sub(lambda m: _blank(m.group()), text)
    text = _DISPLAY.sub(lambda m: _blank(m.group()), text)
    text = mark_latex(text)
    if any(k.isdigit() for k in references):
        text = mark_numbered(text)
    text = _INLINE_MATH.sub(_math, text)
    text = _commands(_BARE_INPUT.sub("", text))
    text = re.sub(r"\\item\b\s*(?:\[[^\]]*\])?|\\(?:begin|end)\s*\{[^{}]*\}", BREAK, text)
    text = _SPACING.sub(_spacing, text)
    text = text.replace("\\\\", " ").replace("---", "\u2014").replace("--", "\u2013")
    text = text.replace("``", "\u201c").replace("''", "\u201d")
    text = _COMMAND.sub(lambda m: m.group() if m.group(1) in _KEEP_SYMBOLS or len(m.group(1)) == 1 else "", text)
    return "\n".join(latex_to_text(line) for line in text.split("\n")), references
