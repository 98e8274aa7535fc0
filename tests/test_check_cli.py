"""`rag check` end to end: a Markdown and a LaTeX draft against a BibTeX-indexed library (six bundled papers under
their BibTeX keys, tests/data/check/library.bib), with real embedded Chroma and the real local embedder."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import CLI, copy_home

DATA = Path(__file__).parent / "data" / "check"
DOC = Path(__file__).resolve().parent.parent / "docs" / "check-json.md"


@pytest.fixture
def library_cli(rag_cli: CLI, check_library_home: Path) -> CLI:
    return copy_home(check_library_home, rag_cli)


def _labels(record: dict) -> list[str]:
    return [s["label"] for s in record["sentences"]]


def test_markdown_draft_every_label_and_every_way_a_key_resolves(library_cli: CLI):
    code, out, err = library_cli("check", str(DATA / "draft.md"), "--json")
    assert code == 1, err  # something is flagged
    record = json.loads(out)
    assert _labels(record) == ["supported", "supported", "contradicted", "wrong paper", "supported", "not in library",
                               "uncited", "supported", "supported"]  # fmt: skip
    s = record["sentences"]
    assert [c["matched_by"] for x in s for c in x["cites"]] == [
        "bibtex key", "doi", "bibtex key", "bibtex key", "arxiv", None, "title", "arxiv"]  # fmt: skip
    assert s[0]["evidence"]["paper_id"] == "seth2025alberta" and "213,000 wells" in s[0]["evidence"]["text"]
    assert s[2]["evidence"]["text"].startswith("We reveal that under an equal parameter constraint, deeper")
    assert [p["paper_id"] for p in s[3]["supported_by"]] == ["starace2025paperbench"]  # the paper that does say it
    assert s[5]["unknown_keys"] == ["smith2019missing"] and s[5]["supported_by"][0]["paper_id"] == "zhang2024auxiliary"
    assert [p["paper_id"] for p in s[6]["supported_by"]] == ["Li2025Contaminated"]  # a suggested citation
    assert record["summary"]["unknown_keys"] == [{"key": "smith2019missing", "sentences": [6], "invisible": []}]
    assert record["summary"]["flagged"] == 3 and record["exit_code"] == 1
    assert "nothing" not in [c["key"] for x in s for c in x["cites"]]  # the code block's citation is not read

    code, text, _ = library_cli("check", str(DATA / "draft.md"))
    assert code == 1
    for mark in ("✓ supported", "✗ contradicted", "⇄ wrong paper", "– uncited", "∅ not in library"):
        assert mark in text
    assert "Not in the library: smith2019missing (sentence 6)." in text
    assert "suggested citation: How Contaminated Is Your Benchmark?" in text


def test_latex_draft_with_bibitems_and_markdown_output(library_cli: CLI):
    code, out, err = library_cli("check", str(DATA / "draft.tex"), "--json")
    assert code == 1, err
    record = json.loads(out)
    assert record["format"] == "latex"
    assert _labels(record) == ["supported", "supported", "contradicted", "wrong paper", "supported", "not in library"]
    assert record["sentences"][4]["cites"][0] == {
        "key": "aux", "in_library": True, "paper_id": "zhang2024auxiliary", "matched_by": "title",
        "title": "Improving Continual Learning Performance and Efficiency with Auxiliary Classifiers",
        "url": "https://proceedings.mlr.press/v267/szatkowski25a.html", "invisible": []}  # fmt: skip
    code, md, _ = library_cli("check", str(DATA / "draft.tex"), "--format", "markdown")
    assert code == 1 and md.startswith("# Manuscript check:") and "**wrong paper**" in md


def test_nothing_flagged_exits_0_and_an_uncited_sentence_is_not_a_flag(library_cli: CLI, tmp_path: Path):
    draft = tmp_path / "ok.md"
    draft.write_text("PaperBench contains 8,316 individually gradable tasks [@starace2025paperbench].\n\n"
                     "We thank the reviewers for their many helpful comments on this work.\n\n"
                     "In this paper, we propose a new method for continual learning.\n")  # fmt: skip
    code, out, err = library_cli("check", str(draft))
    assert code == 0, out + err
    assert "Nothing flagged" in out
    # the draft's own work ("we propose ...") gets no suggested citation, however close a library paper seems
    code, out, _ = library_cli("check", str(draft), "--json")
    own = json.loads(out)["sentences"][2]
    assert own["label"] == "uncited" and own["supported_by"] == [] and "own work" in own["reason"]


def test_json_schema_is_stable_and_every_field_is_documented(library_cli: CLI):
    code, out, _ = library_cli("check", str(DATA / "draft.md"), "--format", "json")
    record = json.loads(out)
    assert record["schema"] == "rag-check/1"
    documented = set(re.findall(r"`([a-z_]+)`", DOC.read_text(encoding="utf-8")))

    def fields(value: object, path: str = "") -> set[str]:
        if isinstance(value, dict):
            return {k for k in value} | {f for k, v in value.items() if k != "labels" for f in fields(v, k)}
        if isinstance(value, list):
            return {f for v in value for f in fields(v, path)}
        return set()

    assert fields(record) - documented == set()
    assert set(record) == {"schema", "file", "format", "library", "bibliography", "checks", "summary", "sentences",
                           "notes", "seconds", "exit_code"}  # fmt: skip
    assert set(record["sentences"][0]) == {"n", "file", "line", "text", "label", "flagged", "reason", "cites",
                                           "unknown_keys", "evidence", "supported_by", "checks", "llm"}  # fmt: skip


def test_draft_text_is_neutralised_in_every_output(library_cli: CLI, tmp_path: Path):
    draft = tmp_path / "evil.md"
    draft.write_text("PaperBench contains <script>alert(1)</script> 8,316 gradable tasks [@starace2025paperbench] "
                     "\x1b]52;c;aGk=\x07 as [the site](javascript:alert(2)) says.\n")  # fmt: skip
    _, out, _ = library_cli("check", str(draft), "--json")
    assert "<" not in out and "javascript:" not in out
    _, text, _ = library_cli("check", str(draft))
    assert "\x1b" not in text and "\x07" not in text
    _, md, _ = library_cli("check", str(draft), "--format", "markdown")
    assert "<script" not in md and "javascript:" not in md and "](javascript" not in md


@pytest.mark.parametrize("case", ["missing", "directory", "latin1", "empty", "markup-only", "no-index", "no-llm"])
def test_user_errors_are_one_line_and_exit_2(rag_cli: CLI, check_library_home: Path, tmp_path: Path, case: str):
    if case not in ("no-index",):
        copy_home(check_library_home, rag_cli)
    draft = tmp_path / "d.md"
    draft.write_text("A sentence that cites a paper [@seth2025alberta].\n")
    args = {
        "missing": [str(tmp_path / "nope.md")],
        "directory": [str(tmp_path)],
        "latin1": [str(tmp_path / "l.md")],
        "empty": [str(tmp_path / "e.md")],
        "markup-only": [str(tmp_path / "m.tex")],
        "no-index": [str(draft)],
        "no-llm": [str(draft), "--verify", "llm"],
    }[case]
    (tmp_path / "l.md").write_bytes("Caf\u00e9 wells leak methane [@a].".encode("latin-1"))
    (tmp_path / "e.md").write_text("")
    (tmp_path / "m.tex").write_text("\\documentclass{article}\\begin{document}\\section{A}\\end{document}")
    for extra in ([], ["--json"]):
        code, out, err = rag_cli("check", *args, *extra)
        assert code == 2
        assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
        if extra:
            assert json.loads(out)["error"]
    expected = {"missing": "no such file", "directory": "is a directory", "latin1": "not UTF-8", "empty": "no sentence",
                "markup-only": "no sentence", "no-index": "no index", "no-llm": "--verify llm needs"}[case]  # fmt: skip
    assert expected in err


def test_verify_llm_adds_the_models_judgement(library_cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from tests.fault_server import FaultServer

    draft = tmp_path / "d.md"
    draft.write_text("PaperBench contains 8,316 individually gradable tasks [@starace2025paperbench].\n"
                     "Our curated dataset comprises over 213,000 wells from Alberta [@seth2025alberta].\n")  # fmt: skip
    with FaultServer(["ok"] * 4) as server:
        server.set_reply('{"claims": [{"id": 1, "supported": true}, {"id": 2, "supported": false}]}', whole=True)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test")
        code, out, err = library_cli("check", str(draft), "--json", "--verify", "llm")
    record = json.loads(out)
    assert code == 1, err
    assert record["checks"] == ["offline", "llm"]
    assert [(s["label"], s["llm"]) for s in record["sentences"]] == [("supported", "supported"),
                                                                    ("not found", "unsupported")]  # fmt: skip
    assert record["sentences"][1]["reason"] == "the LLM check found it unsupported"


def test_each_clause_is_checked_against_the_paper_its_citation_names(library_cli: CLI, tmp_path: Path):
    """Issue 21, attribution per citation: in a sentence citing two papers, each number and name must be in the
    paper whose citation closes its clause, not merely somewhere in the pooled text of both (as for answers)."""
    draft = tmp_path / "clauses.md"
    right = "Dual-Arch is up to 87% more compact in terms of parameters [@{}], while PaperBench contains 8,316 " \
        "individually gradable tasks [@{}].\n\n"
    draft.write_text(right.format("lu2025rethinking", "starace2025paperbench")
                     + right.format("starace2025paperbench", "lu2025rethinking")
                     + "Dual-Arch is up to 87% more compact in terms of parameters, while PaperBench contains 8,316 "
                     "individually gradable tasks [@starace2025paperbench; @lu2025rethinking].\n")  # fmt: skip
    code, out, err = library_cli("check", str(draft), "--json")
    record = json.loads(out)
    assert _labels(record) == ["supported", "wrong paper", "supported"], out  # one citation group: one clause
    swapped = record["sentences"][1]
    assert code == 1, err
    assert swapped["flagged"] and "'87'" in swapped["reason"] and "lu2025rethinking" in swapped["reason"]
    assert "starace2025paperbench" in swapped["reason"]  # the clause's own citation, named as the draft wrote it
    assert [p["paper_id"] for p in swapped["supported_by"]] == ["lu2025rethinking"]  # the paper that does say it
    assert swapped["evidence"]["paper_id"] == "lu2025rethinking" and "87% more compact" in swapped["evidence"]["text"]


def test_a_latex_draft_is_checked_with_the_files_it_inputs(library_cli: CLI, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch):  # fmt: skip
    """main.tex pulls its sections in: each is checked, each sentence named by its own file and line; the
    \\bibliography of main.tex serves the citations of the sections; what cannot be read is a note, not an abort."""
    paper = tmp_path / "paper"
    (paper / "sections").mkdir(parents=True)
    (paper / "main.tex").write_text(
        "\\documentclass{article}\n\\begin{document}\n"
        "\\input{sections/intro.tex}\n"  # a subfolder
        "% \\input{sections/old}\n"  # commented out: not followed
        "\\input{results}\n"  # no suffix: results.tex
        "We thank the reviewers for their many helpful comments on this work.\n"
        "\\input{sections/method}\n"  # missing
        "\\input{../../etc/passwd}\n"  # outside the draft's folder
        "\\bibliography{refs,../secret}\n\\end{document}\n")  # fmt: skip
    (tmp_path / "secret.bib").write_text("@article{wells, title={Not This One}, doi={10.1/secret}}\n")  # outside
    (paper / "sections" / "intro.tex").write_text(
        "\\section{Introduction}\n\n"
        "Our curated dataset comprises over $213{,}000$ wells from Alberta~\\citep{wells}.\n")
    (paper / "sections" / "old.tex").write_text("Dual-Arch is a thousand times smaller than anything \\cite{nobody}.\n")
    (paper / "results.tex").write_text("PaperBench contains 8,316 individually gradable tasks \\cite{paperbench}.\n")
    (paper / "refs.bib").write_text("@article{wells, title={Alberta Wells Dataset}, doi={10.48550/arXiv.2410.09032}}\n"
                                    "@article{paperbench, title={PaperBench}, doi={10.48550/arXiv.2504.01848}}\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = library_cli("check", "paper/main.tex", "--json")
    assert code == 0, out + err  # nothing flagged: the notes do not change the exit code
    record = json.loads(out)
    assert [(s["file"], s["line"], s["label"]) for s in record["sentences"]] == [
        ("paper/sections/intro.tex", 3, "supported"), ("paper/results.tex", 1, "supported"),
        ("paper/main.tex", 6, "uncited")]  # fmt: skip
    assert [c["matched_by"] for s in record["sentences"] for c in s["cites"]] == ["doi", "doi"]  # main's .bib
    assert record["bibliography"] == ["paper/refs.bib"]
    assert record["notes"] == ["paper/sections/method.tex: not found, not checked",
                               "\\input{../../etc/passwd}: outside the draft's folder, not read",
                               "bibliography ../secret.bib: outside the draft's folder, not read"]  # fmt: skip
    code, text, _ = library_cli("check", "paper/main.tex")
    assert code == 0
    assert "✓ supported      paper/sections/intro.tex:3: Our curated dataset" in text
    assert "– uncited        line 6: We thank the reviewers" in text  # the main draft's own lines as before
    assert "note: paper/sections/method.tex: not found, not checked" in text
    assert "note: bibliography ../secret.bib: outside the draft's folder, not read" in text
    _, md, _ = library_cli("check", "paper/main.tex", "--format", "markdown")
    assert "**supported** (paper/results.tex:1): PaperBench" in md and "(line 6)" in md
    assert "> note: paper/sections/method.tex: not found, not checked" in md
    assert "> note: bibliography ../secret.bib: outside the draft's folder, not read" in md


def test_a_latex_draft_on_standard_input_says_its_inputs_are_not_read(library_cli: CLI,
                                                                      monkeypatch: pytest.MonkeyPatch):  # fmt: skip
    import io

    draft = b"\\input{sections/intro}\nPaperBench contains 8,316 gradable tasks \\cite{starace2025paperbench}.\n"
    monkeypatch.setattr("sys.stdin", type("In", (), {"buffer": io.BytesIO(draft)})())
    code, out, err = library_cli("check", "-", "--syntax", "latex", "--json")
    assert code == 0, err
    record = json.loads(out)
    assert record["notes"] == ["\\input{sections/intro}: included files are not read from a pasted or uploaded draft; "
                               "run `rag check main.tex` on the folder"]  # fmt: skip
    assert record["sentences"][0]["file"] == "-"


def test_a_key_holding_an_invisible_character_is_named_in_every_output(library_cli: CLI, tmp_path: Path):
    """Issue 37 item 8: `\\cite{icml2025<U+200B>}` was reported as "Not in the library: icml2025"; the report now
    says the key holds an invisible character and names it, in the text, JSON and Markdown reports."""
    draft = tmp_path / "draft.tex"
    draft.write_text("PaperBench contains 8,316 individually gradable tasks \\cite{starace2025paperbench}.\n\n"
                     "Auxiliary classifiers reduce the cost of inference \\cite{icml2025\u200b}.\n\n"
                     "Wider networks exhibit better plasticity \\cite{lu\u202e2025}.\n", encoding="utf-8")  # fmt: skip
    zwsp = "key 'icml2025\\u200b' holds an invisible character (U+200B ZERO WIDTH SPACE)"
    rlo = "key 'lu\\u202e2025' holds an invisible character (U+202E RIGHT-TO-LEFT OVERRIDE)"
    code, text, _ = library_cli("check", str(draft))
    assert code == 1
    assert f"cites icml2025\\u200b: not in the library; {zwsp}" in text
    assert "Not in the library: icml2025\\u200b (sentence 2), lu\\u202e2025 (sentence 3)." in text
    assert f"warning: {zwsp}\nwarning: {rlo}\n" in text
    code, out, _ = library_cli("check", str(draft), "--json")
    record = json.loads(out)
    assert record["summary"]["unknown_keys"] == [
        {"key": "icml2025\u200b", "sentences": [2], "invisible": ["U+200B ZERO WIDTH SPACE"]},
        {"key": "lu\u202e2025", "sentences": [3], "invisible": ["U+202E RIGHT-TO-LEFT OVERRIDE"]}]  # fmt: skip
    assert record["sentences"][1]["reason"] == f"icml2025\\u200b is not in the library; {zwsp}"
    assert [c["invisible"] for s in record["sentences"] for c in s["cites"]] == [
        [], ["U+200B ZERO WIDTH SPACE"], ["U+202E RIGHT-TO-LEFT OVERRIDE"]]  # fmt: skip
    _, md, _ = library_cli("check", str(draft), "--format", "markdown")
    assert "Not in the library: `icml2025\\u200b`, `lu\\u202e2025`." in md
    assert "> warning: key 'icml2025\\\\u200b' holds an invisible character (U+200B ZERO WIDTH SPACE)" in md
