"""The .bib files a draft names (\\bibliography{...}, \\addbibresource{...}, Markdown front matter `bibliography:`)
that may be read: its includes' folder rule (rag.check.includes.inside) for its bibliographies too.

    named_bibliographies(names, draft) -> (paths to read, notes)

A name is looked for in the draft's folder (standard input, "-": the current folder). Nothing outside that folder
tree is read, or opened: "..", an absolute path or a symbolic link leading out of it is refused with one note
("bibliography ../x.bib: outside the draft's folder, not read"), never an abort. A name that is not a file there
is left out, as before. A .bib file the user names on the command line (`--bib`) is not the draft's: it is read
wherever it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rag.check.includes import inside


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
