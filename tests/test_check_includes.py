"""A LaTeX draft on disk pulls its sections in with \\input, \\include and \\subfile (rag.check.includes): they are
read and checked, each sentence at its own file and line; what cannot be read is a note, never an abort, and
nothing outside the main draft's folder is read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rag.check.draft import Manuscript
from rag.check.includes import MAX_DEPTH, pasted_note, read_latex


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root / "main.tex"


def _draft(root: Path, files: dict[str, str]) -> Manuscript:
    main = _write(root, files)
    return read_latex(main.read_text(encoding="utf-8"), str(main))


def _where(draft: Manuscript) -> list[tuple[str | None, int, str]]:
    return [(s.file, s.line, s.text) for s in draft.sentences]


MAIN = ("\\documentclass{article}\n"
        "\\newcommand{\\method}{Dual-Arch}\n"
        "\\begin{document}\n"
        "The main draft opens with this sentence here.\n"
        "\\input{sections/intro}\n"
        "\\include{method}\n"
        "The main draft closes with this sentence here.\n"
        "\\end{document}\n")  # fmt: skip


def test_input_and_include_are_followed_each_sentence_at_its_file_and_line(tmp_path: Path):
    draft = _draft(tmp_path, {
        "main.tex": MAIN,
        "sections/intro.tex": "\\section{Intro}\n\nWells leak methane into the air \\cite{seth2025alberta}.\n",
        "method.tex": "\n\n\\method{} is up to 87\\% more compact than a plain network \\citep{lu2025rethinking}.\n",
    })  # fmt: skip
    sections = str(tmp_path / "sections" / "intro.tex")
    method = str(tmp_path / "method.tex")
    assert _where(draft) == [
        (None, 4, "The main draft opens with this sentence here."),
        (sections, 3, "Wells leak methane into the air [seth2025alberta]."),
        (method, 3, "Dual-Arch is up to 87% more compact than a plain network [lu2025rethinking]."),  # main's macro
        (None, 7, "The main draft closes with this sentence here."),
    ]
    assert draft.notes == ()


def test_included_file_named_relative_to_the_main_file_as_given(tmp_path: Path, monkeypatch):
    _write(tmp_path, {"paper/main.tex": "\\input{a}\nThe main file says one thing here.\n",
                      "paper/a.tex": "The included file says another thing.\n"})  # fmt: skip
    monkeypatch.chdir(tmp_path)
    draft = read_latex(Path("paper/main.tex").read_text(), "paper/main.tex")
    assert _where(draft) == [("paper/a.tex", 1, "The included file says another thing."),
                             (None, 2, "The main file says one thing here.")]  # fmt: skip


def test_a_nested_input_resolves_from_the_main_folder_then_its_own_folder(tmp_path: Path):
    draft = _draft(tmp_path, {
        "main.tex": "\\input{sections/intro}\n",
        "sections/intro.tex": "\\input{sections/deep}\n\\input{local}\n",
        "sections/deep.tex": "Resolved from the main folder as LaTeX does.\n",
        "sections/local.tex": "Resolved from the including file's own folder.\n",
    })  # fmt: skip
    assert [s.text for s in draft.sentences] == ["Resolved from the main folder as LaTeX does.",
                                                 "Resolved from the including file's own folder."]  # fmt: skip
    assert draft.notes == ()


def test_a_missing_include_is_a_note_and_the_rest_is_checked(tmp_path: Path):
    draft = _draft(tmp_path, {"main.tex": "First sentence of the main draft.\n\\input{sections/method}\n"
                                          "Second sentence of the main draft.\n"})  # fmt: skip
    assert [s.line for s in draft.sentences] == [1, 3]
    assert draft.notes == (f"{tmp_path / 'sections' / 'method.tex'}: not found, not checked",)


def test_an_unreadable_include_is_a_note(tmp_path: Path):
    (tmp_path / "latin.tex").write_bytes("Caf\u00e9 wells leak methane.".encode("latin-1"))
    (tmp_path / "dir.tex").mkdir()
    os.mkfifo(tmp_path / "pipe.tex")  # reading it would never end
    main = "\\input{latin}\n\\input{dir}\n\\input{pipe}\nThe main draft has a sentence.\n"
    draft = _draft(tmp_path, {"main.tex": main})
    assert [s.text for s in draft.sentences] == ["The main draft has a sentence."]
    assert draft.notes == (f"{tmp_path / 'latin.tex'}: not UTF-8 text, not checked",
                           f"{tmp_path / 'dir.tex'}: not a file, not checked",
                           f"{tmp_path / 'pipe.tex'}: not a file, not checked")  # fmt: skip


def test_a_cycle_is_read_once_and_said(tmp_path: Path):
    draft = _draft(tmp_path, {"main.tex": "\\input{a}\n",
                              "a.tex": "Sentence of file a is here.\n\\input{b}\n",
                              "b.tex": "Sentence of file b is here.\n\\input{a.tex}\n"})  # fmt: skip
    assert [s.text for s in draft.sentences] == ["Sentence of file a is here.", "Sentence of file b is here."]
    assert draft.notes == (f"{tmp_path / 'a.tex'}: included again by {tmp_path / 'b.tex'} (a cycle), not read again",)


def test_inclusion_deeper_than_the_limit_stops_with_a_note(tmp_path: Path):
    files = {"main.tex": "\\input{f0}\n"}
    files |= {f"f{i}.tex": f"Sentence number {i} of the chain.\n\\input{{f{i + 1}}}\n" for i in range(MAX_DEPTH + 2)}
    draft = _draft(tmp_path, files)
    assert len(draft.sentences) == MAX_DEPTH
    assert draft.notes == (f"{tmp_path / f'f{MAX_DEPTH}.tex'}: included more than {MAX_DEPTH} levels deep, "
                           "not checked",)  # fmt: skip


def test_nothing_outside_the_drafts_folder_is_read(tmp_path: Path):
    (tmp_path / "secret.tex").write_text("A secret sentence that must never be read.\n")
    outside = tmp_path / "secret.tex"
    draft = _draft(tmp_path / "paper", {
        "main.tex": "\\input{../../etc/passwd}\n\\input{../secret}\n\\input{" + str(outside) + "}\n"
                    "\\input{sections/../inside}\nThe main draft has a sentence.\n",
        "inside.tex": "Inside the folder after all, so it is read.\n",
        "sections/other.tex": "",  # sections/../inside.tex: the folder must exist, as for LaTeX
    })  # fmt: skip
    (tmp_path / "paper" / "link.tex").symlink_to(outside)
    assert [s.text for s in draft.sentences] == ["Inside the folder after all, so it is read.",
                                                 "The main draft has a sentence."]  # fmt: skip
    assert draft.notes == (
        "\\input{../../etc/passwd}: outside the draft's folder, not read",
        "\\input{../secret}: outside the draft's folder, not read",
        f"\\input{{{outside}}}: outside the draft's folder, not read",
    )
    linked = read_latex("\\input{link}\nThe main draft has a sentence.\n", str(tmp_path / "paper" / "main.tex"))
    assert linked.notes == ("\\input{link}: outside the draft's folder, not read",)  # a symlink out is refused too


def test_commented_out_and_verbatim_inputs_are_not_followed(tmp_path: Path):
    draft = _draft(tmp_path, {
        "main.tex": "% \\input{gone}\nThe draft cites nothing here at all.  % \\include{gone}\n"
                    "\\begin{comment}\n\\input{gone}\n\\end{comment}\n"
                    "\\begin{verbatim}\n\\input{gone}\n\\end{verbatim}\n"
                    "An escaped 5\\% is no comment at all. \\input{real}\n",
        "real.tex": "So this input is real and it is read.\n",
    })  # fmt: skip
    assert [s.text for s in draft.sentences] == ["The draft cites nothing here at all.",
                                                 "An escaped 5% is no comment at all.",
                                                 "So this input is real and it is read."]  # fmt: skip
    assert draft.notes == ()  # gone.tex does not exist, and nobody looked for it


def test_subfile_body_only_and_includeonly(tmp_path: Path):
    draft = _draft(tmp_path, {
        "main.tex": "\\documentclass{article}\n\\includeonly{ch1}\n\\begin{document}\n\\subfile{sub}\n"
                    "\\include{ch1}\n\\include{ch2}\n\\end{document}\n",
        "sub.tex": "\\documentclass[main]{subfiles}\n\\begin{document}\nThe subfile's own sentence is read.\n"
                   "\\end{document}\n",
        "ch1.tex": "Chapter one is listed in includeonly.\n",
        "ch2.tex": "Chapter two is left out by includeonly.\n",
    })  # fmt: skip
    assert _where(draft) == [(str(tmp_path / "sub.tex"), 3, "The subfile's own sentence is read."),
                             (str(tmp_path / "ch1.tex"), 1, "Chapter one is listed in includeonly.")]  # fmt: skip
    assert draft.notes == (f"{tmp_path / 'ch2.tex'}: not in \\includeonly, not checked",)


def test_the_bibliography_of_the_main_file_serves_citations_in_included_files(tmp_path: Path):
    draft = _draft(tmp_path, {
        "main.tex": "\\begin{document}\n\\input{intro}\n\\bibliography{refs,more}\n"
                    "\\begin{thebibliography}{9}\n\\bibitem{aux} Zhang. Auxiliary Classifiers.\n"
                    "\\end{thebibliography}\n\\end{document}\n",
        "intro.tex": "Auxiliary classifiers reduce the cost of inference \\cite{aux}.\n",
    })  # fmt: skip
    assert draft.bibliography_files == ("refs.bib", "more.bib")
    assert draft.references == {"aux": "Zhang. Auxiliary Classifiers."}
    assert draft.sentences[0].keys == ("aux",)


def test_a_pasted_draft_says_its_inputs_are_not_read():
    assert pasted_note("No input here; \\includegraphics{x} is a figure. % \\input{commented}") is None
    note = pasted_note("\\input{sections/intro}\n\\include{b}\n\\subfile{c}")
    assert note == ("\\input{sections/intro} (and 2 more): included files are not read from a pasted or uploaded "
                    "draft; run `rag check main.tex` on the folder")  # fmt: skip
    assert pasted_note("\\input{a}").startswith("\\input{a}: included files")  # type: ignore[union-attr]


def test_an_include_not_followed_leaves_no_file_name_in_the_text():
    from rag.check.draft import parse_draft

    draft = parse_draft("Intro sentence is here and it goes on\n\\subfile{one}\n\\input chapters/two\n", "m.tex")
    assert [s.text for s in draft.sentences] == ["Intro sentence is here and it goes on"]


def test_a_draft_whose_only_include_is_missing_is_a_user_error_that_says_why(tmp_path: Path):
    from rag.cli.check import DraftError, parsed

    main = _write(tmp_path, {"main.tex": "\\begin{document}\n\\input{missing}\n\\end{document}\n"})
    with pytest.raises(DraftError, match=r"no sentence to check .*; .*missing\.tex: not found, not checked$"):
        parsed(str(main), main.read_text())


def test_an_included_file_ending_mid_sentence_continues_the_paragraph_as_in_latex(tmp_path: Path):
    draft = _draft(tmp_path, {"main.tex": "The number of wells in the dataset is\n\\input{number}\nas reported.\n",
                              "number.tex": "213,000 in total\n"})  # fmt: skip
    assert _where(draft) == [(None, 1, "The number of wells in the dataset is 213,000 in total as reported.")]


def test_include_fan_out_reads_each_file_once_and_says_so_once(tmp_path: Path):
    """Issue 37 item 3: eleven small files, each including the next four times, took 187 s and 513 MB and printed
    405,394 identical notes; each file is now read once and each repeat said once."""
    import time

    files = {"main.tex": "\\input{f0}\n" * 4}  # main.tex and f0 ... f9: eleven files
    files |= {f"f{i}.tex": f"Sentence number {i} of the fan.\n" + f"\\input{{f{i + 1}}}\n" * 4 for i in range(9)}
    files["f9.tex"] = "The last file of the fan.\n"
    started = time.perf_counter()
    draft = _draft(tmp_path, files)
    assert time.perf_counter() - started < 5
    assert [s.text for s in draft.sentences] == [*(f"Sentence number {i} of the fan." for i in range(9)),
                                                 "The last file of the fan."]  # fmt: skip
    assert sorted(draft.notes) == sorted(f"{tmp_path / f'f{i}.tex'}: included more than once, read and checked the "
                                         "first time only" for i in range(10))  # fmt: skip


def test_a_missing_file_included_many_times_is_one_note(tmp_path: Path):
    draft = _draft(tmp_path, {"main.tex": "\\input{gone}\n" * 50 + "The main draft has a sentence.\n"})
    assert draft.notes == (f"{tmp_path / 'gone.tex'}: not found, not checked",)


def test_the_number_of_included_files_is_bounded_with_one_note(tmp_path: Path, monkeypatch):
    import rag.check.includes as includes

    monkeypatch.setattr(includes, "MAX_FILES", 5)
    files = {"main.tex": "".join(f"\\input{{f{i}}}\n" for i in range(9))}
    files |= {f"f{i}.tex": f"Sentence number {i} of the list.\n" for i in range(9)}
    draft = _draft(tmp_path, files)
    assert [s.text for s in draft.sentences] == [f"Sentence number {i} of the list." for i in range(5)]
    assert draft.notes == (f"more than 5 included files: {tmp_path / 'f5.tex'} and the files after it not checked",)


def test_the_bytes_read_are_bounded_with_one_note_and_nothing_read_after(tmp_path: Path, monkeypatch):
    import rag.check.includes as includes

    monkeypatch.setattr(includes, "MAX_BYTES", 200)
    files = {"main.tex": "The main draft has a sentence.\n" + "".join(f"\\input{{f{i}}}\n" for i in range(6))}
    files |= {f"f{i}.tex": f"Sentence number {i} of the list is here.\n" for i in range(6)}
    main = _write(tmp_path, files)
    text = main.read_text(encoding="utf-8")
    opened: list[str] = []
    real_open = Path.open

    def spy(self: Path, *args, **kwargs):  # type: ignore[no-untyped-def]
        opened.append(self.name)
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", spy)
    draft = read_latex(text, str(main))
    kept = [s.text for s in draft.sentences]
    assert kept[0] == "The main draft has a sentence." and 1 < len(kept) < 7
    assert draft.notes == (f"the draft with its files is larger than 0.0002 MB: {tmp_path / f'f{len(kept) - 1}.tex'} "
                           "and the files after it not checked",)  # fmt: skip
    assert opened == [f"f{i}.tex" for i in range(len(kept))]  # nothing is opened past the bound
