"""The command line: `rag index | search | ask | eval | ui`."""

from rag.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
