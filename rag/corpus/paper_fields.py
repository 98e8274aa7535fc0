"""A raw record (a dict of fields from any reader) -> a validated Paper.

Field names are matched case-insensitively, with common alternatives (`summary` for `abstract`, `journal` or
`booktitle` for `venue`, `eprint` for `arxiv_id`). A record that cannot become a Paper raises BadRecord with the
reason. A `url` or `code_url` that is neither http(s) nor a local file (`javascript:`, `data:`, `vbscript:`...) is
dropped: no paper is found there, and no later output can then turn it into a link (each output checks again).
The title, the abstract (and its labelled parts) and the body are read as typeset: LaTeX markup such as `10\\%` or
`classifiers~(ACs)` is undone (rag.corpus.latex_in_abstracts); a derived id still comes from the text as given.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from rag.corpus.abstract_sections import abstract_sections
from rag.corpus.latex_in_abstracts import undo_latex_markup
from rag.corpus.text_io import Fields, json_kind, shown, slugify
from rag.safe_text import safe_url
from rag.types import AbstractSection, Paper, Section

_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f\ud800-\udfff]")  # whitespace controls are collapsed later
_YEAR_RE = re.compile(r"\s*([0-9]{1,4})\s*")
_SENTENCE_RE = re.compile(r"(.{3,}?[.!?])(?:\s+(?![a-z])|\s*$)")  # "e.g. the" does not end a sentence


class BadRecord(Exception):
    """A record that cannot become a Paper; the message is the reason."""


def _clean(text: str) -> str:
    return " ".join(_CONTROL_RE.sub("", text).split())


def _short(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + "...")


def _first(fields: Fields, *names: str) -> object:
    """The first of `names` with a value: None and blank strings mean unknown."""
    for name in names:
        value = fields.get(name)
        if value is not None and not (isinstance(value, str) and not value.strip()):
            return value
    return None


def _plain(text: str) -> str:
    """Prose as typeset: LaTeX markup of an abstract or a title undone (rag.corpus.latex_in_abstracts)."""
    return " ".join(undo_latex_markup(text).split())


def _text(value: object) -> str | None:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 10**100:
        return str(value)
    return (_clean(value) or None) if isinstance(value, str) else None


def _link(value: object) -> str | None:
    """A URL where a paper or its code can be: http(s), or a local file (what the PDF reader gives)."""
    url = _text(value)
    return url if url is not None and (safe_url(url) or url.lower().startswith("file:/")) else None


def _year(value: object) -> int | None:
    if isinstance(value, str) and (m := _YEAR_RE.fullmatch(value)):
        value = int(m.group(1))
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 10_000:
        return value
    return None  # "n.d.", "2020a", 1e9...: unknown rather than an error


def _authors(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        sep = ";" if ";" in value else " and " if " and " in value else ","
        value = value.split(sep)
    if not isinstance(value, list):
        return ()
    return tuple(name for name in map(_text, value) if name)


def derive_title(abstract: str) -> str:
    """The abstract's first sentence, cut to about 80 characters at a word boundary."""
    m = _SENTENCE_RE.match(abstract[:1000])
    sentence = (m.group(1) if m else abstract[:1000]).rstrip(".") or abstract[:80]
    if len(sentence) <= 80:
        return sentence
    cut = sentence[:81]  # a space just after the 80th character keeps the last word whole
    space = cut.rfind(" ")
    return ((cut[:space] if space >= 40 else cut[:80]).rstrip(" ,;:-") or cut[:80]) + "…"


def _paper_id(value: object, path: Path, abstract: str) -> str:
    if value is None:
        return f"{slugify(path.stem)}-{hashlib.sha1(abstract.encode('utf-8')).hexdigest()[:10]}"
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise BadRecord(f"invalid id: expected a string, found {json_kind(value)}")
    paper_id = value.strip() if isinstance(value, str) else str(value)
    if not _ID_RE.fullmatch(paper_id):
        raise BadRecord(
            f"invalid id {_short(paper_id)}: use up to 128 letters, digits and . _ : / - "
            "starting with a letter or digit"
        )
    return paper_id


