"""Corpus readers: the bundled files, each format, and every kind of malformed input in both error modes."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest

from rag.corpus import SUPPORTED_SUFFIXES, iter_papers, read_papers
from rag.errors import CorpusError
from rag.types import Paper

DATA = Path(__file__).resolve().parents[1] / "data"
JSONL = DATA / "icml2025.jsonl"
TXT = DATA / "icml2025_abstracts.txt"

ABSTRACT = "We study a problem. It is hard."


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8", newline="")
    return path


def jsonl(*records: object) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def skip(sources: list[Path], **kwargs: object) -> tuple[list[Paper], list[str]]:
    warnings: list[str] = []
    papers = read_papers(sources, on_error="skip", warn=warnings.append, **kwargs)  # type: ignore[arg-type]
    return papers, warnings


# ---- the bundled corpus


def test_bundled_jsonl() -> None:
    papers = read_papers([JSONL])
    assert [p.id for p in papers] == [f"icml2025-{i:02d}" for i in range(19)]
    first = papers[0]
    assert first.title == "Alberta Wells Dataset: Pinpointing Oil and Gas Wells from Satellite Imagery"
    assert first.authors[0] == "Pratinav Seth" and len(first.authors) == 6
    assert first.year == 2025 and first.venue == "ICML 2025"
    assert first.url == "https://arxiv.org/abs/2410.09032" and first.arxiv_id == "2410.09032"
    assert first.code_url == "https://github.com/RolnickLab/Alberta_Wells_Dataset"
    assert first.abstract.startswith("Millions of abandoned oil and gas wells")
    assert first.source == str(JSONL)
    by_id = {p.id: p for p in papers}
    assert by_id["icml2025-09"].title == "SQGEF: Segment Quadtree Geographical Embedding Framework"
    assert by_id["icml2025-09"].authors == () and by_id["icml2025-09"].url is None
    assert by_id["icml2025-04"].url == "https://openreview.net/forum?id=wptlUkP48t"
    assert by_id["icml2025-06"].code_url is None
    assert by_id["icml2025-07"].arxiv_id is None
    assert all(p.year == 2025 and p.abstract == " ".join(p.abstract.split()) for p in papers)


def test_bundled_txt_matches_jsonl() -> None:
    papers = read_papers([TXT])
    assert [p.id for p in papers] == [f"icml2025_abstracts-{i:02d}" for i in range(19)]
    assert [p.abstract for p in papers] == [p.abstract for p in read_papers([JSONL])]
    assert {p.venue for p in papers} == {"ICML 2025 Papers"}
    assert papers[0].title == "Millions of abandoned oil and gas wells are scattered across the world, leaching…"
    assert all(0 < len(p.title) <= 81 for p in papers)


def test_bundled_directory() -> None:
    papers = read_papers([DATA])
    assert len(papers) == 38
    assert papers[0].id == "icml2025-00" and papers[19].id == "icml2025_abstracts-00"  # sorted by path


def test_iter_papers_streams(tmp_path: Path) -> None:
    path = write(tmp_path, "s.jsonl", jsonl({"id": "a", "abstract": "x"}, {"id": "b", "abstract": "y"}) + "{oops\n")
    stream = iter_papers([path])
    assert next(stream).id == "a" and next(stream).id == "b"
    with pytest.raises(CorpusError, match=r"s\.jsonl:3: invalid JSON"):
        next(stream)


def test_single_path_and_str_accepted(tmp_path: Path) -> None:
    path = write(tmp_path, "one.jsonl", jsonl({"id": "a", "abstract": "x"}))
    assert [p.id for p in read_papers(path)] == ["a"]
    assert [p.id for p in read_papers([str(path)])] == ["a"]


def test_bad_on_error_value() -> None:
    with pytest.raises(ValueError, match="on_error"):
        read_papers([JSONL], on_error="ignore")


# ---- formats


def test_jsonl_fields(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "f.jsonl",
        "\n"
        + jsonl(
            {
                "paper_id": "p1",
                "title": "  A\n\ttitle  ",
                "abstract": "Some\u0000 text\r\n with   space — ünïcode.",
                "authors": "Ann Lee; Bo Chen",
                "year": "2021",
                "venue": None,
                "arxiv_id": "2101.00001",
                "extra": [1],
            },
            {
                "id": " p2 ",
                "abstract": "x",
                "authors": ["A", "", None, "B"],
                "year": "n.d.",
                "url": "http://u",
                "code_url": "http://c",
            },
            {"id": 7, "abstract": "y", "year": 1999.0, "authors": None},
        )
        + "   \n",
    )
    p1, p2, p3 = read_papers([path])
    assert p1 == Paper(
        id="p1",
        title="A title",
        abstract="Some text with space — ünïcode.",
        authors=("Ann Lee", "Bo Chen"),
        year=2021,
        venue=None,
        url="https://arxiv.org/abs/2101.00001",
        arxiv_id="2101.00001",
        source=str(path),
    )
    assert (p2.id, p2.authors, p2.year, p2.url, p2.code_url) == ("p2", ("A", "B"), None, "http://u", "http://c")
    assert (p3.id, p3.year, p3.authors) == ("7", 1999, ())


def test_json_array(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "arr.json",
        json.dumps(
            [
                {"id": "j1", "title": "T", "abstract": "A.", "authors": "X and Y", "doi": "10.1/abc"},
                {"id": "j2", "abstract": "B.", "authors": "P, Q, R", "summary": "ignored"},
                {"summary": "Only a summary here.", "id": "j3"},
            ],
            indent=2,
        ),
    )
    j1, j2, j3 = read_papers([path])
    assert (j1.authors, j1.url) == (("X", "Y"), "https://doi.org/10.1/abc")
    assert j2.authors == ("P", "Q", "R") and j2.abstract == "B."
    assert j3.abstract == "Only a summary here." and j3.title == "Only a summary here"


def test_csv(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "c.csv",
        (
            "ID,Title,Summary,Authors,Year,url,arxiv_id\r\n"
            'c1,First,"An abstract,\nover two lines.","A; B, Jr.; C",2020,,\r\n'
            "\r\n"
            "c2,Second,Another abstract.,Ann and Bob,n.d.,http://x,\r\n"
            'c3,,Third abstract. More.,"Smith, Jones",,,2001.1\r\n'
        ),
    )
    c1, c2, c3 = read_papers([path])
    assert c1 == Paper(
        id="c1",
        title="First",
        abstract="An abstract, over two lines.",
        authors=("A", "B, Jr.", "C"),
        year=2020,
        source=str(path),
    )
    assert (c2.authors, c2.year, c2.url) == (("Ann", "Bob"), None, "http://x")
    assert (c3.title, c3.authors, c3.url) == ("Third abstract", ("Smith", "Jones"), "https://arxiv.org/abs/2001.1")


def test_csv_line_numbers_count_physical_lines(tmp_path: Path) -> None:
    path = write(tmp_path, "l.csv", 'id,abstract\na,"two\nlines"\nb\n\nc,ok\nd,"x",extra\n')
    with pytest.raises(CorpusError, match=r"l\.csv:4: row has 1 fields; the header has 2"):
        read_papers([path])
    papers, warnings = skip([path])
    assert [p.id for p in papers] == ["a", "c"]
    assert warnings == [
        f"{path}:4: row has 1 fields; the header has 2",
        f"{path}:7: row has 3 fields; the header has 2",
    ]


def test_csv_without_abstract_column_always_raises(tmp_path: Path) -> None:
    path = write(tmp_path, "h.csv", "id,title\na,b\n")
    for mode in ("stop", "skip"):
        with pytest.raises(CorpusError, match=r"h\.csv:1: the header has no 'abstract' column \(it has: id, title\)"):
            read_papers([path], on_error=mode)


BIB = r"""
% comment text, ignored
@string{nips = "Advances in Neural Information Processing Systems"}
@comment{anything {here}}
@preamble{"\newcommand{\noop}[1]{}"}

