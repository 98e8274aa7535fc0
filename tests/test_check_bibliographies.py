"""The .bib files a draft names (\\bibliography{}, \\addbibresource{}, Markdown front matter `bibliography:`) follow
the folder rule of its includes (rag.check.includes): only files under the draft's folder are read; one named
outside it is a note, never a traceback, and is never opened (issue 37 item 7)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.check.includes import read_latex
from rag.cli.check import bib_entries, parsed

ENTRY = "@article{{{key}, title={{{title}}}, doi={{{doi}}}}}\n"


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every file opened through Path.open (Path.read_text too) or open(), resolved."""
    import builtins

    opened: list[Path] = []
    real_path_open, real_open = Path.open, builtins.open

    def path_open(self: Path, *args, **kwargs):  # type: ignore[no-untyped-def]
        opened.append(self.resolve())
        return real_path_open(self, *args, **kwargs)

    def plain_open(file, *args, **kwargs):  # type: ignore[no-untyped-def]
        if isinstance(file, (str, Path)):
            opened.append(Path(file).resolve())
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(Path, "open", path_open)
    monkeypatch.setattr(builtins, "open", plain_open)
    return opened


def _outside_and_inside(tmp_path: Path) -> Path:
    """tmp_path/secret.bib and tmp_path/x.bib outside tmp_path/paper; paper/refs.bib and a link out inside it."""
    paper = tmp_path / "paper"
    paper.mkdir()
    (tmp_path / "secret.bib").write_text(ENTRY.format(key="secret", title="A Secret Entry", doi="10.1/secret"))
    (tmp_path / "x.bib").write_text(ENTRY.format(key="x", title="Another Secret", doi="10.1/x"))
    (paper / "refs.bib").write_text(ENTRY.format(key="wells", title="Alberta Wells", doi="10.48550/arXiv.2410.09032"))
    (paper / "link.bib").symlink_to(tmp_path / "secret.bib")
    return paper


def test_latex_bibliographies_outside_the_drafts_folder_are_notes_and_never_opened(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # fmt: skip
    paper = _outside_and_inside(tmp_path)
    main = paper / "main.tex"
    main.write_text("\\begin{document}\nWells leak methane into the air of Alberta \\cite{wells}.\n"
                    f"\\bibliography{{../x,/etc/passwd,refs,{tmp_path / 'secret'}}}\n"
                    "\\addbibresource{../secret.bib}\n\\addbibresource{link.bib}\n\\end{document}\n")  # fmt: skip
    draft = parsed(str(main), main.read_text())
    opened = _spy(monkeypatch)
    refs, read, notes = bib_entries(draft, str(main), [])
    assert read == [str(paper / "refs.bib")]
    assert set(refs) == {"wells"}
    assert notes == [
        "bibliography ../x.bib: outside the draft's folder, not read",
        "bibliography /etc/passwd.bib: outside the draft's folder, not read",
        f"bibliography {tmp_path / 'secret.bib'}: outside the draft's folder, not read",
        "bibliography ../secret.bib: outside the draft's folder, not read",
        "bibliography link.bib: outside the draft's folder, not read",  # a link leading out is refused too
    ]
    assert opened == [(paper / "refs.bib").resolve()]  # nothing outside the folder is opened


@pytest.mark.parametrize("named", ["/proc/self/status", "/etc/passwd", "../secret.bib", "'../x.bib'"])
def test_markdown_front_matter_bibliography_outside_the_folder_is_a_note_and_never_opened(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, named: str):  # fmt: skip
    paper = _outside_and_inside(tmp_path)
    draft_md = paper / "draft.md"
    draft_md.write_text(f"---\ntitle: T\nbibliography: {named}\n---\n\n"
                        "Wells leak methane into the air of Alberta [@wells].\n")  # fmt: skip
    draft = parsed(str(draft_md), draft_md.read_text())
    opened = _spy(monkeypatch)
    refs, read, notes = bib_entries(draft, str(draft_md), [])
    assert (refs, read) == ({}, [])
    assert notes == [f"bibliography {named.strip(chr(39))}: outside the draft's folder, not read"]
    assert opened == []


def test_a_bibliography_inside_the_folder_is_read_and_one_given_with_bib_is_read_wherever_it_is(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # fmt: skip
    """The folder rule is for what the draft names; --bib names a file the user chose on the command line."""
    paper = _outside_and_inside(tmp_path)
    (paper / "sub").mkdir()
    (paper / "sub" / "more.bib").write_text(ENTRY.format(key="more", title="More Wells", doi="10.1/more"))
    main = paper / "main.tex"
    main.write_text(f"Wells leak methane into the air of Alberta \\cite{{wells}}.\n"
                    f"\\bibliography{{refs,sub/../sub/more,{paper / 'refs'}}}\n")  # fmt: skip
    monkeypatch.chdir(tmp_path)
    draft = read_latex(main.read_text(), "paper/main.tex")
    refs, read, notes = bib_entries(draft, "paper/main.tex", [str(tmp_path / "x.bib")])
    assert read == [str(tmp_path / "x.bib"), "paper/refs.bib", "paper/sub/../sub/more.bib", str(paper / "refs.bib")]
    assert set(refs) == {"x", "wells", "more"}
    assert notes == []


def test_a_draft_on_standard_input_reads_bibliographies_only_under_the_current_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # fmt: skip
    paper = _outside_and_inside(tmp_path)
    monkeypatch.chdir(paper)
    draft = parsed("-", "Wells leak methane into the air of Alberta \\cite{wells}.\n\\bibliography{refs,../x}\n",
                   "latex")  # fmt: skip
    opened = _spy(monkeypatch)
    refs, read, notes = bib_entries(draft, "-", [])
    assert (set(refs), notes) == ({"wells"}, ["bibliography ../x.bib: outside the draft's folder, not read"])
    assert opened == [(paper / "refs.bib").resolve()]


def test_a_loop_of_links_is_a_note_not_a_traceback(tmp_path: Path):
    """`loop.bib -> loop.bib` has no real path (Path.resolve raised RuntimeError: Symlink loop): it is refused by
    the folder rule like a link out; an include falls back to the name without .tex, which is not there."""
    (tmp_path / "loop.bib").symlink_to("loop.bib")
    (tmp_path / "loop.tex").symlink_to("loop.tex")
    main = tmp_path / "main.tex"
    main.write_text("Wells leak methane into the air here \\cite{x}.\n\\bibliography{loop}\n\\input{loop}\n")
    draft = parsed(str(main), main.read_text())
    assert draft.notes == (f"{tmp_path / 'loop'}: not found, not checked",)  # loop.tex leads nowhere: not found
    refused = ["bibliography loop.bib: outside the draft's folder, not read"]
    assert bib_entries(draft, str(main), []) == ({}, [], refused)
