"""Answers as Markdown, pure functions (`rag ask --format markdown`; the UI's "Export conversation" button).

    answer_markdown(answer)          -> "## <question>", the answer with its [n] markers, "**References**", "- [1] ..."
    conversation_markdown(answers)   -> every turn, in order, under one title
    reference_line(citation, paper)  -> "[1] Ann Lee, Bo Chen (2024). Title. *Venue*, p. 4. [arxiv.org](https://...)"

The numbers in the answer text are the citation numbers, and the reference list uses the same ones, so a
pasted answer keeps pointing at the right paper. Sentences the citation check did not support are listed
under the answer; an abstention lists the closest papers instead of references.

Untrusted text never becomes markup (rag.safe_text): the answer text was neutralised when it was checked,
metadata (titles, names, venues, the question) is escaped to literal text, and a paper's URL becomes a link only
when it is http(s), shown as its domain: `[arxiv.org](https://arxiv.org/abs/...)`.
"""

from __future__ import annotations

from collections.abc import Sequence

from rag.safe_text import md_escape, md_link
from rag.text import pages_label
from rag.types import Answer, Citation, Paper
from rag.verify.labels import flag_lines, flagged


def _authors(paper: Paper) -> str:
    names = list(paper.authors)
    if len(names) > 6:
        names = [*names[:6], "et al."]
    return ", ".join(names)


def reference_line(citation: Citation | None, paper: Paper, n: int | None = None) -> str:
    """One reference: number, authors (year), title, venue, the cited page(s) and the link (http(s) only)."""
    number = citation.n if citation is not None else n
    parts = []
    who = _authors(paper)
    if who or paper.year:
        parts.append(md_escape(who) + (f" ({paper.year})" if paper.year else "") + ".")
    parts.append(md_escape(paper.title.rstrip(".")) + ".")
    venue = f"*{md_escape(paper.venue)}*" if paper.venue else ""
    where = pages_label(citation.page, citation.page_end) if citation is not None else ""
    if venue or where:
        parts.append(", ".join(x for x in (venue, where) if x) + ".")
    if link := md_link(paper.url):
        parts.append(link)
    return f"[{number}] " + " ".join(parts)


def _flags(answer: Answer) -> list[str]:
    """The sentences the check did not support, each with its label, why, and the evidence sentence."""
    checks = flagged(answer.sentence_checks)
    if not checks:
        unlabelled = [f"- {md_escape(s)}" for s in answer.unsupported]
        return ["", "**Not supported by the cited sources:**", "", *unlabelled] if unlabelled else []
    titles = [h.paper.title for h in answer.sources]
    lines = ["", "**Checked against the cited papers** (✗ contradicted, ⇄ wrong paper, ? not found):", ""]
    for c in checks:
        head, why, evidence = flag_lines(c, titles)
        lines.append(f"- **{md_escape(head)}**: {md_escape(c.sentence)}")
        lines += [f"  - {md_escape(x)}" for x in (f"why: {why}" if why else None, evidence) if x]
    return lines


def answer_markdown(answer: Answer, *, heading: bool = True) -> str:
    """One answer: the question as a heading (unless `heading=False`), the verified text, the unsupported
    sentences flagged, and the references (or, for an abstention, the closest papers)."""
    lines = [f"## {md_escape(answer.question)}", ""] if heading else []
    lines.append(answer.text.strip())
    if not answer.complete:
        lines += ["", "*The answer was cut off before it was complete.*"]
    lines += _flags(answer)
    if answer.abstained and answer.sources:
        lines += ["", "**Closest papers**", ""]
        lines += [f"- {reference_line(None, h.paper, n)}" for n, h in enumerate(answer.sources, 1)]
    elif answer.citations:
        lines += ["", "**References**", ""]
        for c in answer.citations:
            if 1 <= c.n <= len(answer.sources):
                lines.append(f"- {reference_line(c, answer.sources[c.n - 1].paper)}")
    return "\n".join(lines).rstrip() + "\n"


def conversation_markdown(answers: Sequence[Answer], title: str = "Conversation") -> str:
    """A whole conversation, one section per question in order; each answer keeps its own reference list
    (citation numbers restart with every answer, as they do in the chat)."""
    body = "\n".join(answer_markdown(a) for a in answers)
    return f"# {md_escape(title)}\n\n{body}" if answers else f"# {md_escape(title)}\n"


__all__ = ["answer_markdown", "conversation_markdown", "md_escape", "reference_line"]
