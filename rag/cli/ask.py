"""`rag ask`: stream an answer to the terminal, then its verified citations (or one JSON object, Markdown with a
reference list, or the cited papers' BibTeX)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from rag.factory import open_assistant
from rag.filters import Filters
from rag.settings import Settings
from rag.text import pages_label
from rag.types import Answer, AnswerEvent, Citation, DeltaEvent, Hit


def _where(page: int | None, page_end: int | None) -> str:
    label = pages_label(page, page_end)
    return f", {label}" if label else ""


def _hit_line(n: int, h: Hit) -> str:
    return f"  [{n}] {h.paper.title}{_where(h.page, h.page_end)}" + (f"  {h.paper.url}" if h.paper.url else "")


def _citation_line(c: Citation) -> str:
    return f"  [{c.n}] {c.title}{_where(c.page, c.page_end)}" + (f"  {c.url}" if c.url else "")


def print_answer_footer(answer: Answer, streamed: str) -> None:
    if answer.text.strip() != streamed.strip():
        print("\n\nVerified answer:\n" + answer.text)
    if not answer.complete:
        print("\n[incomplete: the model's answer was cut off]")
    if answer.unsupported:
        print("\nNot supported by the cited sources (treat with care):")
        for sentence in answer.unsupported:
            print(f"  ! {sentence}")
    if answer.abstained and answer.sources:
        print("\nClosest papers:")
        for n, h in enumerate(answer.sources, 1):
            print(_hit_line(n, h))
    elif answer.citations:
        print("\nSources:")
        for c in answer.citations:
            print(_citation_line(c))
    elif answer.sources:  # e.g. a stream cut off before its first citation: still show what was retrieved
        print("\nRetrieved papers (none cited):")
        for n, h in enumerate(answer.sources, 1):
            print(_hit_line(n, h))
    for note in answer.notes:
        print(f"note: {note}", file=sys.stderr)
    checked = f", checked {' + '.join(answer.checks)}" if answer.checks else ""
    print(f"\n({answer.backend}: {answer.model}, {answer.latency_s:.2f}s{checked})")


def cmd_ask(args: argparse.Namespace, settings: Settings, filters: Filters) -> int:
    fmt = "json" if args.json else getattr(args, "format", "text")
    assistant = open_assistant(settings)
    try:
        kwargs: dict[str, Any] = {"k": args.k, "filters": filters, "summary": True if args.summary else None}
        if fmt == "json":
            print(json.dumps(assistant.ask(args.question, **kwargs).to_record(), ensure_ascii=False, indent=2))
            return 0
        if fmt in ("markdown", "bibtex"):
            from rag.export import answer_markdown, cited_bibtex

            answer = assistant.ask(args.question, **kwargs)
            for note in answer.notes:
                print(f"note: {note}", file=sys.stderr)
            if fmt == "markdown":
                print(answer_markdown(answer), end="")
                return 0
            entries = cited_bibtex(answer, assistant.retriever.paper)
            if entries:
                print(entries, end="")
            else:
                print("note: the answer cites no paper, so there is no BibTeX to print", file=sys.stderr)
            return 0
        streamed: list[str] = []
        for event in assistant.ask_stream(args.question, **kwargs):
            if isinstance(event, DeltaEvent):
                streamed.append(event.text)
                print(event.text, end="", flush=True)
            elif isinstance(event, AnswerEvent):
                print_answer_footer(event.answer, "".join(streamed))
        return 0
    finally:
        assistant.close()
