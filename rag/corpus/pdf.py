"""PDF papers, read with pypdf and PDFium (the optional extra `pip install -e '.[pdf]'` brings pypdf and pypdfium2;
nothing is fetched at run time). Page 1 is read with pypdf (its text runs' type sizes give the title); every later
page with PDFium (rag.corpus.pdf_pdfium: a twelfth of the CPU, and it decodes fonts pypdf garbles), laid out as
pypdf's layout mode does; pypdf reads those pages too when pypdfium2 is not installed.

The title comes from the PDF's metadata when it has a real one, else from the largest type on the first page;
the abstract from the text under an "Abstract" heading (else the first long paragraph); the arXiv id and a
DOI from the first page. With --full-text the body is read too, section by section and page by page, without
the references (rag.corpus.pdf_layout). A PDF without a text layer (a scan), one that needs a password, and a
file pypdf cannot parse are each one bad record, named with the reason (skipped with --skip-bad).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import nullcontext
from typing import Any

from rag.corpus import pdf_pdfium
from rag.corpus.paper_fields import valid_id
from rag.corpus.pdf_abstract import find_abstract
from rag.corpus.pdf_layout import (
    columns_run_together,
    drop_running_lines,
    reading_order,
    sections,
    wide_without_gutter,
)
from rag.corpus.pdf_meta import Run, choose_title, good_title, identifiers, title_from_runs, without_chapter_number
from rag.corpus.pdf_words import glued_words, mend_run_together
from rag.corpus.source_file import Source
from rag.corpus.text_io import Fields, Record, corpus_error, slugify

INSTALL_HINT = "reading PDFs needs the optional pypdf package: pip install -e '.[pdf]' (or: pip install pypdf)"
HEAD_PAGES = 2  # pages searched for the title and a first paragraph standing for the abstract
HEADED_PAGES = 3  # pages searched first for an "Abstract" heading (a cover page, a thesis's title and copyright pages)
PYPDF_PAGES = 1  # pages read with pypdf (the title by type size, the arXiv stamp, a sidebar); PDFium reads the rest
NO_ABSTRACT = (
    "no abstract found on the first pages (no 'Abstract' heading and no long first paragraph); "
    "a thesis or report? with --full-text its first paragraph of prose stands in for the abstract"
)
MIN_GLUED = 10  # words run together in layout mode from which a sidebar may have been written into the body's lines
GLUED_RATIO = 3  # ... and plain mode has at most a third as many
MIN_PAGE_CHARS = 20  # fewer visible characters in pypdf's layout text: try its plain mode for that page


def _title_by_size(page: Any) -> tuple[str | None, str]:
    """The title set in the largest upright type on the page (rag.corpus.pdf_meta), from pypdf's text runs, and
    the page's plain text from the same pass (it keeps rotated text, arXiv's side stamp: layout mode drops it)."""
    runs: list[Run] = []

    def visit(text: str, cm: list[float], tm: list[float], font: object, size: float) -> None:
        if text.strip():
            scale = abs(tm[3] * cm[3]) or abs(tm[1] * cm[0]) or 1.0
            y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
            upright = abs(tm[1]) < 1e-6 and abs(cm[1]) < 1e-6 and tm[0] * cm[0] > 0
            runs.append(Run(size * scale, y, text, upright))

    plain = str(page.extract_text(visitor_text=visit))
    return title_from_runs(runs, float(page.mediabox.height)), plain


def _visible(text: str) -> int:
    return len(re.sub(r"\s", "", text))


def _page_text(page: Any, body: Any | None = None) -> str:
    """pypdf's layout text (it keeps columns apart), else its plain text: layout mode returns nothing for a page
    whose content sits in a Form XObject, where plain mode reads it all, and on some two-column pages it runs the
    columns together line by line, or writes a sidebar's lines straight after the body's ("sequencesCorresponding"),
    where plain mode keeps the file's (column) order (issue 35). A page after the first comes from
    PDFium (`body`, rag.corpus.pdf_pdfium) laid out the same way, at a fraction of the CPU."""
    fast = None if body is None else pdf_pdfium.layout_text(body)
    layout = fast if fast is not None else str(page.extract_text(extraction_mode="layout"))
    glued = glued_words(layout) >= MIN_GLUED
    if _visible(layout) >= MIN_PAGE_CHARS and not wide_without_gutter(layout) and not glued:
        return layout
    plain = pdf_pdfium.plain_text(body) if fast is not None else str(page.extract_text())
    if _visible(layout) >= MIN_PAGE_CHARS:  # two columns layout mode may have run together line by line
        sidebar = glued and glued_words(plain) * GLUED_RATIO < glued_words(layout)
        return plain if sidebar or columns_run_together(layout, plain) else layout
    return plain if _visible(plain) > _visible(layout) else layout


def _read_page(page: Any, fast: Any | None, index: int) -> str:
    """A page's text: the first page (title, sidebar, identifiers) with pypdf, the others with PDFium."""
    body = fast[index] if fast is not None and index >= PYPDF_PAGES else None
    try:
        return _page_text(page, body)
    finally:
        if body is not None:
            body.close()


