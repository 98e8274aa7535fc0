"""`rag check FILE`: check a researcher's own draft (Markdown or LaTeX) against the indexed library, sentence by
sentence (rag.check). Exit 0: nothing flagged; 1: a sentence is flagged (not found, contradicted, wrong paper, not
in library); 2: a user error (one line on stderr: a missing or unreadable file, an empty draft, no index, no LLM
endpoint for --verify llm)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from rag.check.draft import Manuscript, detect_format, parse_draft
from rag.cli.output import print_json, say
from rag.errors import ConfigError, RagError
from rag.settings import Settings
from rag.verify.labels import SYMBOLS

MAX_DRAFT_BYTES = 5_000_000


class DraftError(RagError):
    """The draft cannot be read or holds nothing to check."""


def read_draft(name: str) -> str:
    """The draft's text: a file, or standard input for "-"."""
    if name == "-":
        data = sys.stdin.buffer.read(MAX_DRAFT_BYTES + 1)
    else:
        path = Path(name)
        if not path.exists():
            raise DraftError(f"{name}: no such file")
        if path.is_dir():
            raise DraftError(f"{name}: is a directory; give a .md or .tex file")
        try:
            with path.open("rb") as f:
                data = f.read(MAX_DRAFT_BYTES + 1)
        except OSError as exc:
            raise DraftError(f"{name}: cannot read it ({exc.strerror or type(exc).__name__})") from None
    if len(data) > MAX_DRAFT_BYTES:
        raise DraftError(f"{name}: larger than {MAX_DRAFT_BYTES // 1_000_000} MB; check it in parts")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise DraftError(f"{name}: not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start}); "
                         "save it as UTF-8") from None  # fmt: skip


def parsed(name: str, text: str, fmt: str | None = None) -> Manuscript:
    """The draft's sentences; a LaTeX file with the files it \\input's (rag.check.includes), standard input
    with a note that they are not read."""
    from rag.check.includes import pasted_note, read_latex

    path = None if name == "-" else name
    fmt = fmt or detect_format(text, path)
    if fmt == "latex" and path is not None:
        draft = read_latex(text, path)
    else:
        draft = parse_draft(text, path, fmt)
        note = pasted_note(text) if fmt == "latex" else None
        draft = replace(draft, notes=(*draft.notes, note)) if note else draft
    if not draft.sentences:
        why = f"; {draft.notes[0]}" if draft.notes else ""
        raise DraftError(f"{name}: no sentence to check (the draft is empty, or only markup){why}")
    return draft


def bib_entries(draft: Manuscript, name: str, given: list[str]) -> tuple[dict[str, str], list[str], list[str]]:
    """Reference text for citation keys from .bib files: --bib, and those the draft names that exist under its
    folder (rag.check.bibfiles, read as the UI reads an uploaded one); (references, the files read, a note for each
    named file outside the folder and for each file whose entries were not all read)."""
    from rag.check.bibfiles import named_bibliographies, read_bib

    named, notes = named_bibliographies(draft.bibliography_files, name)
    refs: dict[str, str] = {}
    read: list[str] = []
    for path in dict.fromkeys([Path(p) for p in given] + named):
        bib = read_bib(path)
        refs.update(bib.references)
        read.append(str(path))
        notes += [bib.note] if bib.note else []
    return refs, read, notes


