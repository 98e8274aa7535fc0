"""Hardening round 4, item 1: `rag index DIR` reads what lies under DIR, not what its links lead to.

Before: `ln -s .. lib/up; rag index lib` indexed the papers of lib's parent, and a link to `/` walked the whole
file system, /proc included. Now a symbolic link (to a folder or a file) whose target lies outside the named
folder's real path is not followed: one warning naming it and where it leads, and the report line counts it.
`--follow-links` (setting `follow_links`, RAG_FOLLOW_LINKS) follows such links; /proc, /sys and /dev are never
walked, even then. Links that stay inside the folder are followed as before, loops are still read once, and a
file named on the command line is read wherever it is (the user asked for it). Every link here is a real one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag.corpus import CorpusStats, read_papers
from rag.errors import CorpusError
from tests.conftest import CLI


def _write(path: Path, *ids: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"id": i, "title": f"Paper {i}", "abstract": f"Ice shelves in study {i} thin."})
                            + "\n" for i in ids), encoding="utf-8")  # fmt: skip


def _outside(link: Path, target: str | Path, root: Path) -> str:
    return f"{link}: a link to {target}, outside {root}; not followed (--follow-links follows it)"


@pytest.fixture
def listed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every directory os.walk lists (it lists through os.scandir), by real path."""
    seen: list[str] = []
    real_scandir = os.scandir

    def scandir(path: object = ".") -> object:
        seen.append(os.path.realpath(path))  # type: ignore[arg-type]
        return real_scandir(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", scandir)
    yield seen


def _inside(paths: list[str], folder: Path) -> bool:
    top = os.path.realpath(folder)
    return all(p == top or p.startswith(top + os.sep) for p in paths)


def test_a_link_to_the_parent_folder_is_not_followed_and_is_named(tmp_path: Path, listed: list[str]) -> None:
    _write(tmp_path / "parent.jsonl", "parent-1")
    lib = tmp_path / "lib"
    _write(lib / "own.jsonl", "own-1")
    (lib / "up").symlink_to("..", target_is_directory=True)  # `ln -s .. lib/up`
    warnings: list[str] = []
    stats = CorpusStats()
    papers = read_papers([lib], warn=warnings.append, stats=stats)
    assert [p.id for p in papers] == ["own-1"]
    assert warnings == [_outside(lib / "up", tmp_path, lib)]
    assert stats.links_out == [str(lib / "up")]
    assert _inside(listed, lib), listed  # lib's parent was never listed


def test_a_link_to_the_root_of_the_file_system_walks_nothing_outside(tmp_path: Path, listed: list[str]) -> None:
    lib = tmp_path / "lib"
    _write(lib / "own.jsonl", "own-1")
    (lib / "everything").symlink_to("/", target_is_directory=True)
    (lib / "kernel").symlink_to("/proc/self", target_is_directory=True)
    warnings: list[str] = []
    papers = read_papers([lib], warn=warnings.append)
    assert [p.id for p in papers] == ["own-1"]
    assert warnings == [_outside(lib / "everything", "/", lib),
                        f"{lib / 'kernel'}: a link to {os.path.realpath('/proc/self')}, a system folder; never read"]
    assert _inside(listed, lib), listed  # neither / nor /proc was listed


def test_a_link_to_a_sibling_folder_is_skipped_unless_follow_links(tmp_path: Path) -> None:
    _write(tmp_path / "other" / "sibling.jsonl", "sibling-1")
    lib = tmp_path / "lib"
    _write(lib / "own.jsonl", "own-1")
    (lib / "other").symlink_to(tmp_path / "other", target_is_directory=True)
    warnings: list[str] = []
    assert [p.id for p in read_papers([lib], warn=warnings.append)] == ["own-1"]
    assert warnings == [_outside(lib / "other", tmp_path / "other", lib)]

    warnings.clear()
    papers = read_papers([lib], warn=warnings.append, follow_links=True)
    assert sorted(p.id for p in papers) == ["own-1", "sibling-1"]
    assert next(p.source for p in papers if p.id == "sibling-1") == str(lib / "other" / "sibling.jsonl")
    assert warnings == []


def test_a_file_link_out_of_the_folder_is_skipped_but_a_file_named_on_the_command_line_is_read(tmp_path: Path) -> None:
    _write(tmp_path / "private" / "notes.jsonl", "private-1")
    lib = tmp_path / "lib"
    _write(lib / "own.jsonl", "own-1")
    (lib / "notes.jsonl").symlink_to(tmp_path / "private" / "notes.jsonl")
    warnings: list[str] = []
    assert [p.id for p in read_papers([lib], warn=warnings.append)] == ["own-1"]
    assert warnings == [_outside(lib / "notes.jsonl", tmp_path / "private" / "notes.jsonl", lib)]
    # named on its own, the link is read: the user asked for that file
    assert [p.id for p in read_papers([lib / "notes.jsonl"])] == ["private-1"]
    assert [p.id for p in read_papers([tmp_path / "private" / "notes.jsonl"])] == ["private-1"]
    papers = read_papers([lib], follow_links=True)
    assert sorted(p.id for p in papers) == ["own-1", "private-1"]


def test_links_that_stay_inside_the_folder_are_still_followed(tmp_path: Path) -> None:
    """A hidden store inside the folder, reached only through links (a folder and a file): both read, no warning;
    a link back up (a loop) is read once with the warning it had before."""
    lib = tmp_path / "lib"
    _write(lib / ".store" / "2024" / "a.jsonl", "a-1")
    _write(lib / ".versions" / "refs-v2.jsonl", "refs-1")
    _write(lib / "sub" / "b.jsonl", "b-1")
    (lib / "current").symlink_to(".store/2024", target_is_directory=True)
    (lib / "refs.jsonl").symlink_to(".versions/refs-v2.jsonl")
    (lib / "sub" / "top").symlink_to("..", target_is_directory=True)  # a loop, inside lib
    warnings: list[str] = []
    papers = read_papers([lib], warn=warnings.append)
    assert sorted(p.id for p in papers) == ["a-1", "b-1", "refs-1"]
    assert warnings == [f"{lib / 'sub' / 'top'}: a link to {lib}, which is read already; not followed"]


def test_a_named_folder_that_is_itself_a_link_is_read_where_it_leads(tmp_path: Path) -> None:
    _write(tmp_path / "real" / "papers" / "a.jsonl", "a-1")
    (tmp_path / "real" / "papers" / "more").symlink_to("../more", target_is_directory=True)
    _write(tmp_path / "real" / "more" / "b.jsonl", "b-1")
    (tmp_path / "mine").symlink_to(tmp_path / "real" / "papers", target_is_directory=True)
    warnings: list[str] = []
    papers = read_papers([tmp_path / "mine"], warn=warnings.append)  # named: followed; its own link out is not
    assert [p.id for p in papers] == ["a-1"]
    assert warnings == [_outside(tmp_path / "mine" / "more", tmp_path / "real" / "more", tmp_path / "mine")]


@pytest.mark.parametrize("system", ["/proc", "/sys", "/dev", "/proc/self"])
def test_system_folders_are_never_walked_even_with_follow_links(tmp_path: Path, listed: list[str], system: str) -> None:
    lib = tmp_path / "lib"
    _write(lib / "own.jsonl", "own-1")
    (lib / "sys").symlink_to(system, target_is_directory=True)
    warnings: list[str] = []
    papers = read_papers([lib], warn=warnings.append, follow_links=True)
    assert [p.id for p in papers] == ["own-1"]
    assert warnings == [f"{lib / 'sys'}: a link to {os.path.realpath(system)}, a system folder; never read"]
    assert _inside(listed, lib), listed
    with pytest.raises(CorpusError, match=r"a system folder \(/proc, /sys, /dev\); rag never reads it"):
        read_papers([system], follow_links=True)


def test_a_system_folder_met_inside_a_followed_tree_is_pruned(
    tmp_path: Path, listed: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A link to `/` with --follow-links meets /proc as a plain folder, not a link: it is pruned by its real path.
    Walking / is too much for a test, so a folder of tmp_path plays /proc here."""
    import rag.corpus.folders as folders

    fake_root = tmp_path / "root"
    _write(fake_root / "home" / "x.jsonl", "x-1")
    _write(fake_root / "proc" / "1" / "status.jsonl", "never-1")
    monkeypatch.setattr(folders, "SYSTEM_FOLDERS", (str(fake_root / "proc"),))
    lib = tmp_path / "lib"
    _write(lib / "own.jsonl", "own-1")
    (lib / "root").symlink_to(fake_root, target_is_directory=True)
    warnings: list[str] = []
    papers = read_papers([lib], warn=warnings.append, follow_links=True)
    assert sorted(p.id for p in papers) == ["own-1", "x-1"]
    assert warnings == [f"{lib / 'root' / 'proc'}: a system folder ({fake_root / 'proc'}); never read"]
    assert not any(p.startswith(str(fake_root / "proc")) for p in listed)


def test_a_folder_whose_only_papers_lie_behind_a_link_out_says_so(tmp_path: Path) -> None:
    _write(tmp_path / "other" / "a.jsonl", "a-1")
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "other").symlink_to(tmp_path / "other", target_is_directory=True)
    with pytest.raises(CorpusError) as info:
        read_papers([lib], warn=lambda _: None)
    assert str(info.value) == (f"{lib}: no corpus files in this directory (looked for .jsonl, .json, .csv, .bib, "
                               ".txt, .ris, .pdf); 1 link out of it not followed (named above)")


def test_rag_index_reports_links_out_and_follows_them_when_asked(
    tmp_path: Path, rag_cli: CLI, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = tmp_path / "corpus"  # not tmp_path itself: it holds the test's data directories
    _write(base / "parent.jsonl", "parent-1")
    _write(base / "other" / "b.jsonl", "other-1")
    lib = base / "lib"
    _write(lib / "own.jsonl", "own-1")
    (lib / "up").symlink_to("..", target_is_directory=True)
    (lib / "other").symlink_to(base / "other", target_is_directory=True)
    code, out, err = rag_cli("index", str(lib))
    assert code == 0, err
    assert f"warning: {_outside(lib / 'other', base / 'other', lib)}" in err
    assert f"warning: {_outside(lib / 'up', base, lib)}" in err
    assert out.startswith("indexed 1 papers:") and out.rstrip().endswith(
        "; 2 links out of the folder not followed (named above)"), out

    code, out, err = rag_cli("index", str(lib), "--follow-links")
    assert code == 0, err
    # followed: lib's parent holds lib, so its papers are read once; the link back into it is a loop, said once
    assert out.startswith("indexed 3 papers:"), out
    assert "not followed" not in out

    monkeypatch.setenv("RAG_FOLLOW_LINKS", "true")  # the setting does the same
    code, out, err = rag_cli("index", str(lib))
    assert code == 0 and out.startswith("indexed 3 papers:") and "0 embedded" in out, (out, err)
