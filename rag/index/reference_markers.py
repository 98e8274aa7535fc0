"""A paper's own reference markers -> text that is not our citation syntax (issue 35).

Full-text chunks quote a paper's body, and its body cites its own bibliography: "... as before [4][5]". Our answers
cite retrieved sources with the same brackets, so a quoted sentence listed sources 4 and 5 (two unrelated papers
of the library) and the check called the answer "wrong paper". Every backend reads the chunk text, so the markers
are rewritten once, here, at index time: "[4][5]" -> "(ref. 4, 5)", "[2, 3]" -> "(ref. 2, 3)", "[6–8]" ->
"(ref. 6–8)". Author-year citations ("(Smith et al., 2020)"), vectors and intervals ("[0.5, 1.0]") are left alone.
"""

from __future__ import annotations

import re

_GROUP = r"\[\s*\d{1,3}(?:\s*[,;–-]\s*\d{1,3})*\s*\]"
_MARKERS = re.compile(rf"{_GROUP}(?:\s*{_GROUP})*")


def _plain(match: re.Match[str]) -> str:
    inner = re.findall(r"\[([^\]]*)\]", match.group(0))
    numbers = ", ".join(" ".join(part.split()) for part in inner)
    return f"(ref. {numbers})"


def neutral_markers(text: str) -> str:
    """The text with each run of bracketed reference numbers written as "(ref. N, M)"."""
    return _MARKERS.sub(_plain, text)
