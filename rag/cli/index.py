"""`rag index` and `rag export`: terminal side of building the index and dumping what it holds."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rag.cli.output import say
from rag.errors import ConfigError
from rag.settings import Settings


def _stderr(message: str) -> None:
    say(message, err=True, flush=True)  # file names and records may hold control characters


def cmd_verify(args: argparse.Namespace, settings: Settings) -> int:
    """`rag index --verify`: 0 when everything agrees (after repairs), 1 when the store needs `rag index SOURCES`."""
    from rag.factory import verify_index

    if args.sources or args.rebuild or args.where or args.since:
        raise ConfigError("--verify checks the index as it is: give it no SOURCE, --rebuild, --where or --since")
    result = verify_index(settings, warn=lambda msg: _stderr(f"warning: {msg}"))
    for line in result.lines():
        say(line)
    for line in result.remaining:
        say(f"error: {line}", err=True)
    return 1 if result.remaining else 0


def cmd_index(args: argparse.Namespace, settings: Settings) -> int:
    if getattr(args, "verify", False):
        return cmd_verify(args, settings)
    from rag.cli.progress import ProgressBar
    from rag.corpus import selection
    from rag.factory import build_index

    chosen = selection(args.where or (), args.since)
    if args.full_text:
        settings = settings.replace(full_text=True)
    if args.follow_links:
        settings = settings.replace(follow_links=True)
    with ProgressBar("reading", unit="B") as reading, ProgressBar("embedding", unit="paper") as bar:

        def read_progress(done: int, total: int, papers: int, current: str) -> None:
            reading.note(f"{papers:,} papers, file {current}" if current else f"{papers:,} papers")
            reading.update(done, total)

        report = build_index(
            settings,
            args.sources or None,
            rebuild=args.rebuild,
            on_error="skip" if args.skip_bad else "stop",
            progress=bar.update,
            warn=lambda msg: _stderr(f"warning: {msg}"),
            info=_stderr,
            read_progress=read_progress,
            selection=chosen,
            allow_empty=args.allow_empty,
        )
    say(report.line())
    return 0


def cmd_export(args: argparse.Namespace, settings: Settings) -> int:
    from rag.export import write_papers
    from rag.factory import indexed_papers

    papers = indexed_papers(settings, filters=args.filters)
    if args.out in (None, "-"):
        count = write_papers(papers, args.format, sys.stdout)
    else:
        out = Path(args.out)
        if out.is_dir():
            raise ConfigError(f"--out {out}: is a directory; give a file name")
        tmp = out.with_name(out.name + ".part")
        try:
            with tmp.open("w", encoding="utf-8", newline="") as f:
                count = write_papers(papers, args.format, f)
            tmp.replace(out)
        except OSError as e:
            tmp.unlink(missing_ok=True)
            raise ConfigError(f"--out {out}: cannot write ({e.strerror or e})") from None
        _stderr(f"wrote {count} papers to {out} ({args.format})")
    return 0
