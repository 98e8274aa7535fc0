"""A LaTeX draft on disk with the files it pulls in (\\input{...}, \\include{...}, \\subfile{...}) read in their
place, as LaTeX reads them, and each sentence put back at the file and line it came from.

    read_latex(text, name) -> Manuscript   (each DraftSentence.file: None for the main draft, else the included file)
    pasted_note(text) -> str | None   (a pasted or uploaded draft has no folder: its inputs cannot be followed)
    included_names(text), is_main(text)   (the UI places a project's uploaded files where they are named)

A name is looked for in the main draft's folder (where LaTeX runs), then in the including file's folder; ".tex" is
tried first unless the name ends with it (\\input{sections/intro} reads sections/intro.tex). Commented-out
commands, and those inside comment or verbatim environments, are not followed. Nothing outside the main draft's
folder tree is read: "..", an absolute path or a symbolic link leading out of it is refused. What is not read (not
found, not UTF-8, a cycle, deeper than MAX_DEPTH, outside the folder, left out by \\includeonly) is a note in the
report (Manuscript.notes), never an abort; each note is said once. A \\subfile contributes its document body only.

Each file is read and checked once: a file included again (anywhere in the draft) is not expanded again, and that is
said once for it, so files that include each other many times cannot multiply the draft. At most MAX_FILES files and
MAX_BYTES in all are read; past either bound nothing more is read, and one note says where it stopped.

Files are named as the main draft is on the command line: `rag check paper/main.tex` names paper/sections/intro.tex.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from rag.check.draft import Manuscript, parse_draft

MAX_DEPTH = 10  # \input inside \input ...: deeper than this is not read
MAX_BYTES = 5_000_000  # the draft with everything it includes
MAX_FILES = 1_000  # files included, each counted once
_COMMAND = re.compile(r"\\(input|include|subfile)\s*\{([^{}\n]*)\}|\\(input)[ \t]+([^\s{}%\\]+)")
_HIDDEN = re.compile(r"(?<!\\)%[^\n]*|\\begin\{(comment|verbatim|Verbatim|lstlisting|minted)\}.*?\\end\{\1\}",
                     re.DOTALL)  # fmt: skip
_INCLUDEONLY = re.compile(r"\\includeonly\s*\{([^{}]*)\}")
_BODY = re.compile(r"\\begin\{document\}(.*?)(?:\\end\{document\}|\Z)", re.DOTALL)


def inside(path: Path, root: Path) -> bool:
    """The folder rule: whether `path`, its links followed, lies in the folder tree of `root` (resolved). A loop of
    links has no real path: it is not inside."""
    try:
        return path.resolve().is_relative_to(root)
    except (OSError, RuntimeError):  # "Symlink loop" (RuntimeError up to Python 3.12)
        return False


def _visible(text: str) -> str:
    """The text with comments and comment/verbatim environments blanked, every position and newline kept."""
    return _HIDDEN.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)


def _commands(text: str) -> list[re.Match[str]]:
    return list(_COMMAND.finditer(_visible(text)))


@dataclass
class _Line:
    text: str
    file: str | None  # None: the main draft
    line: int


@dataclass
class _Reader:
    root: Path  # the main draft's folder, resolved: nothing outside it is read
    shown_root: Path  # that folder as the main draft was named
    only: set[str] | None  # \includeonly's names, if any
    notes: list[str] = field(default_factory=list)
    size: int = 0
    seen: set[Path] = field(default_factory=set)  # files already read: not expanded again
    full: bool = False  # a bound (MAX_FILES, MAX_BYTES) was hit: nothing more is read

    def inside(self, path: Path) -> bool:
        return inside(path, self.root)

    def shown(self, path: Path) -> str:
        return str(self.shown_root / path.relative_to(self.root))

    def candidates(self, name: str, folder: Path) -> list[Path]:
        names = [name] if name.endswith(".tex") else [f"{name}.tex", name]
        return [base / n for base in dict.fromkeys((self.root, folder)) for n in names]

    def lines(self, text: str, file: str | None, folder: Path, stack: tuple[Path, ...]) -> list[_Line]:
        """`text` (of `file`, in `folder`) as lines, each \\input replaced by the lines of the file it names."""
        out: list[_Line] = []
        current, at, after_include, pos = "", 1, False, 0

        def flush() -> None:
            nonlocal current, after_include
            if not (after_include and not current.strip()):
                out.append(_Line(current, file, at))
            current, after_include = "", False

        def add(chunk: str) -> None:
            nonlocal current, at
            first, *rest = chunk.split("\n")
            current += first
            for piece in rest:
                flush()
                at += 1
                current = piece

        for m in _commands(text):
            add(text[pos : m.start()])
            pos = m.end()
            kind, name = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
            included = self.include(kind, name.strip(), m.group(), folder, stack)
            if included:
                if current.strip():
                    flush()
                else:
                    current = ""
                out += included
                after_include = True
        add(text[pos:])
        if current:  # not the empty piece after the file's last newline (it would end the paragraph)
            flush()
        return out

    def include(self, kind: str, name: str, written: str, folder: Path, stack: tuple[Path, ...]) -> list[_Line]:
        if not name:
            return []
        found = self.candidates(name, folder)
        path = next((p for p in found if p.exists()), None) or next((p for p in found if self.inside(p)), None)
        if path is None or not self.inside(path):
            return self._note(f"{written}: outside the draft's folder, not read")
        real = path.resolve()
        shown = self.shown(real)
        if kind == "include" and self.only is not None and name.removesuffix(".tex") not in self.only:
            return self._note(f"{shown}: not in \\includeonly, not checked")
        if not path.exists():
            return self._note(f"{shown}: not found, not checked")
        if real in stack:
            return self._note(f"{shown}: included again by {self.shown(stack[-1])} (a cycle), not read again")
        if real in self.seen:
            return self._note(f"{shown}: included more than once, read and checked the first time only")
        if len(stack) > MAX_DEPTH:
            return self._note(f"{shown}: included more than {MAX_DEPTH} levels deep, not checked")
        if not path.is_file():  # a directory, a device or a pipe (which would never end)
            return self._note(f"{shown}: not a file, not checked")
        if self.full:
            return []
        if len(self.seen) >= MAX_FILES:
            return self._stop(f"more than {MAX_FILES} included files: {shown} and the files after it not checked")
        self.seen.add(real)
        try:
            with path.open("rb") as f:
                data = f.read(MAX_BYTES - self.size + 1)
        except OSError as exc:
            return self._note(f"{shown}: cannot be read ({exc.strerror or type(exc).__name__}), not checked")
        self.size += len(data)
        if self.size > MAX_BYTES:
            return self._stop(f"the draft with its files is larger than {MAX_BYTES / 1_000_000:g} MB: {shown} and "
                              "the files after it not checked")  # fmt: skip
        try:
            text = _normal(data.decode("utf-8"))
        except UnicodeDecodeError:
            return self._note(f"{shown}: not UTF-8 text, not checked")
        if kind == "subfile":
            text = _body(text)
        return self.lines(text, shown, real.parent, (*stack, real))

    def _note(self, note: str) -> list[_Line]:
        if note not in self.notes:
            self.notes.append(note)
        return []

    def _stop(self, note: str) -> list[_Line]:
        self.full = True
        return self._note(note)


def _normal(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n").removeprefix("\ufeff")


def _body(text: str) -> str:
    """A subfile's document body, its lines kept where they are (its preamble and end blanked)."""
    m = _BODY.search(_visible(text))
    if m is None:
        return text
    return re.sub(r"[^\n]", "", text[: m.start(1)]) + text[m.start(1) : m.end(1)]


