"""Fuzzing the corpus readers: for any bytes, `read_papers` returns valid papers or raises CorpusError."""

from __future__ import annotations

import csv
import io
import json
import re
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from rag.corpus import SUPPORTED_SUFFIXES, read_papers
from rag.errors import CorpusError

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}")
FIELDS = ["id", "paper_id", "title", "abstract", "summary", "authors", "author", "year", "venue", "journal",
          "booktitle", "url", "code_url", "arxiv_id", "eprint", "doi", "archivePrefix", "extra", "ID", "Abstract",
          # the outside formats' marker fields, so detection is exercised too
          "paperId", "externalIds", "abstract_inverted_index", "authorships", "authors_parsed", "versions",
          "issued", "container-title", "citation-key", "DOI"]
OUR = {"id", "paper_id", "title", "abstract", "summary", "authors", "author", "year", "venue", "url", "arxiv_id",
       "eprint", "doi", "code_url", "journal", "booktitle"}

# text with the characters that matter to the parsers: delimiters, escapes, controls, odd unicode
tricky = st.text(st.one_of(st.sampled_from(list('{}()[]"\',;:=#@%\\\n\r\t \x00\x0b\x1c\x85\u2028\ufeff\ud800é😀-_.')),
                           st.characters()), max_size=40)
json_value = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20), st.floats(), tricky,
                       st.lists(st.one_of(tricky, st.none(), st.integers()), max_size=4),
                       st.dictionaries(tricky, tricky, max_size=2))
record = st.dictionaries(st.sampled_from(FIELDS), json_value, max_size=8)


@st.composite
def mutated(draw: st.DrawFn, base: st.SearchStrategy[str]) -> str:
    """A text with a few random insertions, deletions and duplications."""
    text = draw(base)
    for _ in range(draw(st.integers(0, 4))):
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 20)))
        op = draw(st.sampled_from(["insert", "delete", "duplicate"]))
        if op == "insert":
            text = text[:i] + draw(tricky) + text[i:]
        elif op == "delete":
            text = text[:i] + text[j:]
        else:
            text = text[:j] + text[i:j] + text[j:]
    return text