def _fields(source: Source, reader: Any) -> Fields | str:
    wanted = reader.pages if source.options.full_text else reader.pages[:HEADED_PAGES]
    with pdf_pdfium.opened(source.binary()) if len(wanted) > PYPDF_PAGES else nullcontext() as fast:
        read = [reading_order(_read_page(page, fast, i), sidebars=i == 0) for i, page in enumerate(wanted)]
    pages = mend_run_together(drop_running_lines(read))
    if sum(_visible(line) for lines in pages for line in lines) < 20:
        return "no text layer (a scanned PDF?); run OCR on it first (e.g. ocrmypdf) or skip it with --skip-bad"
    meta = reader.metadata or {}
    by_size, plain_first = _title_by_size(reader.pages[0])
    title = choose_title(meta.get("/Title"), by_size, plain_first)
    found, number, abstract, end = None, 0, "", 0
    for headed, head in ((True, pages[:HEADED_PAGES]), (False, pages[:HEAD_PAGES])):  # a heading wins over a paragraph
        for page_index, lines in enumerate(head):
            skip = max((i + 1 for i, line in enumerate(lines[:20]) if title and len(line) > 3 and line in title),
                       default=0)  # fmt: skip
            # after page 1 a heading must stand alone: a line opening "Summary statistics ..." is no abstract
            if (found := find_abstract(lines, skip, headed, own_line=headed and page_index > 0)) is not None:
                (abstract, end), number = found, page_index
                break
        if found is not None:
            break
    subject = meta.get("/Subject")
    if found is None and isinstance(subject, str) and len(subject.split()) >= 25:
        found, abstract, number, end = (subject, 0), subject, 0, 0
    if found is None and source.options.full_text:  # a thesis or report: its first paragraph of prose stands in
        for page_index, lines in enumerate(pages[HEAD_PAGES:], HEAD_PAGES):
            if (found := find_abstract(lines)) is not None:
                abstract, number, end = found[0], page_index, 0  # the body keeps that whole page
                break
    if found is None:
        return NO_ABSTRACT
    ids = identifiers("\n".join(pages[0]) + "\n" + plain_first)
    author = meta.get("/Author")
    fields: Fields = {
        "id": valid_id(slugify(source.path.stem)) or "paper",
        "title": title or next((without_chapter_number(line) for line in pages[0] if good_title(line)), None),
        "abstract": abstract,
        "authors": author if isinstance(author, str) else None,
        "year": ids.get("year"),
        "arxiv_id": ids.get("arxiv_id"),
        "doi": ids.get("doi"),
        "pages": len(reader.pages),
    }
    if not ids.get("arxiv_id") and not ids.get("doi"):
        fields["url"] = source.path.resolve().as_uri()
    if source.options.full_text:
        fields["body"] = sections(pages, number, end)
    return fields


def read_pdf(source: Source) -> Iterator[Record]:
    try:
        import pypdf
        from pypdf.errors import DependencyError
    except ImportError:
        raise corpus_error(f"{source.path}: {INSTALL_HINT}") from None
    quiet = logging.getLogger("pypdf")
    level = quiet.level
    quiet.setLevel(logging.ERROR)  # "incorrect startxref pointer" and the like: the outcome is reported below
    try:
        reader = pypdf.PdfReader(source.binary())
        if reader.is_encrypted:
            try:
                opened = reader.decrypt("")  # many PDFs carry only an owner password: they open without one
            except DependencyError:
                yield 0, "encrypted PDF; opening it needs the 'cryptography' package: pip install cryptography"
                return
            if not opened:
                yield 0, "encrypted PDF: it needs a password; save an unprotected copy or skip it with --skip-bad"
                return
        record = _fields(source, reader)
    except Exception as e:  # pypdf raises many kinds of exception on damaged files; each means "cannot read it"
        yield 0, f"not a readable PDF ({type(e).__name__}: {str(e)[:120]})"
        return
    finally:
        quiet.setLevel(level)
    yield 0, record
