"""LaTeX markup in abstracts and titles, undone: what the typeset text says, not what its source typed.

Abstracts copied from arXiv listings, OpenReview or a paper's .tex carry markup: `10\\%`, `classifiers~(ACs)`,
`\\emph{open}`, `$k$-means`, `10--60`. An answer quotes those sentences and the check reads them, so the text is
made plain once, when a paper is read (rag.corpus.paper_fields), and again when stored text is read back
(rag.index.records, rag.retrieve), so an index built before this step answers plainly too. The step is
idempotent: plain text comes out unchanged.

Only markup that cannot mean anything else is undone; text that merely looks like it is kept:
- escapes `\\% \\& \\_ \\# \\$` -> the character; `\\ldots` -> "…";
- a tie `~` between a word (or `.` `,` `)`) and the next word -> a space; not a `~` after a space or an opening
  bracket ("~10x", "(~5%)", "~/data": "about", a home directory), not between digits ("10~20": a range), never
  inside a URL;
- `\\emph{x}`, `\\textit{x}`, `\\textbf{x}` and the like -> x;
- inline math `$...$` that we can read entirely (letters, digits, `^ _ < > = + -` and a few named symbols) -> its
  text; the opening `$` must not follow a letter or digit and must be followed by a non-space, the closing one
  preceded by a non-space and not followed by a digit, so "US$5 and US$10" or "$5 to $10" stay as they are;
- `--` between digits -> an en dash ("10--60" -> "10–60"); "--fast" (a command-line option) stays.
Any other backslash (a Windows path, "\\n", an unknown macro) is left alone: the text is quoted, never guessed at.
"""

from __future__ import annotations

import re

_URL = re.compile(r"(?:https?|ftp)://\S+|www\.\S+", re.I)
_ESCAPE = re.compile(r"\\([%&_#$])")
_SYMBOL = {"ldots": "…", "dots": "…", "textendash": "–", "textemdash": "—"}
_SYMBOL_RE = re.compile(r"\\(" + "|".join(_SYMBOL) + r")(?![A-Za-z])(?:\{\})?")
_STYLE = re.compile(r"\\(?:emph|textit|textbf|textsc|texttt|textrm|textsf|textsl|textup|underline|mbox)"
                    r"\{([^{}\\$]*)\}")  # fmt: skip
_TIE = re.compile(r"(?<=[A-Za-z.,;:)\]}])~(?=[^\s~])|(?<=\d)~(?=[^\s~\d])")
_RANGE = re.compile(r"(?<=\d)--(?=\d)")
# inline math: "$" not after a letter or digit, then a non-space ... a non-space, "$" (see _math for a digit after)
_MATH = re.compile(r"(?<![A-Za-z0-9\\$])\$(?=[^\s$])([^$\n]{1,80}?)(?<=[^\s\\])\$(?!\$)")
_MATH_SYMBOL = {
    "sim": "~", "approx": "≈", "times": "×", "cdot": "·", "pm": "±", "leq": "≤", "le": "≤", "geq": "≥", "ge": "≥",
    "neq": "≠", "ne": "≠", "to": "→", "rightarrow": "→", "leftarrow": "←", "infty": "∞", "ell": "ℓ", "log": "log",
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε", "eta": "η",
    "theta": "θ", "lambda": "λ", "mu": "μ", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ",
    "chi": "χ", "psi": "ψ", "omega": "ω", "Delta": "Δ", "Omega": "Ω", "Sigma": "Σ", "%": "%", ",": " ", ";": " ",
}  # fmt: skip
_MATH_STYLE = re.compile(r"\\(?:mathrm|mathbf|mathit|mathcal|mathsf|mathtt|text|textrm|operatorname)\{([^{}]*)\}")
_MATH_COMMAND = re.compile(r"\\([A-Za-z]+|[%,;])")
_MATH_PLAIN = re.compile(r"[A-Za-z0-9.,:;()\[\]|/^_<>=+\-*'!~ ≈×·±≤≥≠→←∞ℓαβγδεηθλμπρστφχψωΔΩΣ%]+")
_TIGHT = frozenset("<>=+")  # "p < 0.05" reads as "p<0.05", as a paper typed it without spaces


def _math(m: re.Match[str]) -> str:
    if m.string[m.end() : m.end() + 1].isdigit() and "\\" not in m.group(1):
        return m.group()  # "$5/$10": prices; "$\sim$10" is math all the same
    body = _MATH_STYLE.sub(r"\1", m.group(1))
    body = _MATH_COMMAND.sub(lambda c: _MATH_SYMBOL.get(c.group(1), c.group()), body)
    body = re.sub(r"([\^_])\{([^{}]*)\}", r"\1\2", body)  # "10^{6}" -> "10^6"
    body = body.replace("{", "").replace("}", "") if "\\" not in body else body
    if "\\" in body or not _MATH_PLAIN.fullmatch(body):
        return m.group()  # math we cannot read whole is quoted as it was
    return re.sub(r"\s*([<>=])\s*", r"\1", body).strip() if set(body) & _TIGHT else body.strip()


def _plain(text: str) -> str:
    text = _MATH.sub(_math, text)
    text = _ESCAPE.sub(r"\1", text)
    text = _SYMBOL_RE.sub(lambda m: _SYMBOL[m.group(1)], text)
    for _ in range(3):  # "\textbf{\emph{x}}": the inner command first
        text, n = _STYLE.subn(r"\1", text)
        if not n:
            break
    text = _TIE.sub(" ", text)
    return _RANGE.sub("–", text)


def undo_latex_markup(text: str) -> str:
    """`10\\%` -> `10%`, `classifiers~(ACs)` -> `classifiers (ACs)`, `\\emph{x}` -> `x`, `$k$` -> `k`,
    `10--60` -> `10–60`; URLs are left whole, and text without markup comes back unchanged."""
    if "\\" not in text and "~" not in text and "$" not in text and "--" not in text:
        return text  # nothing _plain could change (a single hyphen is never markup): most stored text, every search
    out, at = [], 0
    for url in _URL.finditer(text):
        out += [_plain(text[at : url.start()]), url.group()]
        at = url.end()
    out.append(_plain(text[at:]))
    return "".join(out)
