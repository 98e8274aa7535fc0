"""Does an answer state the paper's finding? The "leads with a finding" metric of ../shared/external/README.md.

A question's findings (from `findings.jsonl` beside its question file) are the conclusion and results sentences
of its own paper. The answer's first sentence, citation markers removed, *leads with a finding* when it contains a
contiguous run of at least 60 % of the words (lower-cased, punctuation dropped) of one such sentence of at least 6
words. `contains_finding` applies the same test to every sentence of the answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from rag.errors import RagError
from rag.text import split_sentences

MIN_WORDS = 6  # finding sentences shorter than this are not used
SHARE = 0.6  # of the finding sentence's words, as one contiguous run

_MARKER = re.compile(r"\[\d+(?:\s*[,;\u2013-]\s*\d+)*\]")
_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    """Lower-cased words, punctuation dropped."""
    return _WORD.findall(text.lower())


def _longest_common_run(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest contiguous run of words that `a` and `b` share."""
    best = 0
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0] * (len(b) + 1)
        for j, y in enumerate(b, 1):
            if x == y:
                current[j] = previous[j - 1] + 1
                best = max(best, current[j])
        previous = current
    return best


def states(sentence: str, findings: Iterable[str]) -> bool:
    """The sentence holds a contiguous run of >= 60 % of the words of one finding sentence of >= 6 words."""
    said = words(_MARKER.sub(" ", sentence))
    for finding in findings:
        target = words(finding)
        if len(target) >= MIN_WORDS and _longest_common_run(said, target) >= SHARE * len(target):
            return True
    return False


def finding_scores(answer: str, findings: Sequence[str]) -> dict[str, bool] | None:
    """{"leads_with_finding", "contains_finding"} for one answer; None when there is no usable finding sentence."""
    if not any(len(words(f)) >= MIN_WORDS for f in findings):
        return None
    sentences = split_sentences(answer.strip())
    if not sentences:
        return {"leads_with_finding": False, "contains_finding": False}
    return {"leads_with_finding": states(sentences[0], findings),
            "contains_finding": any(states(s, findings) for s in sentences)}  # fmt: skip


def load_findings(path: Path) -> dict[str, list[str]]:
    """Question id -> its own paper's conclusion and results sentences (questions whose paper is not indexed
    are left out: they have no finding to lead with)."""
    out: dict[str, list[str]] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise RagError(f"cannot read findings file {path}: {exc.strerror or exc}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row: Mapping[str, Any] = json.loads(line)
            qid = str(row["id"])
            sentences = [str(s) for s in (row.get("conclusion") or []) + (row.get("results") or [])]
        except (ValueError, KeyError, TypeError) as exc:
            raise RagError(f"{path}:{number}: not a findings row ({exc})") from None
        if row.get("indexed", True) and sentences:
            out[qid] = sentences
    return out
