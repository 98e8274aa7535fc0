"""Which files of a folder are corpus files, and which of its entries cannot be read: the walk `rag index DIR` does.

What lies under the named folder is read, and nothing else: a symbolic link (to a folder or a file) is followed
when its target lies under the folder's real path, or anywhere when the user asks (`follow_links`); otherwise it
is left out with one warning naming it and where it leads, and counted. A folder already read (a loop, or the
same folder twice) is not read again, with one warning for the link to it. Nothing under /proc, /sys or /dev is
ever walked, whatever the links or options say. Hidden files and folders are left out.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rag.corpus.formats import SUPPORTED_SUFFIXES
from rag.corpus.text_io import corpus_error, one_line

SYSTEM_FOLDERS = ("/proc", "/sys", "/dev")  # the kernel's views of itself: never walked
_KINDS = {stat.S_ISFIFO: "a FIFO (named pipe)", stat.S_ISCHR: "a character device", stat.S_ISBLK: "a block device",
          stat.S_ISSOCK: "a socket", stat.S_ISDIR: "a directory"}  # fmt: skip


def not_regular(path: Path) -> str | None:
    """Why `path` cannot be read as a corpus file (it is a pipe, a device...), or None when it is a file."""
    mode = path.stat().st_mode
    if stat.S_ISREG(mode):
        return None
    kind = next((name for test, name in _KINDS.items() if test(mode)), "not a regular file")
    return f"{path}: {kind}, not a file; rag reads every corpus file twice, so save it to a file first"


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _system(real: str) -> bool:
    return any(_under(real, folder) for folder in SYSTEM_FOLDERS)


@dataclass
class FolderFiles:
    """What a walk found: the corpus files (sorted), one message per entry that cannot be read (an unlistable
    folder, a broken link, a pipe), and the links not followed because they lead out of the folder."""

    files: list[Path] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    links_out: list[str] = field(default_factory=list)


def folder_files(root: Path, *, follow_links: bool = False, warn: Callable[[str], None]) -> FolderFiles:
    """The corpus files under `root` (see the module's docstring); `warn` hears each link not followed."""
    top = os.path.realpath(root)
    if _system(top):
        raise corpus_error(f"{root}: {top} is a system folder (/proc, /sys, /dev); rag never reads it")
    out = FolderFiles()
    visited: set[str] = set()  # real paths of the folders walked
    links: list[Path] = []

    def unlistable(e: OSError) -> None:
        out.problems.append(f"{e.filename}: cannot list this directory ({e.strerror or e})")

    def leads_out(link: Path | str, real: str) -> bool:
        """Whether the link to `real` must not be followed; when so, said once and counted."""
        if _system(real):
            why = "a system folder; never read"
        elif not follow_links and not _under(real, top):
            why = f"outside {root}; not followed (--follow-links follows it)"
        else:
            return False
        out.links_out.append(str(link))
        warn(one_line(f"{link}: a link to {real}, {why}"))
        return True

    def subfolders(folder: str, dirs: list[str]) -> list[str]:
        """The folders of `folder` to walk on: not hidden, not links (they wait in `links`), not read already, and
        no system folder (met as a plain folder only in a tree a followed link led to, such as `/`)."""
        kept = []
        for d in sorted(d for d in dirs if not d.startswith(".")):
            path = os.path.join(folder, d)
            if os.path.islink(path):
                links.append(Path(path))
                continue
            real = os.path.realpath(path)
            if _system(real):
                warn(one_line(f"{path}: a system folder ({real}); never read"))
            elif real not in visited:
                kept.append(d)
        return kept

    def walk(start: Path) -> None:
        for folder, dirs, names in os.walk(start, onerror=unlistable):
            visited.add(os.path.realpath(folder))
            dirs[:] = subfolders(folder, dirs)
            for name in names:
                path = Path(folder, name)
                if name.startswith(".") or path.suffix.lower() not in SUPPORTED_SUFFIXES:
                    continue
                if os.path.islink(path) and os.path.exists(path) and leads_out(path, os.path.realpath(path)):
                    continue  # (a broken link is reported below, wherever it points)
                _entry(path, out)

    walk(root)
    while links:
        link = links.pop(0)
        real = os.path.realpath(link)
        if leads_out(link, real):
            continue
        if real in visited:
            warn(one_line(f"{link}: a link to {real}, which is read already; not followed"))
            continue
        walk(link)
    out.files.sort()
    out.problems.sort()
    return out


def _entry(path: Path, out: FolderFiles) -> None:
    """A corpus file in a walked folder: kept when it can be read, reported when it cannot."""
    try:
        reason = not_regular(path)
    except FileNotFoundError:
        reason = f"{path}: a broken symbolic link (to {os.readlink(path)})"
    except OSError as e:
        reason = f"{path}: cannot read ({e.strerror or e})"
    if reason is None and not os.access(path, os.R_OK):
        reason = f"{path}: cannot read (permission denied)"
    if reason is None:
        out.files.append(path)
    else:
        out.problems.append(reason)
