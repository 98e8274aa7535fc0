"""The "Check a draft" tab's LaTeX project: several uploaded .tex files checked as `rag check main.tex` checks a
folder (rag.check.includes.read_latex, with its bounds: MAX_FILES included files, MAX_BYTES in all, MAX_DEPTH).
No gradio here (ui/draft_view.py calls it).

A browser uploads files without their folders, so each is put in a private temporary folder where the project names
it: `\\input{sections/intro}` puts the uploaded intro.tex at sections/intro.tex (a name leading out of the folder is
not followed, and read_latex refuses it with its note). The main file is the one with a \\begin{document} that is not
commented out. The temporary folder never shows: the page names files as the project does.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path, PurePosixPath

from rag.check import includes
from rag.check.draft import LATEX_SUFFIXES, Manuscript

NOT_PROJECT = "several files are a LaTeX project: upload one Markdown draft, or the .tex files of one project"


def _place(name: str, uploaded: set[str]) -> str | None:
    """Where an included `name` puts an uploaded file, relative to the project's folder (None: not an uploaded file,
    or a path leading out)."""
    rel = PurePosixPath(name if name.endswith(".tex") else f"{name}.tex")
    if rel.is_absolute() or ".." in rel.parts or rel.name not in uploaded:
        return None
    return str(rel)


def read_project(paths: Sequence[str]) -> tuple[str, Manuscript]:
    """(the main file's name, the project as one Manuscript); ValueError with one line for the visitor."""
    files = [Path(p) for p in paths]
    if len(files) - 1 > includes.MAX_FILES:
        raise ValueError(f"The project has more than {includes.MAX_FILES} included files ({len(files) - 1}); "
                         "rag check reads at most that many: check it in parts.")  # fmt: skip
    if (odd := next((f for f in files if not f.name.lower().endswith(LATEX_SUFFIXES)), None)) is not None:
        raise ValueError(f"{odd.name}: {NOT_PROJECT}.")
    names = [f.name for f in files]
    if (twice := next((n for n in names if names.count(n) > 1), None)) is not None:
        raise ValueError(f"Two uploaded files are named {twice}: upload each file of the project once.")
    try:
        total = sum(f.stat().st_size for f in files)
    except OSError:
        raise ValueError("The uploaded files could not be read.") from None
    if total > includes.MAX_BYTES:
        raise ValueError(f"The uploaded files are larger than {includes.MAX_BYTES / 1_000_000:g} MB together; "
                         "check the project in parts.")  # fmt: skip
    texts: dict[str, str] = {}
    for f in files:
        try:
            texts[f.name] = f.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"{f.name}: not UTF-8 text: save the project's files as UTF-8.") from None
        except OSError:
            raise ValueError(f"{f.name}: the uploaded file could not be read.") from None
    mains = [n for n, t in texts.items() if includes.is_main(t)]
    if not mains:
        raise ValueError(f"Of the {len(files)} uploaded .tex files, none of them has \\begin{{document}}: upload the "
                         "project's main file with the files it includes.")  # fmt: skip
    if len(mains) > 1:
        raise ValueError(f"Of the {len(files)} uploaded .tex files, more than one of them has \\begin{{document}}: "
                         f"{', '.join(mains)}. Upload one project at a time.")  # fmt: skip
    return mains[0], _read(mains[0], texts)


def _read(main: str, texts: dict[str, str]) -> Manuscript:
    uploaded = set(texts) - {main}
    where = {n: n for n in uploaded}  # a file no include names: at the top, where read_latex may still look
    for text in texts.values():
        for name in includes.included_names(text):
            rel = _place(name, uploaded)
            if rel is not None and where[base := PurePosixPath(rel).name] == base:  # the first place named wins
                where[base] = rel
    with tempfile.TemporaryDirectory(prefix="rag-draft-") as tmp:
        root = Path(tmp)
        for n, rel in where.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(texts[n], encoding="utf-8")
        (root / main).write_text(texts[main], encoding="utf-8")
        draft = includes.read_latex(texts[main], str(root / main))
        prefix = f"{root}/"
    hide = lambda s: s.replace(prefix, "")  # noqa: E731  # the page names files as the project does
    sentences = tuple(replace(s, file=hide(s.file)) if s.file else s for s in draft.sentences)
    return replace(draft, sentences=sentences, notes=tuple(hide(n) for n in draft.notes))