@inproceedings{devlin2019bert,
  title     = {{B}{ERT}: Pre-training of Deep {Bidirectional} Transformers},
  author    = {Devlin, Jacob and M{\"u}ller, Kristina and Ming{-}Wei Chang and {Barnes and Noble} and others},
  booktitle = nips,
  year      = 2019,
  eprint    = {1810.04805},
  archivePrefix = {arXiv},
  abstract  = "We introduce \textbf{BERT}: {\'e}t\'{e}, na{\"i}ve, \c{c}a, Stra{\ss}e, 50\% \& more."
}

@Article{smith2020,
  title = "Joined " # "Title",
  author = "Smith, Ann",
  journal = {Nature},
  doi = {10.1000/xyz\_123},
  year = {n.d.},
  abstract = {An abstract with {nested {braces}}.},
}

@misc(paren2021, title = {With (parens)}, url = {https://example.org/a_b}, abstract = {Paren entry.})
"""


def test_bibtex(tmp_path: Path) -> None:
    path = write(tmp_path, "refs.bib", BIB)
    bert, smith, paren = read_papers([path])
    assert bert.id == "devlin2019bert"
    assert bert.title == "BERT: Pre-training of Deep Bidirectional Transformers"
    assert bert.authors == ("Jacob Devlin", "Kristina Müller", "Ming-Wei Chang", "Barnes and Noble")
    assert bert.venue == "Advances in Neural Information Processing Systems"
    assert (bert.year, bert.arxiv_id, bert.url) == (2019, "1810.04805", "https://arxiv.org/abs/1810.04805")
    assert bert.abstract == "We introduce BERT: été, naïve, ça, Straße, 50% & more."
    assert (smith.title, smith.authors, smith.venue, smith.year) == ("Joined Title", ("Ann Smith",), "Nature", None)
    assert smith.url == "https://doi.org/10.1000/xyz_123"
    assert smith.abstract == "An abstract with nested braces."
    assert (paren.title, paren.url) == ("With (parens)", "https://example.org/a_b")


def test_bibtex_unbalanced_braces_resumes_at_next_entry(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "u.bib",
        (
            "@article{good1, abstract = {Fine.}}\n"
            "\n"
            "@article{broken,\n"
            "  title = {Never closed,\n"
            "  abstract = {text}\n"
            "\n"
            "@article{good2, abstract = {Also fine.}}\n"
        ),
    )
    with pytest.raises(CorpusError, match=r"u\.bib:3: unbalanced braces in @article entry"):
        read_papers([path])
    papers, warnings = skip([path])
    assert [p.id for p in papers] == ["good1", "good2"]
    assert warnings == [f"{path}:3: unbalanced braces in @article entry"]


def test_bibtex_unbalanced_at_end_of_file(tmp_path: Path) -> None:
    path = write(tmp_path, "e.bib", "@article{ok, abstract={x}}\n@article{bad, abstract = {x}\n")
    papers, warnings = skip([path])
    assert [p.id for p in papers] == ["ok"] and warnings == [f"{path}:2: unbalanced braces in @article entry"]


def test_bibtex_without_key_gets_derived_id(tmp_path: Path) -> None:
    path = write(tmp_path, "My Refs.bib", "@misc{title = {T}, abstract = {Some abstract.}}")
    (paper,) = read_papers([path])
    assert re.fullmatch(r"my-refs-[0-9a-f]{10}", paper.id) and paper.title == "T"


def test_txt_with_titles_and_without_collection_title(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "Notes 2024.txt",
        (
            "A Title Line For Paper One\nWe propose a method. It works.\n\n\n"
            "   An abstract that is just one paragraph and has a first sentence that goes on for quite a while longer "
            "than eighty characters. Second.\n\n"
            "a hard-wrapped abstract whose first line\nis not a title.\n"
        ),
    )
    p0, p1, p2 = read_papers([path])
    assert [p.id for p in (p0, p1, p2)] == ["notes-2024-00", "notes-2024-01", "notes-2024-02"]
    assert (p0.title, p0.abstract, p0.venue) == ("A Title Line For Paper One", "We propose a method. It works.", None)
    assert p1.title == "An abstract that is just one paragraph and has a first sentence that goes on for…"
    assert p2.abstract == "a hard-wrapped abstract whose first line is not a title."


def test_txt_line_numbers(tmp_path: Path) -> None:
    path = write(tmp_path, "t.txt", "Collection\n\nfirst abstract.\n\n\n" + "x" * 200 + "\n")
    with pytest.raises(CorpusError, match=r"t\.txt:6: abstract is 200 characters; the limit is 100"):
        read_papers([path], max_abstract_chars=100)


def test_normalisation(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "n.jsonl",
        jsonl(
            {
                "id": "n",
                "title": "\u0007Bell\x1b[0m and\u2028line",
                "abstract": " tab\there\u00a0nbsp \u200bzw \ud800 \U0001f600 ",
            }
        ),
    )
    (paper,) = read_papers([path])
    assert paper.title == "Bell[0m and line"
    assert paper.abstract == "tab here nbsp \u200bzw \U0001f600"


def test_derived_ids_are_stable_when_reordered(tmp_path: Path) -> None:
    records = [{"abstract": f"Abstract number {i}.", "title": f"T{i}"} for i in range(5)]
    a = {p.abstract: p.id for p in read_papers([write(tmp_path, "a/My_Corpus.jsonl", jsonl(*records))])}
    b = {p.abstract: p.id for p in read_papers([write(tmp_path, "b/My_Corpus.jsonl", jsonl(*records[::-1]))])}
    assert a == b and len(set(a.values())) == 5
    assert all(re.fullmatch(r"my_corpus-[0-9a-f]{10}", i) for i in a.values())
    # the id depends on the normalised abstract, so whitespace differences do not change it
    c = read_papers([write(tmp_path, "c/My_Corpus.jsonl", jsonl({"abstract": "  Abstract \n number 0. "}))])
    assert c[0].id == a["Abstract number 0."]


def test_directory(tmp_path: Path) -> None:
    write(tmp_path, "corpus/b.jsonl", jsonl({"id": "b", "abstract": "x"}))
    write(tmp_path, "corpus/a/z.csv", "id,abstract\nz,y\n")
    write(tmp_path, "corpus/README.md", "# not a corpus file")
    write(tmp_path, "corpus/.hidden.jsonl", "garbage")
    write(tmp_path, "corpus/.git/x.jsonl", "garbage")
    write(tmp_path, "corpus/c.BIB", "@misc{c, abstract = {w}}")
    papers = read_papers([tmp_path / "corpus", tmp_path / "corpus" / "b.jsonl"])  # b is not read twice
    assert [p.id for p in papers] == ["z", "b", "c"]
    assert papers[0].source == str(tmp_path / "corpus" / "a" / "z.csv")


def test_warn_defaults_to_logging(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = write(tmp_path, "w.jsonl", jsonl({"id": "a", "abstract": ""}, {"id": "b", "abstract": "ok"}))
    with caplog.at_level(logging.WARNING, logger="rag.corpus"):
        papers = read_papers([path], on_error="skip")
    assert [p.id for p in papers] == ["b"] and f"{path}:1: no abstract" in caplog.text


# ---- bad records: stop raises, skip warns and carries on


BIG = "word " * (1024 * 1024 // 5) + "a"  # 1,048,576 characters after normalisation
GOOD = {"id": "good", "abstract": "A good abstract."}

BAD_RECORDS = [
    (
        "bad-json",
        "b.jsonl",
        jsonl(GOOD) + "\n" + '{"id": "x" "abstract": "y"}\n',
        3,
        "invalid JSON (Expecting ',' delimiter)",
    ),
    ("deep-json", "d.jsonl", "[" * 100_000 + "\n" + jsonl(GOOD), 1, "invalid JSON ("),
    ("non-object", "o.jsonl", '[1, 2]\n"text"\n' + jsonl(GOOD), 1, "expected a JSON object, found an array"),
    (
        "json-array-non-object",
        "a.json",
        '[\n  {"id": "good", "abstract": "x"},\n  42\n]',
        3,
        "expected a JSON object, found a number",
    ),
    ("missing-abstract", "m.jsonl", jsonl({"id": "x", "title": "t"}, GOOD), 1, "no abstract"),
    ("null-abstract", "m.jsonl", jsonl({"id": "x", "abstract": None}, GOOD), 1, "no abstract"),
    ("blank-abstract", "m.jsonl", jsonl({"id": "x", "abstract": " \n\t "}, GOOD), 1, "no abstract"),
    (
        "abstract-not-text",
        "m.jsonl",
        jsonl({"id": "x", "abstract": {"a": 1}}, GOOD),
        1,
        "the abstract is dict, not text",
    ),
    ("csv-no-abstract", "m.csv", "id,abstract,title\nx,,t\ngood,ok,t\n", 2, "no abstract"),
    (
        "txt-too-long",
        "big.txt",
        "Title\n\nshort one.\n\n" + BIG + "\n",
        5,
        "abstract is 1,048,576 characters; the limit is 100,000",
    ),
    (
        "jsonl-too-long",
        "big.jsonl",
        jsonl({"id": "x", "abstract": BIG}, GOOD),
        1,
        "abstract is 1,048,576 characters; the limit is 100,000",
    ),
    ("invalid-id", "i.jsonl", jsonl({"id": "has space", "abstract": "x"}, GOOD), 1, "invalid id 'has space'"),
    ("invalid-id-start", "i.csv", "id,abstract\n-x,y\ngood,z\n", 2, "invalid id '-x'"),
    (
        "invalid-id-type",
        "i.jsonl",
        jsonl({"id": ["x"], "abstract": "x"}, GOOD),
        1,
        "invalid id: expected a string, found an array",
    ),
    ("invalid-id-too-long", "i.jsonl", jsonl({"id": "a" * 129, "abstract": "x"}, GOOD), 1, "invalid id 'aaaa"),
    ("invalid-bib-key", "k.bib", "@misc{bad key, abstract={x}}\n@misc{good, abstract={y}}", 1, "invalid id 'bad key'"),
    ("csv-ragged", "r.csv", "id,abstract,year\ngood,x,2020\nbad,y\n", 3, "row has 2 fields; the header has 3"),
    (
        "bib-unbalanced",
        "u.bib",
        "@misc{good, abstract={x}}\n\n\n@misc{bad,\n abstract = {y\n",
        4,
        "unbalanced braces in @misc entry",
    ),
    (
        "bib-malformed",
        "f.bib",
        "@misc{good, abstract={x}}\n@misc{bad, title}\n",
        2,
        "malformed @misc entry: expected '=' after field 'title'",
    ),
    (
        "duplicate-in-file",
        "d.jsonl",
        jsonl(GOOD, {"id": "x", "abstract": "y"}, GOOD),
        3,
        "d.jsonl:1 and {path}:3 both define id 'good'",
    ),
    (
        "duplicate-derived",
        "d.jsonl",
        jsonl({"abstract": "same"}, {"abstract": " same "}, GOOD),
        2,
        "both define id 'd-",
    ),
]


@pytest.mark.parametrize(
    ("name", "content", "line", "reason"), [c[1:] for c in BAD_RECORDS], ids=[c[0] for c in BAD_RECORDS]
)
def test_bad_record_stop(tmp_path: Path, name: str, content: str, line: int, reason: str) -> None:
    path = write(tmp_path, name, content)
    message = f"{path}:{line}: {reason}".replace("{path}", str(path))
    if "both define" in reason:
        message = reason.replace("{path}", str(path))
    with pytest.raises(CorpusError) as info:
        read_papers([path])
    assert message in str(info.value)
    assert str(path) in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("name", "content", "line", "reason"), [c[1:] for c in BAD_RECORDS], ids=[c[0] for c in BAD_RECORDS]
)
def test_bad_record_skip(tmp_path: Path, name: str, content: str, line: int, reason: str) -> None:
    path = write(tmp_path, name, content)
    papers, warnings = skip([path])
    assert len(warnings) >= 1 and all("\n" not in w for w in warnings)
    assert reason.replace("{path}", str(path)) in warnings[0]
    assert f"{path}:{line}" in warnings[0]
    assert papers  # the good records are still read


def test_duplicate_ids_across_files(tmp_path: Path) -> None:
    a = write(tmp_path, "a.jsonl", jsonl({"id": "q", "abstract": "one"}, {"id": "x", "abstract": "first"}))
    b = write(tmp_path, "b.csv", "id,abstract\ny,z\n\nz,w\nx,second\n")
    expected = f"{a}:2 and {b}:5 both define id 'x'"
    with pytest.raises(CorpusError) as info:
        read_papers([a, b])
    assert str(info.value) == expected
    papers, warnings = skip([a, b])
    assert warnings == [expected]
    assert [(p.id, p.abstract) for p in papers] == [("q", "one"), ("x", "first"), ("y", "z"), ("z", "w")]


def test_one_line_messages_with_hostile_ids(tmp_path: Path) -> None:
    path = write(tmp_path, "h.jsonl", jsonl({"id": "a\nb\u2028c", "abstract": "x"}))
    with pytest.raises(CorpusError) as info:
        read_papers([path])
    message = str(info.value)
    assert "\n" not in message and "\u2028" not in message and f"{path}:1: invalid id 'a\\nb\\u2028c'" in message


def test_custom_abstract_limit(tmp_path: Path) -> None:
    path = write(tmp_path, "l.jsonl", jsonl({"id": "a", "abstract": "x" * 11}, {"id": "b", "abstract": "x" * 10}))
    papers, warnings = skip([path], max_abstract_chars=10)
    assert [p.id for p in papers] == ["b"]
    assert warnings == [f"{path}:1: abstract is 11 characters; the limit is 10"]


# ---- whole-file problems always raise


FILE_ERRORS = [
    ("empty-jsonl", "e.jsonl", "", "{path}: empty file"),
    ("blank-jsonl", "e.jsonl", "\n  \n\n", "{path}: empty file"),
    ("empty-json", "e.json", "  ", "{path}: empty file"),
    ("empty-json-array", "e.json", "[ ]", "{path}: empty file"),
    ("empty-csv", "e.csv", "", "{path}: empty file"),
    ("header-only-csv", "e.csv", "id,abstract\n", "{path}: empty file"),
    ("empty-bib", "e.bib", "% only a comment\n@comment{x}\n", "{path}: empty file"),
    ("empty-txt", "e.txt", "\n\n", "{path}: empty file"),
    (
        "binary",
        "bin.jsonl",
        b'{"id": "a", "abstract": "x"}\n\x00\x01\x02',
        "{path}: looks like a binary file (NUL byte at offset 29)",
    ),
    ("binary-csv", "bin.csv", b"\x89PNG\r\n\x1a\n\x00\x00", "{path}: looks like a binary file"),
    ("utf16", "u.txt", "hello".encode("utf-16"), "{path}: UTF-16 text; convert it to UTF-8"),
    (
        "latin1",
        "l.jsonl",
        b'{"id": "a", "abstract": "x"}\n{"id": "b", "abstract": "caf\xe9"}\n',
        "{path}: not UTF-8 text (byte 0xe9 at offset 57); convert it to UTF-8",
    ),
    ("latin1-bib", "l.bib", b"@misc{a, abstract={M\xfcller}}", "{path}: not UTF-8 text (byte 0xfc at offset 20)"),
    (
        "unsupported",
        "notes.md",
        "# hi",
        "{path}: unsupported file type '.md'; use one of .jsonl, .json, .csv, .bib, .txt",
    ),
    ("json-syntax", "s.json", '[\n {"id": "a", "abstract": "x"},\n {"id": }\n]', "{path}:3: invalid JSON"),
    ("json-not-array", "s.json", '\n{"id": "a", "abstract": "x"}', "{path}:2: expected a JSON array of objects"),
    ("json-trailing-comma", "s.json", '[{"id": "a", "abstract": "x"},\n]', "{path}:2: invalid JSON (trailing comma)"),
    ("json-extra", "s.json", '[{"id": "a", "abstract": "x"}] []', "{path}:1: invalid JSON (extra data)"),
    ("json-unclosed", "s.json", '[{"id": "a", "abstract": "x"}', "{path}:1: invalid JSON (unclosed array)"),
]


@pytest.mark.parametrize("mode", ["stop", "skip"])
@pytest.mark.parametrize(("name", "content", "expected"), [c[1:] for c in FILE_ERRORS], ids=[c[0] for c in FILE_ERRORS])
def test_file_errors_always_raise(tmp_path: Path, mode: str, name: str, content: str | bytes, expected: str) -> None:
    path = write(tmp_path, name, content)
    warnings: list[str] = []
    with pytest.raises(CorpusError) as info:
        read_papers([path], on_error=mode, warn=warnings.append)
    assert expected.replace("{path}", str(path)) in str(info.value)
    assert "\n" not in str(info.value)


def test_missing_file(tmp_path: Path) -> None:
    for mode in ("stop", "skip"):
        with pytest.raises(CorpusError, match=re.escape(f"{tmp_path / 'nope.jsonl'}: no such file")):
            read_papers([tmp_path / "nope.jsonl"], on_error=mode)


def test_directory_without_corpus_files(tmp_path: Path) -> None:
    write(tmp_path, "d/readme.md", "hi")
    write(tmp_path, "d/.hidden.jsonl", jsonl(GOOD))
    for mode in ("stop", "skip"):
        with pytest.raises(CorpusError, match=re.escape(f"{tmp_path / 'd'}: no corpus files in this directory")):
            read_papers([tmp_path / "d"], on_error=mode)


def test_bom_is_accepted(tmp_path: Path) -> None:
    a = write(tmp_path, "bom.jsonl", b"\xef\xbb\xbf" + jsonl({"id": "a", "abstract": "x"}).encode())
    b = write(tmp_path, "bom.csv", b"\xef\xbb\xbfid,abstract\nb,y\n")
    c = write(tmp_path, "bom.txt", b"\xef\xbb\xbfColl\n\nAn abstract.\n")
    papers = read_papers([a, b, c])
    assert [p.id for p in papers] == ["a", "b", "bom-00"] and papers[2].venue == "Coll"


def test_supported_suffixes() -> None:
    assert SUPPORTED_SUFFIXES == (".jsonl", ".json", ".csv", ".bib", ".txt", ".ris", ".pdf")


def test_derived_titles() -> None:
    from rag.corpus import derive_title

    assert derive_title("Short. Second sentence.") == "Short"
    assert derive_title("We use e.g. trees here. Then more.") == "We use e.g. trees here"
    assert derive_title("What is it? An answer.") == "What is it?"
    assert derive_title(".") == "."
    assert derive_title("x" * 200) == "x" * 80 + "…"
    long = derive_title("word " * 40)
    assert long.endswith("word…") and len(long) <= 81


def test_bibtex_macro_bomb_is_a_bad_record(tmp_path: Path) -> None:
    defs = '@string{m0 = "xxxxxxxxxxxxxxxx"}\n' + "".join(
        f"@string{{m{i} = m{i - 1} # m{i - 1} # m{i - 1} # m{i - 1}}}\n" for i in range(1, 40)
    )
    path = write(tmp_path, "bomb.bib", defs + "@misc{ok, abstract = {Fine.}}\n")
    papers, warnings = skip([path])
    assert [p.id for p in papers] == ["ok"]
    assert warnings and "@string macros expand to too much text" in warnings[0]


def test_csv_with_an_unclosed_quote_is_refused_with_its_line(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text('id,title,abstract\na,T,"An abstract that never closes\nb,U,Another abstract here.\n')
    with pytest.raises(CorpusError, match=r"bad.csv:2: malformed CSV"):
        read_papers([bad])
