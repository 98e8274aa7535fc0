"""A draft's own .bib files: which of those it names may be read, and each read into reference text for its citation
keys, the same way for `rag check` (--bib, and the files the draft names) and for the UI's upload field
(ui/draft_bib.py).

    named_bibliographies(names, draft) -> (paths to read, notes)
    read_bib(path, shown) -> BibFile(name, references, note)   BibError: one line saying why it cannot be read
    not_given(named, given) -> the .bib files the draft names that are not among those given (by file name)

The names a draft gives (\\bibliography{...}, \\addbibresource{...}, Markdown front matter `bibliography:`) follow
its includes' folder rule (rag.check.includes.inside): a name is looked for in the draft's folder (standard input,
"-": the current folder), and nothing outside that folder tree is read, or opened: "..", an absolute path or a
symbolic link leading out of it is refused with one note ("bibliography ../x.bib: outside the draft's folder, not
read"), never an abort. A name that is not a file there is left out, as before. A .bib file the user names on the
command line (`--bib`) or uploads is not the draft's: it is read wherever it is.

A file is read up to MAX_BIB_BYTES; a larger one, one that is not UTF-8 or cannot be opened is a BibError (one line
naming the file, never a traceback). Entries that cannot be parsed are skipped, the others used, and the file's
`note` says how many were skipped and why (rag.corpus.bibtex never raises).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath

from rag.check.includes import inside
from rag.check.resolve import bib_references
from rag.corpus.bibtex import BibEntry, BibProblem, parse_bibtex
from rag.errors import RagError

MAX_BIB_BYTES = 5_000_000  # as a draft (rag.cli.check.MAX_DRAFT_BYTES)


class BibError(RagError):
    """A .bib file that cannot be read at all: too large, not UTF-8, not readable."""


@dataclass(frozen=True)
class BibFile:
    name: str  # as shown to the user
    references: dict[str, str]  # citation key -> "title doi:... arXiv:..." (rag.check.resolve.bib_references)
    note: str | None = None  # entries that could not be read, or no entry at all: one line


def read_bib(path: Path, shown: str | None = None) -> BibFile:
    """The .bib file at `path` (named `shown` in what the user reads)."""
    shown = shown or str(path)
    try:
        with path.open("rb") as f:
            data = f.read(MAX_BIB_BYTES + 1)
    except OSError as exc:
        raise BibError(f"{shown}: cannot read this .bib file ({exc.strerror or type(exc).__name__})") from None
    if len(data) > MAX_BIB_BYTES:
        raise BibError(f"{shown}: larger than {MAX_BIB_BYTES / 1_000_000:g} MB; not read as a .bib file")
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as e:
        raise BibError(f"{shown}: not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start}); save the .bib "
                       "file as UTF-8") from None  # fmt: skip
    parsed = list(parse_bibtex(text))
    entries = [e for e in parsed if isinstance(e, BibEntry)]
    problems = [p for p in parsed if isinstance(p, BibProblem)]
    return BibFile(shown, bib_references(entries), _note(shown, len(entries), problems))


def _note(shown: str, read: int, problems: list[BibProblem]) -> str | None:
    first = f" (line {problems[0].line}: {problems[0].reason})" if problems else ""
    if not read:
        return f"{shown}: no BibTeX entry could be read{first}; its keys were not looked up"
    if problems:
        n = len(problems)
        return f"{shown}: {n} entr{'y' if n == 1 else 'ies'} could not be read and {'was' if n == 1 else 'were'} " \
               f"skipped{first}; the other {read} were used"  # fmt: skip
    return None


def not_given(named: Iterable[str], given: Iterable[str]) -> list[str]:
    """The .bib files the draft names (\\bibliography{refs}, `bibliography: refs.bib`) whose file name is not among
    the `given` files' names."""
    names = {PurePath(g).name.lower() for g in given}
    return [n for n in dict.fromkeys(named) if PurePath(n).name.lower() not in names]


def named_bibliographies(names: Sequence[str], draft: str) -> tuple[list[Path], list[str]]:
    """(the files among `names` under the folder of the draft `draft` ("-": standard input), a note for each
    name outside it)."""
    folder = Path(draft).parent if draft != "-" else Path.cwd()
    root = folder.resolve()
    paths: list[Path] = []
    notes: list[str] = []
    for name in dict.fromkeys(names):
        path = folder / name
        if not inside(path, root):
            notes.append(f"bibliography {name}: outside the draft's folder, not read")
        elif path.is_file():
            paths.append(path)
    return paths, notes
