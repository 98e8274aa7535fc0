"""Which format a corpus file is in, from its suffix and its first bytes.

A `.json` file may be a JSON array of our records, CSL-JSON, an OpenAlex page or work, a Semantic Scholar
response or paper, or JSON Lines under the wrong suffix (Kaggle's arXiv snapshot is `...snapshot.json`); a
`.jsonl` file may hold arXiv snapshot lines, OpenAlex works, Semantic Scholar papers or our records; a `.txt`
or `.ris` file may be RIS. Only the start of the file is read: the first record decides. A JSON file whose
first record matches no format is refused with what it does contain.
"""

from __future__ import annotations

import json
from pathlib import Path

from rag.corpus import formats as F
from rag.corpus.csl_json import csl_flavour, looks_like_csl
from rag.corpus.json_stream import JsonStream
from rag.corpus.jsonl import line_or_reason
from rag.corpus.openalex import looks_like_work
from rag.corpus.ris import is_ris
from rag.corpus.semantic_scholar import looks_like_paper
from rag.corpus.source_file import Source
from rag.corpus.text_io import corpus_error

OUR_FIELDS = frozenset(
    {"id", "paper_id", "title", "abstract", "summary", "authors", "author", "year", "venue", "url", "arxiv_id",
     "eprint", "doi", "code_url", "journal", "booktitle"}
)  # fmt: skip
ARXIV_FIELDS = frozenset({"authors_parsed", "versions", "submitter", "update_date", "journal-ref"})
EXPECTED = (
    "expected a JSON array of paper records, CSL-JSON, an OpenAlex work or page ({\"results\": [...]}), "
    "a Semantic Scholar paper or response ({\"data\": [...]}), or arXiv snapshot lines"
)


def _kind(sample: object) -> str | None:
    if not isinstance(sample, dict):
        return "records"  # not an object: the records reader names the problem at its line
    keys = set(sample)
    if {"id", "abstract"} <= keys and keys & ARXIV_FIELDS:
        return "arxiv"
    if looks_like_work(keys, sample):
        return "openalex"
    if looks_like_paper(keys, sample):
        return "s2"
    if looks_like_csl(keys, sample):
        return "csl"
    if {k.lower() for k in keys} & OUR_FIELDS:
        return "records"
    return None


def _unknown(path: Path, line: int, sample: object) -> Exception:
    keys = ", ".join(sorted(map(str, sample)))[:120] if isinstance(sample, dict) else ""
    return corpus_error(f"{path}:{line}: not a format rag reads (a JSON object with keys {keys}); {EXPECTED}")


def _lines_format(path: Path, line: int, sample: object) -> F.Format:
    kind = _kind(sample)
    if kind is None:
        raise _unknown(path, line, sample)
    return {
        "arxiv": F.ARXIV, "openalex": F.OPENALEX_LINES, "s2": F.S2_LINES, "records": F.RECORDS_JSONL,
        "csl": F.csl(csl_flavour(sample) if isinstance(sample, dict) else "CSL-JSON", lines=True),
    }[kind]  # fmt: skip


def _sniff_jsonl(source: Source) -> F.Format:
    for number, raw, offset in source.raw_lines():
        line, bad = line_or_reason(source, raw, offset)
        if bad is not None or not line.strip():
            continue  # a bad record is reported (or skipped) by the reader at its line: the next one decides
        try:
            sample = json.loads(line)
        except (ValueError, RecursionError):
            return F.RECORDS_JSONL  # the reader reports the line
        return _lines_format(source.path, number, sample)
    return F.RECORDS_JSONL  # empty: reported as an empty file


def _sniff_json(source: Source) -> F.Format:
    stream = JsonStream(source.path, source.blocks())
    first = stream.peek()
    if first == "[":
        item = next(stream.items(), None)
        kind = _kind(item[1]) if item else "records"
        if item and kind is None:
            raise _unknown(source.path, item[0], item[1])
        if kind == "csl" and item is not None and isinstance(item[1], dict):
            return F.csl(csl_flavour(item[1]))
        return {"openalex": F.OPENALEX_ARRAY, "s2": F.S2_ARRAY, "arxiv": F.RECORDS_JSON}.get(
            kind or "", F.RECORDS_JSON
        )
    if first != "{":
        return F.RECORDS_JSON  # empty, or not JSON: the reader says so
    line = stream.line_at(stream.pos)
    sample: dict[str, object] = {}
    for key in stream.members():
        if key in ("results", "data") and stream.peek() == "[":
            item = next(stream.items(), None)
            if key == "results" and ("meta" in sample or (item and _kind(item[1]) == "openalex")):
                return F.OPENALEX_PAGE
            if key == "data" and (sample.keys() & {"total", "offset", "next", "token"} or
                                  (item and _kind(item[1]) == "s2")):  # fmt: skip
                return F.S2_RESPONSE
            raise _unknown(source.path, line, {**sample, key: []})
        sample[key] = stream.value()[1]
    if stream.peek() == "{":  # another object follows: JSON Lines under a .json name
        return _lines_format(source.path, line, sample)
    kind = _kind(sample)
    if kind == "openalex":
        return F.OPENALEX_WORK
    if kind == "s2":
        return F.S2_PAPER
    if kind == "records":
        return F.RECORDS_JSON  # refused by the reader: "expected a JSON array of objects"
    raise _unknown(source.path, line, sample)


def _first_line(source: Source) -> str:
    for _, raw, offset in source.raw_lines():
        line = source.line_text(raw, offset)
        if line.strip():
            return line.strip()
    return ""


def detect(path: Path) -> F.Format:
    """The format of the file at `path` (a regular file with one of SUPPORTED_SUFFIXES)."""
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        return F.PDF
    if suffix == ".bib":
        return F.BIBTEX
    if suffix == ".csv":
        return F.CSV
    with Source(path) as source:
        source.check_head()
        if suffix == ".jsonl":
            return _sniff_jsonl(source)
        if suffix == ".json":
            return _sniff_json(source)
        first = _first_line(source)
    if is_ris(first):
        return F.RIS
    if suffix == ".ris":
        if not first:
            return F.RIS  # empty: reported as an empty file
        raise corpus_error(f"{path}: not RIS: its first line is not a 'TY  - ' tag ({first[:40]!r})")
    return F.TEXT
