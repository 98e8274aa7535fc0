"""The "Check a draft" tab's .bib upload: the draft's own bibliography, read as `rag check` reads it
(rag.check.bibfiles.read_bib), and the line that says on the page why citation keys did not resolve. No gradio here
(ui/app.py wires the field; ui/draft_view.py checks the draft).

A key the library does not hold as an id is looked up by the DOI, arXiv id or title of its .bib entry. When keys do
not resolve the page says which of these it was, in one line: the draft names a bibliography (`bibliography:
refs.bib`, `\\bibliography{refs}`) that was not uploaded; no .bib file was uploaded at all; a key is in no uploaded
file; or a key's entry names a paper the library does not hold.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rag.check.bibfiles import BibError, not_given, read_bib
from rag.check.render import shown_key

MAX_BIB_FILES = 20  # .bib files in one upload
MAX_LISTED = 10  # keys named in the line; the rest counted


@dataclass(frozen=True)
class Bibliography:
    """The uploaded .bib files: their names, their entries as reference text, and a note for each file whose entries
    were not all read."""

    names: tuple[str, ...] = ()
    references: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    files: dict[str, str] = field(default_factory=dict)  # key -> the uploaded file its entry came from


def read_uploads(paths: str | Sequence[str] | None) -> Bibliography:
    """The files at `paths` (gradio keeps each upload's name); ValueError with one line for the visitor when one
    cannot be read."""
    given = [paths] if isinstance(paths, str) else list(paths or [])
    if len(given) > MAX_BIB_FILES:
        raise ValueError(f"At most {MAX_BIB_FILES} .bib files can be uploaded at once; {len(given)} were.")
    names: list[str] = []
    refs: dict[str, str] = {}
    files: dict[str, str] = {}
    notes: list[str] = []
    for p in given:
        path = Path(p)
        try:
            bib = read_bib(path, path.name)
        except BibError as exc:
            raise ValueError(f"{exc}, or remove it to check the draft without it.") from None
        names.append(bib.name)
        refs.update(bib.references)
        files.update(dict.fromkeys(bib.references, bib.name))
        notes += [bib.note] if bib.note else []
    return Bibliography(tuple(names), refs, tuple(notes), files)


def _listed(keys: Sequence[str]) -> str:
    shown = ", ".join(map(shown_key, keys[:MAX_LISTED]))
    return shown + (f" and {len(keys) - MAX_LISTED} more" if len(keys) > MAX_LISTED else "")


def _count(n: int) -> str:
    return f"{n} key{'' if n == 1 else 's'} could not be looked up"


def why_unresolved(named: Sequence[str], bib: Bibliography, unknown: Iterable[str]) -> str | None:
    """Why the `unknown` keys (not in the library) did not resolve, in one line; `named`: the .bib files the draft
    names. None when every key resolved (a numbered citation's reason is on its sentence)."""
    keys = [k for k in dict.fromkeys(unknown) if not k.isdigit()]
    if not keys:
        return None
    in_bib = [k for k in keys if k in bib.references]
    rest = [k for k in keys if k not in bib.references]
    missing = not_given(named, bib.names)
    said: list[str] = []
    if rest and missing:
        one = len(missing) == 1
        said.append(f"This draft names {'a bibliography' if one else 'bibliographies'} ({', '.join(missing)}) that "
                    f"{'was' if one else 'were'} not uploaded: {_count(len(rest))}. Add the .bib "
                    f"file{'' if one else 's'} above.")  # fmt: skip
    elif rest and not bib.names:
        it = "it is" if len(rest) == 1 else "they are"
        said.append(f"{_count(len(rest))}: {it} not {'an id' if len(rest) == 1 else 'ids'} in the library, and no "
                    f".bib file was uploaded to look {'it' if len(rest) == 1 else 'them'} up by DOI, arXiv id or "
                    "title. Add the draft's .bib file above.")  # fmt: skip
    elif rest:
        verb = "is not an id in the library nor an entry" if len(rest) == 1 else \
            "are not ids in the library nor entries"  # fmt: skip
        said.append(f"{_count(len(rest))}: {_listed(rest)} {verb} of the uploaded {', '.join(bib.names)}.")
    if in_bib:
        one = len(in_bib) == 1
        files = ", ".join(dict.fromkeys(bib.files.get(k, "") for k in in_bib))
        said.append(f"{_listed(in_bib)} {'is' if one else 'are'} in {files}, but no library paper has "
                    f"{'its' if one else 'their'} DOI, arXiv id or title.")  # fmt: skip
    return " ".join(said)