def _includeonly(text: str) -> set[str] | None:
    m = _INCLUDEONLY.search(_visible(text))
    return None if m is None else {n.strip() for n in m.group(1).split(",") if n.strip()}


def read_latex(text: str, name: str) -> Manuscript:
    """The LaTeX draft at `name` (its text already read) with every file it includes, parsed into sentences."""
    text = _normal(text)
    main = Path(name)
    root = main.parent.resolve()
    reader = _Reader(root, main.parent, _includeonly(text), size=len(text.encode("utf-8")))
    lines = reader.lines(text, None, root, (main.resolve(),))
    draft = parse_draft("\n".join(line.text for line in lines), name, "latex")
    placed = []
    for s in draft.sentences:
        origin = lines[min(s.line, len(lines)) - 1]
        placed.append(replace(s, file=origin.file, line=origin.line))
    return replace(draft, sentences=tuple(placed), notes=(*draft.notes, *reader.notes))


def pasted_note(text: str) -> str | None:
    """One line for a LaTeX draft without its folder (pasted, uploaded, standard input) that includes files."""
    found = _commands(_normal(text))
    if not found:
        return None
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    return (f"{found[0].group()}{more}: included files are not read from a pasted or uploaded draft; run "
            "`rag check main.tex` on the folder")  # fmt: skip


def included_names(text: str) -> list[str]:
    """The names a LaTeX text's \\input, \\include and \\subfile commands give, as written (commented-out ones not)."""
    return [(m.group(2) if m.group(1) else m.group(4)).strip() for m in _commands(_normal(text))]


def is_main(text: str) -> bool:
    """Whether a LaTeX text is a document's main file: a \\begin{document} that is not commented out."""
    return "\\begin{document}" in _visible(_normal(text))
