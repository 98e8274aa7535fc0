"""A CheckReport as text (the terminal: the CLI prints it through rag.cli.output.say, which removes control
characters) and as Markdown (every draft, title and evidence text escaped with md_escape, links http(s) only)."""

from __future__ import annotations

from rag.check.report import LABELS, CheckReport, Cite, PaperRef, SentenceResult, invisible_note
from rag.safe_text import md_escape, md_link, show_invisible
from rag.types import UNCITED, WRONG_PAPER
from rag.verify.labels import MEANINGS, SYMBOLS

WIDTH = 14  # the label column


def shown_key(key: str) -> str:
    """A key as the reader wrote it: a numbered citation "3" as [3]; an invisible character in it as its escape
    ("icml2025\\u200b"), so it does not read as another key."""
    return f"[{key}]" if key.isdigit() else show_invisible(key)


def _invisible(c: Cite) -> str:
    """ "; key 'icml2025\\u200b' holds an invisible character (U+200B ZERO WIDTH SPACE)", or nothing."""
    note = invisible_note(c.key)
    return f"; {note}" if note else ""


def _code(text: str) -> str:
    """A key, id or name as a Markdown code span: shown as written (a backslash escape would show in a code span,
    and HTML is not read in one); a backtick, which would end the span, becomes a quote, and < > become ‹ › so
    no renderer that does read HTML in code finds a tag."""
    text = text.replace("`", "'").replace("<", "‹").replace(">", "›")
    return "`" + " ".join(text.split()) + "`"


def located(s: SentenceResult) -> str:
    """Where the sentence is: "line 12" in the draft itself, "sections/intro.tex:12" in a file it includes."""
    return f"{s.file}:{s.line}" if s.file else f"line {s.line}"


def _sentences(n: int) -> str:
    return f"{n} sentence{'' if n == 1 else 's'}"


def _paper(p: PaperRef) -> str:
    return f"{p.title} ({p.id})"


def summary_line(report: CheckReport) -> str:
    counts = report.counts
    parts = [f"{counts[label]} {label}" for label in LABELS if counts[label]]
    if report.suggested:
        parts.append(f"{report.suggested} uncited with a suggested citation")
    return ", ".join(parts) or "no sentence to check"


def _related(s: SentenceResult) -> str | None:
    if s.label == WRONG_PAPER and s.supported_by:
        return "said by: " + "; ".join(_paper(p) for p in s.supported_by)
    if s.supported_by:
        return "suggested citation: " + "; ".join(_paper(p) for p in s.supported_by)
    return None


def text_report(report: CheckReport) -> str:
    lines = [f"{report.file} ({report.format}): {_sentences(len(report.sentences))} checked against "
             f"{report.library_papers} papers in '{report.collection}' ({' + '.join(report.checks)})", ""]  # fmt: skip
    for s in report.sentences:
        lines.append(f"{s.n:>3} {SYMBOLS[s.label]} {s.label:<{WIDTH}} {located(s)}: {s.text}")
        pad = " " * 6
        for c in s.cites:
            where = f"{_paper(c.paper)}, by {c.matched_by}" if c.paper else "not in the library"
            lines.append(f"{pad}cites {shown_key(c.key)}: {where}{_invisible(c)}")
        if s.reason and s.label != UNCITED:
            lines.append(f"{pad}why: {s.reason}")
        if s.evidence:
            source = f" — {_paper(s.evidence_paper)}" if s.evidence_paper else ""
            lines.append(f'{pad}evidence: "{s.evidence}"{source}')
        if (related := _related(s)) is not None:
            lines.append(f"{pad}{related}")
        if s.llm:
            lines.append(f"{pad}LLM check: {s.llm}")
    lines += ["", f"Summary: {summary_line(report)}."]
    unknown = report.unknown_keys
    if unknown:
        listed = ", ".join(f"{shown_key(k)} (sentence{'s' if len(ns) > 1 else ''} {', '.join(map(str, ns))})"
                           for k, ns in unknown.items())  # fmt: skip
        lines.append(f"Not in the library: {listed}.")
    lines += [f"warning: {note}" for note in report.invisible_notes]
    for note in report.notes:
        lines.append(f"note: {note}")
    flagged = report.flagged
    lines.append(f"{flagged} sentence{'s' if flagged != 1 else ''} flagged ({report.seconds:.1f}s)." if flagged
                 else f"Nothing flagged ({report.seconds:.1f}s).")  # fmt: skip
    return "\n".join(lines) + "\n"


def _md_paper(p: PaperRef) -> str:
    link = md_link(p.url)
    return f"{md_escape(p.title)} ({_code(p.id)})" + (f" {link}" if link else "")


def markdown_report(report: CheckReport) -> str:
    out = [f"# Manuscript check: {md_escape(report.file)}", "",
           f"{_sentences(len(report.sentences))} ({report.format}) checked against {report.library_papers} papers in "
           f"{_code(report.collection)} ({' + '.join(report.checks)}). **{report.flagged} flagged.**", "",
           f"Summary: {md_escape(summary_line(report))}.", ""]  # fmt: skip
    unknown = report.unknown_keys
    if unknown:
        out += ["Not in the library: " + ", ".join(f"{_code(shown_key(k))}" for k in unknown) + ".", ""]
    if report.invisible_notes:
        out += [*(f"> warning: {md_escape(note)}" for note in report.invisible_notes), ""]
    for s in report.sentences:
        out.append(f"{s.n}. {SYMBOLS[s.label]} **{s.label}** ({md_escape(located(s))}): {md_escape(s.text)}")
        for c in s.cites:
            where = f"{_md_paper(c.paper)}, by {md_escape(c.matched_by or '')}" if c.paper else "not in the library"
            out.append(f"    - cites {_code(shown_key(c.key))}: {where}{md_escape(_invisible(c))}")
        if s.reason and s.label != UNCITED:
            out.append(f"    - why: {md_escape(s.reason)}")
        if s.evidence:
            source = f" — {_md_paper(s.evidence_paper)}" if s.evidence_paper else ""
            out.append(f"    - evidence: “{md_escape(s.evidence)}”{source}")
        if s.supported_by:
            kind = "said by" if s.label == WRONG_PAPER else "suggested citation"
            out.append(f"    - {kind}: " + "; ".join(_md_paper(p) for p in s.supported_by))
        if s.llm:
            out.append(f"    - LLM check: {s.llm}")
    out += ["", "Labels: " + "; ".join(f"{SYMBOLS[k]} {k}: {md_escape(v)}" for k, v in MEANINGS.items()) + "."]
    out += [f"> note: {md_escape(n)}" for n in report.notes]
    return "\n".join(out) + "\n"
