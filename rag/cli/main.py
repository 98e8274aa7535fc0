"""`rag index | search | ask | check | export | eval | ui`: argument parsing and terminal output only.

User mistakes (RagError) end in one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
from collections.abc import Sequence
from typing import Any

from rag.cli.output import kind_of, print_json, report_error
from rag.errors import RagError, storage_error
from rag.filters import Filters
from rag.settings import LLM_CHOICES, Settings, load_settings

EXAMPLE_QUESTION = "How many wells are in the Alberta dataset?"


def _common(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("index location (also RAG_HOME, RAG_COLLECTION, RAG_CHROMA_URL, RAG_CONFIG)")
    g.add_argument("--config", metavar="FILE", help="TOML settings file")
    g.add_argument("--home", metavar="DIR", help="data directory (default: ~/.local/share/rag)")
    g.add_argument("--collection", metavar="NAME", help="collection name (default: papers)")
    g.add_argument("--chroma-url", metavar="URL", help="use a Chroma server, e.g. http://127.0.0.1:8000")


def _filters(p: argparse.ArgumentParser) -> None:
    p.add_argument("--year-min", type=int, metavar="YEAR", help="only papers from this year on")
    p.add_argument("--year-max", type=int, metavar="YEAR", help="only papers up to this year")
    p.add_argument("--venue", help="only papers whose venue contains this text")
    p.add_argument("--author", help="only papers with an author whose name contains this text")


def _llm(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--llm", choices=LLM_CHOICES, help="answer backend (default: auto = openai if configured, else extractive)"
    )
    p.add_argument("--model", help="model name at the OpenAI-compatible endpoint")
    p.add_argument("--model-path", metavar="GGUF", help="GGUF file for --llm local (default: packaged SmolLM2-135M)")
    p.add_argument("--base-url", metavar="URL", help="OpenAI-compatible endpoint (also OPENAI_BASE_URL)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rag", description="Ask questions about research-paper abstracts; every claim cites its paper."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser(
        "index",
        help="build or update the index",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Build or update the index so it holds exactly the papers in SOURCE (default: the bundled "
        "ICML 2025 corpus).\nUnchanged papers are not re-embedded. Each file's format is recognised by its content "
        "and named on stderr:\n"
        "  our JSONL / JSON / CSV / BibTeX / plain text, the arXiv metadata snapshot (Kaggle), OpenAlex works,\n"
        "  Semantic Scholar API results, RIS (EndNote, Mendeley, Zotero, Web of Science, Scopus), CSL-JSON\n"
        "  (Zotero, Better BibTeX), and PDFs (with the pdf extra: pip install -e '.[pdf]').",
        epilog="examples:\n"
        "  rag index ~/papers/                                   every supported file in the directory\n"
        "  rag index zotero.json refs.ris --collection mylab\n"
        "  rag index arxiv-metadata-oai-snapshot.json --where 'categories=cs.LG' --since 2024-01-01\n"
        "  rag index pdfs/ --full-text --skip-bad                chunk the PDFs' body too; skip unreadable PDFs",
    )
    p.add_argument(
        "sources", nargs="*", metavar="SOURCE",
        help="files (.jsonl .json .csv .bib .txt .ris .pdf) or directories",
    )  # fmt: skip
    p.add_argument("--rebuild", action="store_true", help="build from scratch (swapped in only when complete)")
    p.add_argument(
        "--skip-bad", action="store_true",
        help="skip malformed records, unreadable PDFs and directory entries with a warning instead of stopping",
    )  # fmt: skip
    p.add_argument(
        "--where", action="append", metavar="FIELD~TEXT",
        help="index only records whose FIELD contains TEXT (FIELD=TEXT: equals; != and !~ negate; repeat to "
        "require several), e.g. 'categories=cs.LG', 'title~diffusion'; applied while the file streams",
    )  # fmt: skip
    p.add_argument("--since", metavar="DATE", help="index only records dated DATE or later (YYYY[-MM[-DD]])")
    p.add_argument("--full-text", action="store_true", help="PDFs: chunk the body too (sections, pages), not only "
                   "the abstract; citations then name the page")  # fmt: skip
    p.add_argument("--follow-links", action="store_true", help="also follow a folder's symbolic links that lead "
                   "out of it (skipped with a warning otherwise; /proc, /sys and /dev are never read)")  # fmt: skip
    p.add_argument("--allow-empty", action="store_true", help="let a run that finds no papers empty the index "
                   "(otherwise refused)")  # fmt: skip
    p.add_argument("--verify", action="store_true", help="check the store, BM25 and the docstore against each other "
                   "(every byte) and rebuild the local copies that disagree with the store; reads no SOURCE")
    p.add_argument("--embedder", choices=["minilm", "openai"], help="embedding backend (default: minilm, local)")
    _common(p)

    p = sub.add_parser(
        "search",
        help="show the papers that best match a query",
        description="Hybrid (dense + BM25) search over the index.",
    )
    p.add_argument("query")
    p.add_argument("-k", type=int, default=None, help="number of papers (default 10)")
    p.add_argument("--mode", choices=["hybrid", "dense", "lexical"], default="hybrid")
    p.add_argument("--json", action="store_true", help="print JSON")
    _filters(p)
    _common(p)

    p = sub.add_parser(
        "ask",
        help="answer a question with citations",
        description="Answer a question from "
        "the indexed abstracts. Every claim cites a retrieved paper; unsupported sentences are flagged.",
    )
    p.add_argument("question")
    p.add_argument("-k", type=int, default=None, help="number of sources (default 5)")
    p.add_argument("--summary", action="store_true", help="literature-summary mode: one line per paper")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of streaming text")
    p.add_argument(
        "--format", choices=["text", "markdown", "bibtex", "json"], default="text",
        help="text: streamed (default); markdown: the answer with a reference list, for notes; bibtex: the cited "
        "papers' BibTeX entries; json: as --json",
    )  # fmt: skip
    _llm(p)
    _filters(p)
    _common(p)

    from rag.cli.check import add_parser as add_check

    _common(add_check(sub))

    p = sub.add_parser(
        "export",
        help="write out the indexed papers (JSONL, BibTeX or CSV)",
        description="Write every indexed paper with its metadata and abstract, to see and reuse your library. "
        "The JSONL output indexes back to the same papers: rag export --format jsonl > lib.jsonl && rag index "
        "lib.jsonl. Full-text chunks are not exported (re-index the PDFs for those).",
    )
    p.add_argument("--format", choices=["jsonl", "bibtex", "csv"], default="jsonl", help="output format (jsonl)")
    p.add_argument("--out", metavar="FILE", help="write to FILE instead of standard output")
    _filters(p)
    _common(p)

    p = sub.add_parser(
        "eval",
        help="score retrieval, citations and answers on dev and held-out question sets",
        description="Run the bundled suites (dev and frozen held-out test question sets, each indexed from its own "
        "corpus), the public benchmarks' dev splits (PubMedQA, bundled; SciFact, read from ../shared/external when it "
        "is there), the claim-checking benchmark and, with --replay, recorded strong-model answers; or your own "
        "QUESTIONS files against the configured index. Writes summary.json, report.md, plots and per-suite results.",
    )
    p.add_argument("questions", nargs="*", default=None, help="question JSONL files (default: the bundled suites)")
    p.add_argument("--out", required=True, metavar="DIR", help="output directory")
    p.add_argument("--split", choices=["dev", "test", "all"], default="all", help="which bundled splits to run")
    p.add_argument("--suite", action="append", metavar="NAME",
                   help="run only this suite (a name, or its corpus: icml2025, synthetic, pubmedqa, scifact); "
                   "repeatable")
    p.add_argument("--cache-home", metavar="DIR",
                   help="index the large benchmark corpora (SciFact) here, kept between runs (default: --home)")
    p.add_argument("-k", type=int, default=None, help="number of sources per answer (default 5)")
    p.add_argument("--replay", action="store_true",
                   help="also answer with recorded strong-model answers through the openai path (eval/recorded/)")
    p.add_argument("--no-claims", action="store_true", help="skip the claim-checking benchmark")
    p.add_argument("--compare", metavar="DIR", help="an earlier run's output directory to compare with")
    p.add_argument("--baselines", action="store_true", help="also run BM25-only and dense-only retrieval")
    p.add_argument("--judge", action="store_true", help="add LLM-as-judge scores (needs an OpenAI-compatible endpoint)")
    p.add_argument("--check", action="store_true", help="exit 1 when a quality gate on a held-out suite fails (CI)")
    p.add_argument("--judge-compare", action="store_true",
                   help="also run the learned sentence judge beside the rules on every dev set (needs an icml2025 "
                   "suite and the model `make train-judge` builds; skipped with a note without it; never gated)")
    _llm(p)
    _common(p)

    p = sub.add_parser(
        "ui",
        help="start the chat web UI",
        description="Start the Gradio chat UI (builds the index first when there is none).",
    )
    p.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=7860)
    p.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                   help="also answer requests for this host name, on any port (repeatable; also RAG_UI_ALLOWED_HOSTS): "
                   "the name visitors use, e.g. behind a proxy. localhost, 127.0.0.1, ::1 and --host are always "
                   "answered; other names get 421 (binding 0.0.0.0 adds none)")  # fmt: skip
    p.add_argument("--operator-controls", metavar="auto|on|off",
                   help="show the data directory and offer to index the sample papers in the page (also "
                   "RAG_UI_OPERATOR_CONTROLS); auto (default): on for loopback without --auth, else off")  # fmt: skip
    p.add_argument("--auth-file", metavar="FILE", help="require a login: USER:PASSWORD read from FILE (chmod 600)")
    p.add_argument("--auth", metavar="USER:PASSWORD",
                   help="require a login; visible in `ps`: prefer RAG_UI_AUTH or --auth-file")  # fmt: skip
    _llm(p)
    _common(p)
    return parser


def settings_from(args: argparse.Namespace) -> Settings:
    overrides: dict[str, Any] = {
        "home": getattr(args, "home", None),
        "collection": getattr(args, "collection", None),
        "chroma_url": getattr(args, "chroma_url", None),
        "llm": getattr(args, "llm", None),
        "model": getattr(args, "model", None),
        "local_model_path": getattr(args, "model_path", None),
        "openai_base_url": getattr(args, "base_url", None),
        "embedder": getattr(args, "embedder", None),
        "ui_operator_controls": getattr(args, "operator_controls", None),
    }
    return load_settings(getattr(args, "config", None), **overrides)


def filters_from(args: argparse.Namespace) -> Filters:
    return Filters(args.year_min, args.year_max, args.venue, args.author)


def _wants_json(argv: Sequence[str]) -> bool:
    return "--json" in argv or "--format=json" in argv or any(
        a == "--format" and b == "json" for a, b in zip(argv, argv[1:], strict=False)
    )


def _parse(argv: Sequence[str], as_json: bool) -> argparse.Namespace:
    """argparse, with a usage error also as a JSON object on stdout for --json commands."""
    caught = io.StringIO()
    try:
        with contextlib.redirect_stderr(caught):
            return build_parser().parse_args(argv)
    except SystemExit as exc:
        sys.stderr.write(caught.getvalue())
        if exc.code not in (0, None) and as_json:
            lines = caught.getvalue().strip().splitlines() or ["invalid arguments"]
            print_json({"error": lines[-1].split("error: ", 1)[-1], "kind": "usage"})  # stderr has argparse's
        raise


def _run(args: argparse.Namespace, settings: Settings) -> int:
    if args.command == "index":
        from rag.cli.index import cmd_index

        return cmd_index(args, settings)
    if args.command == "export":
        from rag.cli.index import cmd_export

        args.filters = filters_from(args)
        return cmd_export(args, settings)
    if args.command == "search":
        from rag.cli.search import cmd_search

        return cmd_search(args, settings, filters_from(args))
    if args.command == "ask":
        from rag.cli.ask import cmd_ask

        return cmd_ask(args, settings, filters_from(args))
    if args.command == "check":
        from rag.cli.check import cmd_check

        return cmd_check(args, settings)
    if args.command == "eval":
        from eval.cli import cmd_eval

        return cmd_eval(args, settings)
    if args.command == "ui":
        from ui.serve import serve

        return serve(settings, host=args.host, port=args.port, auth=args.auth, auth_file=args.auth_file,
                     allowed=args.allowed_host)  # fmt: skip
    return 2


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's final flush does not fail on the closed pipe again."""
    with contextlib.suppress(OSError, ValueError, AttributeError, io.UnsupportedOperation):  # tests capture stdout
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    as_json = _wants_json(argv)
    args = _parse(argv, as_json)
    try:
        return _run(args, settings_from(args))
    except RagError as exc:
        report_error(str(exc), kind_of(exc), as_json=as_json)
        return 2
    except BrokenPipeError:  # the reader left (`rag search ... | head -1`): nothing is wrong, nothing to say
        _silence_stdout()
        return 141  # what a shell reports for a command ended by SIGPIPE
    except OSError as exc:  # the data directory: read-only, full, gone
        report_error(str(storage_error(exc)), "storage", as_json=as_json)
        return 2
    except KeyboardInterrupt:
        if as_json:
            print_json({"error": "interrupted", "kind": "interrupted"})
        print("interrupted; the index keeps its last completed state", file=sys.stderr)
        return 130