def _jsonl(records: list[dict[str, object]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def _csv(rows: list[list[str]]) -> str:
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    return out.getvalue()


BIB_PIECES = ["@article{", "@misc(", "@string{", "@comment{", "@preamble{", "key,", " title = ", " abstract = ",
              " author = ", " year = ", "eprint = ", "doi = ", "{", "}", "(", ")", '"', " # ", ",", "=", "\n",
              '{\\"u}', "\\'{e}", "\\c{c}", "\\ss", "\\textbf{", " and ", "2020", "jan", "An abstract.", "%"]

RIS_PIECES = ["TY  - JOUR\n", "TY  - CONF\n", "TI  - ", "T1  - ", "AU  - ", "A1  - ", "PY  - ", "Y1  - ",
              "AB  - ", "N2  - ", "JO  - ", "DO  - ", "UR  - ", "ID  - ", "ER  - \n", "ER  -\n", "\n", "\r\n",
              "Lee, Ann", "2020///", "An abstract.", "10.1/x"]
PDF_PIECES = ["%PDF-1.4\n", "1 0 obj\n", "<< /Type /Catalog /Pages 2 0 R >>", "endobj\n", "stream\n",
              "endstream\n", "xref\n0 1\n", "trailer\n<< /Root 1 0 R >>\n", "startxref\n9\n", "%%EOF\n",
              "/Encrypt", "BT /F1 12 Tf (Abstract) Tj ET"]

near_valid = {
    ".jsonl": mutated(st.lists(record, max_size=5).map(_jsonl)),
    ".json": mutated(st.lists(record, max_size=5).map(lambda rs: json.dumps(rs, indent=1, ensure_ascii=False))),
    ".csv": mutated(st.tuples(st.lists(st.sampled_from(FIELDS), min_size=1, max_size=5),
                              st.lists(st.lists(tricky, max_size=6), max_size=5))
                    .map(lambda hr: _csv([hr[0], *hr[1]]))),
    ".bib": mutated(st.lists(st.one_of(st.sampled_from(BIB_PIECES), tricky), max_size=40).map("".join)),
    ".txt": mutated(st.lists(st.one_of(tricky, st.sampled_from(["\n\n", "\n", "Title\n", "An abstract. "])),
                             max_size=20).map("".join)),
    ".ris": mutated(st.lists(st.one_of(st.sampled_from(RIS_PIECES), tricky), max_size=30).map("".join)),
    ".pdf": mutated(st.lists(st.one_of(st.sampled_from(PDF_PIECES), tricky), max_size=20).map("".join)),
}


def check(data: bytes, suffix: str, on_error: str, max_abstract_chars: int = 100_000) -> None:
    warnings: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"fuzz{suffix}"
        path.write_bytes(data)
        try:
            papers = read_papers([path], on_error=on_error, max_abstract_chars=max_abstract_chars,
                                 warn=warnings.append)
        except CorpusError as e:
            message = str(e)
            assert "\n" not in message and "\r" not in message
            assert "unexpected error" not in message, message  # the catch-all for bugs never fires
            assert str(path) in message
            return
    assert len({p.id for p in papers}) == len(papers)
    for paper in papers:
        assert ID_RE.fullmatch(paper.id), paper.id
        assert paper.abstract and paper.abstract == " ".join(paper.abstract.split())
        assert len(paper.abstract) <= max_abstract_chars
        assert paper.title and all(isinstance(a, str) and a for a in paper.authors)
        assert paper.year is None or isinstance(paper.year, int)
        paper.abstract.encode("utf-8")  # no lone surrogates
        paper.title.encode("utf-8")
    for warning in warnings:
        assert "\n" not in warning and str(path) in warning and "unexpected error" not in warning


suffixes = st.sampled_from(SUPPORTED_SUFFIXES)
modes = st.sampled_from(["stop", "skip"])


@FUZZ
@given(data=st.binary(max_size=400), suffix=suffixes, on_error=modes)
def test_random_bytes(data: bytes, suffix: str, on_error: str) -> None:
    check(data, suffix, on_error)


@FUZZ
@given(data=st.data(), suffix=suffixes, on_error=modes, bom=st.booleans(), limit=st.sampled_from([5, 100_000]))
def test_near_valid_text(data: st.DataObject, suffix: str, on_error: str, bom: bool, limit: int) -> None:
    text = data.draw(near_valid[suffix])
    raw = text.encode("utf-8", "surrogatepass")  # lone surrogates make invalid UTF-8 bytes, which is fine too
    check((b"\xef\xbb\xbf" if bom else b"") + raw, suffix, on_error, limit)


@FUZZ
@given(text=near_valid[".bib"] | near_valid[".jsonl"] | near_valid[".txt"], suffix=suffixes)
def test_any_text_under_any_suffix_skip_mode(text: str, suffix: str) -> None:
    check(text.encode("utf-8", "surrogatepass"), suffix, "skip")


@FUZZ
@given(records=st.lists(record, min_size=1, max_size=6))
def test_well_formed_jsonl_never_raises_in_skip_mode(records: list[dict[str, object]]) -> None:
    """Well-formed JSON lines may be bad records, but skip mode always reads the file to the end (once its first
    record names one of our fields: a first record in no known format refuses the file, see below)."""
    assume({k.lower() for k in records[0]} & OUR)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ok.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        warnings: list[str] = []
        papers = read_papers([path], on_error="skip", warn=warnings.append)
    assert len(papers) + len(warnings) == len(records)


def test_jsonl_whose_first_record_is_in_no_known_format_is_refused_with_what_it_holds(tmp_path: Path) -> None:
    path = tmp_path / "tweets.jsonl"
    path.write_text('{"text": "hello", "likes": 3}\n{"text": "bye"}\n', encoding="utf-8")
    for mode in ("stop", "skip"):
        try:
            read_papers([path], on_error=mode)
        except CorpusError as e:
            assert str(e).startswith(f"{path}:1: not a format rag reads (a JSON object with keys likes, text)")
        else:
            raise AssertionError("a file in no known format was read")
