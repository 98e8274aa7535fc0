"""Words a PDF ran together -> words again, using the document's own vocabulary (issue 35).

Some PDFs set word spaces by moving the pen rather than with a space character, and pypdf then loses them:
"westorethreereplicas", "Wehave chosen 64 MB". Search cannot find such words and quotes read badly. A document
shows it has this defect when many of its long tokens break cleanly into words it also prints separately, at
least one of them a function word ("we", "and", "on"). Only in such a document is every long token that the
document does not print elsewhere broken into those words; a normal paper's rare long words ("understanding")
are never touched.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from rag.corpus.lexicon import STOPWORDS

_TOKEN = re.compile(r"[A-Za-z]+")
_GLUED_RE = re.compile(r"[a-z]{2}[.,;]?[A-Z][a-z]")
MIN_TOKEN = 8  # shorter tokens are left alone
MAX_PIECE = 20
MIN_GLUED = 12  # tokens that break that way before a document counts as one with run-together words


def _vocabulary(pages: Sequence[Sequence[str]]) -> Counter[str]:
    return Counter(t.lower() for lines in pages for line in lines for t in _TOKEN.findall(line))


def _cost(pieces: list[str]) -> tuple[int, int]:
    """Fewer pieces first; then more function words ("clients|can|append", not "client|scan|append")."""
    return len(pieces), -sum(p in STOPWORDS for p in pieces)


def _split(word: str, vocab: Counter[str]) -> list[str] | None:
    """The fewest words the document prints at least twice that make up `word` (lower case, itself excluded):
    a function word and at least two words of three letters or more among them; else None. Two-word breaks
    ("in|expensive", "be|ware") are never trusted."""
    best: list[list[str] | None] = [[]] + [None] * len(word)
    for end in range(1, len(word) + 1):
        for start in range(max(0, end - MAX_PIECE), end):
            head = best[start]
            piece = word[start:end]
            if head is None or piece == word or len(piece) < 2 or vocab[piece] < 2:
                continue
            if best[end] is None or _cost([*head, piece]) < _cost(best[end] or []):
                best[end] = [*head, piece]
    pieces = best[len(word)]
    if not pieces or not any(p in STOPWORDS for p in pieces):
        return None
    content = [p for p in pieces if p not in STOPWORDS]
    if len(content) < 2 or any(len(p) < 3 for p in content):  # "oper|at|or", "per|for|ms": a real word
        return None
    return pieces


def mend_run_together(pages: Sequence[Sequence[str]]) -> list[list[str]]:
    """The pages with run-together words split, when the document shows that defect; else unchanged."""
    vocab = _vocabulary(pages)
    candidates = (t for t, n in vocab.items() if len(t) >= MIN_TOKEN and n <= 2)
    splits = {t: pieces for t in candidates if (pieces := _split(t, vocab)) is not None}
    if len(splits) < MIN_GLUED:
        return [list(lines) for lines in pages]

    def mend(match: re.Match[str]) -> str:
        token = match.group(0)
        pieces = splits.get(token.lower())
        if not pieces:
            return token
        out, at = [], 0
        for piece in pieces:  # the token's own capitals kept
            out.append(token[at : at + len(piece)])
            at += len(piece)
        return " ".join(out)

    return [[_TOKEN.sub(mend, line) for line in lines] for lines in pages]


def glued_words(text: str) -> int:
    """Words run together without a space ("sequencesCorresponding"): pypdf's layout mode writes a sidebar's line
    straight after the body's when they overlap; its plain mode keeps them apart."""
    return len(_GLUED_RE.findall(text))
