"""`rag ask`: stream an answer to the terminal, then its verified citations (or one JSON object, Markdown with a
reference list, or the cited papers' BibTeX)."""

from __future__ import annotations

import argparse
from typing import Any

from rag.cli.output import one_line, print_json, say
from rag.factory import open_assistant
from rag.filters import Filters
from rag.safe_text import safe_url
from rag.settings import Settings
from rag.text import pages_label
from rag.types import Answer, AnswerEvent, Citation, DeltaEvent, Hit
from rag.verify.labels import flag_lines, flagged


def _where(page: int | None, page_end: int | None) -> str:
    label = pages_label(page, page_end)
    return f", {label}" if label else ""


def _link(url: str | None) -> str:
    return f"  {safe}" if (safe := safe_url(url)) else ""  # http(s) only: no javascript: or data: URL


def _hit_line(n: int, h: Hit) -> str:
    return f"  [{n}] {h.paper.title}{_where(h.page, h.page_end)}" + _link(h.paper.url)


def _citation_line(c: Citation) -> str:
    return f"  [{c.n}] {c.title}{_where(c.page, c.page_end)}" + _link(c.url)


def print_notes(answer: Answer) -> None:
    for note in answer.notes:
        say(f"note: {one_line(note)}", err=True)


def print_flags(answer: Answer) -> None:
    """Each sentence the check did not support, with its label (✗ contradicted, ? not found, ⇄ wrong paper), why,
    and the evidence sentence; text from sources and the model goes through `say` (no control characters)."""
    checks = flagged(answer.sentence_checks)
    if not checks and not answer.unsupported:
        return
    say("\nChecked against the cited papers (✗ contradicted, ⇄ wrong paper, ? not found):")
    titles = [h.paper.title for h in answer.sources]
    for c in checks:
        head, why, evidence = flag_lines(c, titles)
        say(f"  {head}\n    {c.sentence}")
        if why:
            say(f"    why: {one_line(why)}")
        if evidence:
            say(f"    {one_line(evidence)}")
    for sentence in answer.unsupported if not checks else ():  # judged by a check that kept no labels
        say(f"  ! {sentence}")


def print_answer_footer(answer: Answer, streamed: str) -> None:
    """Everything after the streamed text; all of it goes through `say`, which drops terminal control characters
    (a model or an abstract may carry escape sequences)."""
    if answer.text.strip() != streamed.strip():
        say("\n\nVerified answer:\n" + answer.text)
    if not answer.complete:
        say("\n[incomplete: the model's answer was cut off]")
    print_flags(answer)
    if answer.abstained and answer.sources:
        say("\nClosest papers:")
        for n, h in enumerate(answer.sources, 1):
            say(_hit_line(n, h))
    elif answer.citations:
        say("\nSources:")
        for c in answer.citations:
            say(_citation_line(c))
    elif answer.sources:  # e.g. a stream cut off before its first citation: still show what was retrieved
        say("\nRetrieved papers (none cited):")
        for n, h in enumerate(answer.sources, 1):
            say(_hit_line(n, h))
    print_notes(answer)
    checked = f", checked {' + '.join(answer.checks)}" if answer.checks else ""
    say(f"\n({answer.backend}: {answer.model}, {answer.latency_s:.2f}s{checked})")


def cmd_ask(args: argparse.Namespace, settings: Settings, filters: Filters) -> int:
    fmt = "json" if args.json else getattr(args, "format", "text")
    assistant = open_assistant(settings, one_shot=True)
    try:
        kwargs: dict[str, Any] = {"k": args.k, "filters": filters, "summary": True if args.summary else None}
        if fmt == "json":
            print_json(assistant.ask(args.question, **kwargs).to_record())
            return 0
        if fmt in ("markdown", "bibtex"):
            from rag.export import answer_markdown, cited_bibtex

            answer = assistant.ask(args.question, **kwargs)
            print_notes(answer)
            if fmt == "markdown":
                say(answer_markdown(answer), end="")
                return 0
            entries = cited_bibtex(answer, assistant.retriever.paper)
            if entries:
                say(entries, end="")
            else:
                say("note: the answer cites no paper, so there is no BibTeX to print", err=True)
            return 0
        streamed: list[str] = []
        for event in assistant.ask_stream(args.question, **kwargs):
            if isinstance(event, DeltaEvent):
                streamed.append(event.text)
                say(event.text, end="", flush=True)
            elif isinstance(event, AnswerEvent):
                print_answer_footer(event.answer, "".join(streamed))
        return 0
    finally:
        assistant.close()
