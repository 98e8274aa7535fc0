"""BibTeX entries for papers, pure functions (the CLI's `rag ask --format bibtex` and `rag export --format
bibtex`, and the UI's "Copy BibTeX of cited papers" call them).

Every kept field (key = paper id, title, authors, year, venue, DOI, arXiv id, url, code url, abstract) reads
back unchanged through rag's own BibTeX reader: text is escaped (`\\&`, `\\%`, `\\{`, `\\textbackslash{}` ...),
words with capitals inside ("BERT", "ImageNet") are braced so styles keep their case, and a name with a comma
or " and " in it is braced whole. `<` and `>` are written `\\textless{}` / `\\textgreater{}` (what LaTeX prints
them as; no raw tag reaches a tool that turns BibTeX into HTML), and `url` / `code_url` are written only for
http(s) URLs (rag.safe_text): a `javascript:` or `data:` URL, or a local file, is left out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from rag.safe_text import safe_url, strip_active_html
from rag.types import Answer, Paper

_ESCAPES = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
            "_": r"\_", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}",
            ">": r"\textgreater{}"}  # fmt: skip
_URL_ESCAPES = {"%": r"\%", "#": r"\#", "&": r"\&", "{": "", "}": ""}
_PROCEEDINGS = re.compile(
    r"proceedings|conference|workshop|symposium|\b(ICML|NeurIPS|NIPS|ICLR|CVPR|ICCV|ECCV|ACL|EMNLP|NAACL|COLING|"
    r"AAAI|IJCAI|KDD|SIGIR|WWW|UAI|AISTATS|COLT|CoRL|ICRA|IROS|Interspeech|ICASSP|MICCAI|WACV|BMVC)\b",
    re.IGNORECASE,
)


def escape(text: str) -> str:
    """Plain text -> a BibTeX field value that means exactly that text."""
    return "".join(_ESCAPES.get(ch, ch) for ch in text)


def _title(text: str) -> str:
    words = text.split(" ")
    return " ".join(f"{{{escape(w)}}}" if re.search(r"[A-Z]", w[1:]) else escape(w) for w in words)


def _name(name: str) -> str:
    needs_braces = "," in name or re.search(r"\sand\s", name, re.IGNORECASE)
    return f"{{{escape(name)}}}" if needs_braces else escape(name)


def _url(value: str) -> str:
    return "".join(_URL_ESCAPES.get(ch, ch) for ch in value)


def entry_type(paper: Paper) -> tuple[str, str | None]:
    """(BibTeX entry type, the field the venue goes in)."""
    if not paper.venue:
        return "misc", None
    if _PROCEEDINGS.search(paper.venue):
        return "inproceedings", "booktitle"
    return "article", "journal"


def bibtex_entry(paper: Paper) -> str:
    """One entry, `@article{<paper id>, ...}`, with the fields the paper has. A url or code url that is not http(s)
    (a PDF read from disk, a `javascript:` URL) is left out."""
    kind, venue_field = entry_type(paper)
    fields: list[tuple[str, str]] = [("title", _title(paper.title))]
    if paper.authors:
        fields.append(("author", " and ".join(_name(a) for a in paper.authors)))
    if paper.year is not None:
        fields.append(("year", str(paper.year)))
    if venue_field and paper.venue:
        fields.append((venue_field, escape(paper.venue)))
    if paper.doi:
        fields.append(("doi", _url(strip_active_html(paper.doi))))
    if paper.arxiv_id:
        fields += [("eprint", _url(strip_active_html(paper.arxiv_id))), ("archiveprefix", "arXiv")]
    if url := safe_url(paper.url):
        fields.append(("url", _url(url)))
    if code_url := safe_url(paper.code_url):
        fields.append(("code_url", _url(code_url)))
    fields.append(("abstract", escape(paper.abstract)))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@{kind}{{{paper.id},\n{body}\n}}\n"


def bibtex_entries(papers: Iterable[Paper]) -> str:
    """Entries for `papers`, one blank line apart, each paper once (by id)."""
    seen: set[str] = set()
    out = []
    for paper in papers:
        if paper.id not in seen:
            seen.add(paper.id)
            out.append(bibtex_entry(paper))
    return "\n".join(out)


def cited_papers(answer: Answer, lookup: Callable[[str], Paper | None] | None = None) -> list[Paper]:
    """The papers an answer cites, once each, in the order of their first citation.

    A source's Paper carries the retrieved passage as its abstract when the passage is not the paper's first
    chunk; pass `lookup` (e.g. `Retriever.paper`, which reads the whole abstract by id) to get the paper as
    indexed. Abstentions cite nothing."""
    papers: list[Paper] = []
    seen: set[str] = set()
    for citation in answer.citations:
        if citation.paper_id in seen or not 1 <= citation.n <= len(answer.sources):
            continue
        seen.add(citation.paper_id)
        paper = (lookup(citation.paper_id) if lookup else None) or answer.sources[citation.n - 1].paper
        papers.append(paper)
    return papers


def cited_bibtex(answer: Answer, lookup: Callable[[str], Paper | None] | None = None) -> str:
    """The BibTeX of the papers an answer cites ("" when it cites none)."""
    return bibtex_entries(cited_papers(answer, lookup))



