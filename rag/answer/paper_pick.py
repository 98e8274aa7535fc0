"""Questions answered by one paper picked first: recommendations and two-step questions.

    recommendation  "which paper should I read on ...", "is there a paper on ...", "can you recommend a paper ...":
                    the paper is named first (its title), then the sentence of it that shows why
    two_step        "the paper whose <property> is <value>: what is its <attribute>?": the paper is identified by
                    the property the question gives (the clause before the colon or comma), then the attribute is
                    answered from that paper alone

Both are told apart by the general form of the question, never by its topic words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rag.answer.question_parts import side_paper
from rag.types import Hit

if TYPE_CHECKING:  # rag.answer.question reads the forms below; sentence_scores reads the question
    from rag.answer.sentence_scores import Scored

_WORK = r"(?:paper|study|work|article|publication)"
RECOMMENDATION = re.compile(
    rf"\b(?:should|could|would|do|must) (?:I|we) (?:read|start with|look at|cite)\b"
    rf"|\b(?:can|could|would|will) you recommend\b|\brecommend (?:me )?(?:a|an|one|some) (?:\w+ )?{_WORK}\b"
    rf"|\b(?:is|was) there (?:a|an|any|one) (?:single )?{_WORK}\b"
    rf"|\b(?:which|what) {_WORK} (?:should|would|could|do you|to read)\b|\bwhere (?:should|do) (?:I|we) start\b",
    re.IGNORECASE,
)
# "The paper that introduces X: how many ...?", "For the paper whose scorer is Y, what ...?": a paper described by a
# property, then what is asked of it (through "its", "it", "they", "their" or "this")
_TWO_STEP = re.compile(
    rf"^\s*(?:(?:take|consider|in|for|from|of|about|regarding)\s+)?the\s+{_WORK}\s+"
    rf"(?P<given>(?:that|which|whose|where|with|about|on|by|co-authored|written|proposing|introducing|in which)\b"
    rf"[^:;,?]{{3,}}?)\s*[:;,]\s*(?P<asked>.+\?)\s*$",
    re.IGNORECASE | re.DOTALL,
)
_REFERS_BACK = re.compile(r"\b(?:its|it|they|their|this|that paper|the paper)\b", re.IGNORECASE)


def two_step_parts(text: str) -> tuple[str, str] | None:
    """(the property that identifies the paper, what is asked of it), or None when the question is not of that form.
    The asked clause must refer back to the paper ("its", "it", "they") or ask a wh-question of it."""
    m = _TWO_STEP.match(text.strip())
    if not m:
        return None
    asked = m.group("asked").strip()
    if not _REFERS_BACK.search(asked) and not re.match(r"\s*(?:what|which|how|who|when|where)\b", asked, re.I):
        return None
    return m.group("given").strip(), asked


def two_step_paper(text: str, hits: Sequence[Hit]) -> int | None:
    """The source (1-based) the two-step question's property points at: the one whose title and text share most of
    its words (rag.answer.question_parts.side_paper), or None."""
    parts = two_step_parts(text)
    return side_paper(parts[0], hits) if parts else None


WHY_WITHIN = 0.6  # the paper's own contribution ("we propose ...") shows why when it scores this share of its best


def recommendation(scored: Sequence[Scored], hits: Sequence[Hit]) -> str | None:
    """The paper to read (the one with the best sentence), named first by its title, then the sentence that shows
    why: what the paper contributes when that scores nearly as well as its best sentence, else its best sentence.
    None with nothing scored."""
    from rag.answer.sentence_scores import is_contribution  # it reads the question, which reads the forms above

    if not scored:
        return None
    own = [c for c in scored if c.n == scored[0].n]  # best first
    why = next((c for c in own if is_contribution(c.text)), own[0])
    why = why if why.score >= WHY_WITHIN * own[0].score else own[0]
    return f"{hits[why.n - 1].paper.title}: {why.quoted()}"
