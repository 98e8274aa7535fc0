"""Which cited sentence is shown as the evidence of a supported claim (issue 37 item 10).

The closest sentence by embedding may back a claim's wording without its number ("87%" shown against "a novel
framework denoted Dual-Arch"). Among the sentences close enough to back the claim, the one that holds most of the
claim's numbers, then of its names (capitalised words, acronyms, names with digits; a rare lower-case word such as
"plasticity" may be wording, as the check's paraphrase rule has it), is shown first; the closest stays first when
none holds more of them than it does. The label is decided before this and never here.
"""

from __future__ import annotations

from collections.abc import Sequence

from rag.verify.names import quantities, rounded_away
from rag.verify.rules import specific_words
from rag.verify.vocabulary import SourceVocabulary

Evidence = tuple[int, str]  # (index into the cited sources, sentence)
SHOWN = 2  # sentences shown as evidence at most


def _carries(numbers: set[str], terms: list[str], sentence: str) -> tuple[int, int]:
    """How many of the claim's numbers, then of its names, the sentence holds."""
    given = quantities(sentence)
    held = len(numbers & given) + len(rounded_away(numbers - given, given))
    if not terms:
        return held, 0
    vocab = SourceVocabulary(sentence)
    return held, sum(vocab.has(t) for t in terms)


def carrying_first(claim: str, evidence: Sequence[Evidence], close: Sequence[Evidence]) -> list[Evidence]:
    """`evidence`: the sentences shown today, closest first; `close`: the cited sentences close enough to back the
    claim, closest first. The one carrying most of the claim's numbers and names goes first (ties: the closer)."""
    shown = list(evidence)
    numbers, terms = quantities(claim), specific_words(claim, names_only=True)
    if not shown or not (numbers or terms):
        return shown
    pool = [shown[0], *[c for c in close if c != shown[0]]]
    scores = [_carries(numbers, terms, s) for _, s in pool]
    best = max(range(len(pool)), key=lambda k: (scores[k], -k))
    if best == 0:
        return shown
    return [pool[best], *[e for e in shown if e != pool[best]]][:SHOWN]