def cmd_check(args: argparse.Namespace, settings: Settings) -> int:
    from rag.cli.progress import ProgressBar
    from rag.factory import Chats, draft_second_opinion, open_draft_checker, open_retriever

    fmt = "json" if args.json else args.format
    draft = parsed(args.file, read_draft(args.file), args.syntax)
    references, bibs, notes = bib_entries(draft, args.file, args.bib or [])
    draft = replace(draft, notes=(*draft.notes, *notes))
    if args.verify == "llm" and not Chats(settings).configured():
        raise ConfigError("--verify llm needs an OpenAI-compatible endpoint: set OPENAI_BASE_URL (or --base-url) "
                          "or RAG_PRESET")  # fmt: skip
    chats = Chats(settings)
    try:
        checker = open_draft_checker(settings, open_retriever(settings, one_shot=len(draft.sentences) < 5))
        judge = draft_second_opinion(settings, chats, args.model) if args.verify == "llm" else None
        with ProgressBar("checking", unit="sentence") as bar:
            report = checker.check(draft, name=args.file, collection=settings.collection, references=references,
                                   progress=bar.update if len(draft.sentences) > 1 else None,
                                   second_opinion=judge, bibliography=bibs)  # fmt: skip
    finally:
        chats.close()
    if fmt == "json":
        print_json(report.to_record())
    elif fmt == "markdown":
        from rag.check.render import markdown_report

        say(markdown_report(report), end="")
    else:
        from rag.check.render import text_report

        say(text_report(report), end="")
    return report.exit_code


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "check",
        help="check your own draft (Markdown or LaTeX) against the library, sentence by sentence",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Check each sentence of a draft against the indexed papers it cites: supported (with the\n"
        "evidence sentence), not found, contradicted, or wrong paper (another library paper says it). Uncited\n"
        "sentences are searched too and a supporting library paper is suggested (not for a sentence about your\n"
        "own work: \"We propose ...\", \"Our results ...\", \"In this paper, we ...\").\n\n"
        "citations:  pandoc [@key], [@a; @b], [@key, p. 3], @key; LaTeX \\cite{a,b}, \\citep, \\citet, ...;\n"
        "            numbered [1], [1, 3], [1-3] with a References / Bibliography list at the end\n"
        "keys:       an indexed paper's id or BibTeX key, a DOI, an arXiv id; a numbered citation or an unknown\n"
        "            key through its reference entry (DOI, arXiv id or title); --bib and the draft's own\n"
        "            \\bibliography{} / YAML bibliography: files map keys to DOIs and titles (the draft's own only\n"
        "            from under its folder, as its includes)\n"
        "includes:   a .tex file's \\input{...}, \\include{...}, \\subfile{...} are checked too, each sentence\n"
        "            shown as file:line; only inside the main file's folder; one not read is a note, not an error\n"
        "marks:      " + "  ".join(f"{mark} {label}" for label, mark in SYMBOLS.items()) + "\n"
        "exit code:  0 nothing flagged; 1 a sentence is not found, contradicted, wrong paper or not in library;\n"
        "            2 a user error (one line on stderr). A key the library lacks, cited beside one it holds, is\n"
        "            listed (\"Not in the library: ...\") but the sentence is checked against the one it holds",
        epilog="examples:\n"
        "  rag check paper.md\n"
        "  rag check main.tex --bib refs.bib --format markdown > check.md\n"
        "  rag check draft.md --json | jq '.sentences[] | select(.flagged)'     (schema: docs/check-json.md)\n"
        "  OPENAI_BASE_URL=http://127.0.0.1:8011/v1 rag check draft.md --verify llm",
    )
    p.add_argument("file", metavar="FILE", help="the draft: .md / .markdown / .txt or .tex (- reads standard input)")
    p.add_argument("--format", choices=["text", "markdown", "json"], default="text",
                   help="text: readable, one block per sentence (default); markdown: a report to keep; json: as "
                   "--json")  # fmt: skip
    p.add_argument("--json", action="store_true", help="print one JSON object (schema rag-check/1, docs/check-json.md)")
    p.add_argument("--syntax", choices=["markdown", "latex"], default=None,
                   help="the draft's markup (default: from the file name, else from its content)")  # fmt: skip
    p.add_argument("--bib", action="append", metavar="FILE",
                   help="a .bib file of the draft's citation keys (DOIs, arXiv ids, titles); repeatable")  # fmt: skip
    p.add_argument("--verify", choices=["offline", "llm"], default="offline",
                   help="offline: the local check (default); llm: also ask the configured OpenAI-compatible model "
                   "about each sentence the offline check passed (it can only add flags)")  # fmt: skip
    p.add_argument("--model", help="model name at the OpenAI-compatible endpoint (--verify llm)")
    p.add_argument("--base-url", metavar="URL", help="OpenAI-compatible endpoint (also OPENAI_BASE_URL)")
    return p