def build_paper(fields: Fields, path: Path, max_abstract_chars: int) -> Paper:
    f: Fields = {}
    for name, value in fields.items():
        f.setdefault(str(name).strip().lower(), value)
    raw = _first(f, "abstract", "summary")
    if raw is not None and not isinstance(raw, str):
        raise BadRecord(f"the abstract is {json_kind(raw)}, not text")
    abstract = _clean(raw or "")
    if not abstract:
        raise BadRecord("no abstract")
    if len(abstract) > max_abstract_chars:
        raise BadRecord(f"abstract is {len(abstract):,} characters; the limit is {max_abstract_chars:,}")
    arxiv_id = _text(_first(f, "arxiv_id", "eprint"))
    arxiv_id = re.sub(r"(?i)^arxiv:\s*", "", arxiv_id) if arxiv_id else None
    doi = bare_doi(_text(f.get("doi")))
    url = _link(f.get("url"))
    if url is None and arxiv_id:
        url = _link(f"https://arxiv.org/abs/{arxiv_id}")
    elif url is None and doi:
        url = _link(f"https://doi.org/{doi}")
    paper_id = _paper_id(_first(f, "id", "paper_id"), path, abstract)  # from the text as given: ids stay stable
    abstract = _plain(abstract)
    title = _text(f.get("title"))
    return Paper(
        id=paper_id,
        title=(_plain(title) if title else "") or derive_title(abstract),
        abstract=abstract,
        authors=_authors(_first(f, "authors", "author")),
        year=_year(f.get("year")),
        venue=_text(_first(f, "venue", "journal", "booktitle")),
        url=url,
        code_url=_link(f.get("code_url")),
        arxiv_id=arxiv_id or None,
        source=shown(path),
        doi=doi,
        body=_body(f.get("body")),
        abstract_sections=tuple(
            AbstractSection(s.label, _plain(s.text)) for s in abstract_sections(f.get("sections"), abstract)
        ),
    )


def bare_doi(doi: str | None) -> str | None:
    """ "https://doi.org/10.1/X", "doi:10.1/X" -> "10.1/X"."""
    if not doi:
        return None
    return re.sub(r"(?i)^(doi:\s*|https?://(dx\.)?doi\.org/)", "", doi.strip()) or None


def _body(value: object) -> tuple[Section, ...]:
    if not isinstance(value, list | tuple):
        return ()
    return tuple(
        Section(s.page, _clean(s.heading) or None if s.heading else None, text)
        for s in value if isinstance(s, Section) and (text := _plain(_clean(s.text)))
    )  # fmt: skip


def person(given: object, family: object, suffix: object = None) -> str | None:
    """("Ann", "Lee", "Jr.") -> "Ann Lee Jr."; parts that are not text are left out."""
    parts = [p.strip() for p in (given, family, suffix) if isinstance(p, str) and p.strip()]
    return " ".join(parts) or None


def last_first(name: str) -> str:
    """ "Lee, Ann" -> "Ann Lee"; "Lee, Ann, Jr." -> "Ann Lee Jr."; a name without a comma is kept."""
    parts = [p.strip() for p in name.split(",")]
    if len(parts) < 2 or not all(parts):
        return name.strip()
    return " ".join([parts[1], parts[0], *parts[2:]])


def stable_id(prefix: str, *parts: object) -> str:
    """An id for a record that carries none, from what identifies the paper (not from the file it is in, so
    re-exporting a library to another file name keeps every id)."""
    key = "\n".join(" ".join(str(p).lower().split()) for p in parts if p)
    return f"{prefix}-{hashlib.sha1(key.encode('utf-8')).hexdigest()[:12]}"


def valid_id(value: object) -> str | None:
    """The value when it can be a paper id as it is, else None."""
    return value.strip() if isinstance(value, str) and _ID_RE.fullmatch(value.strip()) else None
