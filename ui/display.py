"""Text as a reader sees it: LaTeX leftovers in answers cleaned for display only.

`readable("auxiliary classifiers~(ACs) give a 10\\% gain")` -> "auxiliary classifiers (ACs) give a 10% gain". Papers'
own text is already read without its markup (rag/corpus/latex_in_abstracts.py); what is left here is a model's
answer that writes LaTeX itself: the answer record, the copy text and the exports keep that as the model wrote it.
No gradio here.
"""

from __future__ import annotations

import re

_COMMAND = re.compile(r"\\(?:emph|textit|textbf|textrm|textsc|texttt|mathrm|mathbf|text)\{([^{}]*)\}")
_ESCAPED = re.compile(r"\\([%&_#$<])")  # LaTeX's escapes, and "\\<" of an answer's neutralised tag (rag.safe_text)
_TIE = re.compile(r"(?<=[^\s/~])~(?=[^\s~])")  # LaTeX's non-breaking space; "~10%" and "/~user" are kept
_QUOTES = (("``", "\u201c"), ("''", "\u201d"))


def readable(text: str) -> str:
    """`\\%` -> `%`, `\\<` -> `<`, `a~(b)` -> `a (b)`, `\\emph{x}` -> `x`, ``` ``x'' ``` -> “x”."""
    if "\\" not in text and "~" not in text and "``" not in text:
        return text
    text = _ESCAPED.sub(r"\1", _COMMAND.sub(r"\1", text))
    for latex, quote in _QUOTES:
        text = text.replace(latex, quote)
    return _TIE.sub(" ", text)
