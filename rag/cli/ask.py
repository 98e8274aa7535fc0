"""`rag ask`: stream an answer to the terminal, then its verified citations (or one JSON object)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from rag.factory import open_assistant
from rag.filters import Filters
from rag.settings import Settings
from rag.types import Answer, AnswerEvent, DeltaEvent


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
            print(f"  [{n}] {h.paper.title}" + (f"  {h.paper.url}" if h.paper.url else ""))
    elif answer.citations:
        print("\nSources:")
        for c in answer.citations:
            print(f"  [{c.n}] {c.title}" + (f"  {c.url}" if c.url else ""))
    elif answer.sources:  # e.g. a stream cut off before its first citation: still show what was retrieved
        print("\nRetrieved papers (none cited):")
        for n, h in enumerate(answer.sources, 1):
            print(f"  [{n}] {h.paper.title}" + (f"  {h.paper.url}" if h.paper.url else ""))
    for note in answer.notes:
        print(f"note: {note}", file=sys.stderr)
    checked = f", checked {' + '.join(answer.checks)}" if answer.checks else ""
    print(f"\n({answer.backend}: {answer.model}, {answer.latency_s:.2f}s{checked})")


def cmd_ask(args: argparse.Namespace, settings: Settings, filters: Filters) -> int:
    assistant = open_assistant(settings)
    try:
        kwargs: dict[str, Any] = {"k": args.k, "filters": filters, "summary": True if args.summary else None}
        if args.json:
            print(json.dumps(assistant.ask(args.question, **kwargs).to_record(), ensure_ascii=False, indent=2))
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
