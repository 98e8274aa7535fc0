"""PDFs laid out the way real papers are (issue 35), made in the test with fpdf2 and pypdf: a page whose text sits
in a Form XObject, arXiv's rotated side stamp, a conference running header above a two-line title, a journal's
junk metadata title, a DOI broken across lines, compound words hyphenated at a line end, a body with bracketed
reference markers, and a thesis with no abstract."""

from __future__ import annotations

import io
from pathlib import Path

from fpdf import FPDF

from tests.pdf_fixtures import GLACIER_ABSTRACT, rows_across

TITLE_LINES = ("Sparse Mixture Routing for Glacier Radar", "Sounding with Eight Experts")
STAMP = "arXiv:2401.01234v2  [cs.LG]  3 Jan 2024"
HEADER = "Published as a conference paper at ICLR 2024"


def _line(pdf: FPDF, text: str, size: float = 10, style: str = "", align: str = "L", h: float = 5) -> None:
    pdf.set_font("Helvetica", style, size)
    pdf.multi_cell(0, h, text, align=align, new_x="LMARGIN", new_y="NEXT")


def arxiv_paper(
    path: Path,
    *,
    header: str | None = HEADER,
    stamp: str | None = STAMP,
    meta_title: str | None = None,
    doi_lines: tuple[str, str] | None = None,
    abstract: str = GLACIER_ABSTRACT,
    body: str = "Ice sheets lose mass. Radar sounding measures their thickness from aircraft. " * 3,
) -> Path:
    """An arXiv version of a conference paper: a small running header, a two-line title in large type, the
    rotated stamp in the left margin, the abstract under its heading and an introduction."""
    pdf = FPDF(format="letter")
    pdf.set_auto_page_break(False)
    if meta_title:
        pdf.set_title(meta_title)
    pdf.add_page()
    if header:
        _line(pdf, header, 9)
        pdf.ln(6)
    for line in TITLE_LINES:
        _line(pdf, line, 17, "B", "C", 8)
    _line(pdf, "Ingrid Sorensen, Tomas Ruiz", 11, align="C")
    if stamp:
        pdf.set_font("Times", "", 20)
        with pdf.rotation(90, 12, 200):
            pdf.text(12, 200, stamp)
    pdf.ln(4)
    _line(pdf, "Abstract", 11, "B", "C")
    _line(pdf, abstract)
    pdf.ln(4)
    _line(pdf, "1 Introduction", 12, "B")
    _line(pdf, body)
    if doi_lines:
        pdf.ln(4)
        for line in doi_lines:
            _line(pdf, line, 8)
    pdf.output(str(path))
    return path


def in_form_xobject(path: Path) -> Path:
    """The same PDF with each page's content moved into a Form XObject the page only draws (as some PDF
    producers and stamping tools write them): pypdf's layout mode returns nothing for such a page."""
    import pypdf
    from pypdf.generic import ArrayObject, DictionaryObject, FloatObject, NameObject, StreamObject

    reader = pypdf.PdfReader(path)
    writer = pypdf.PdfWriter()
    for source in reader.pages:
        page = writer.add_page(source)
        form = StreamObject()
        form.set_data(page.get_contents().get_data())  # type: ignore[union-attr]
        box = [FloatObject(float(v)) for v in page.mediabox]
        form.update(
            {
                NameObject("/Type"): NameObject("/XObject"),
                NameObject("/Subtype"): NameObject("/Form"),
                NameObject("/BBox"): ArrayObject(box),
                NameObject("/Resources"): page["/Resources"],
            }
        )
        draw = StreamObject()
        draw.set_data(b"q /Fm0 Do Q")
        page[NameObject("/Contents")] = writer._add_object(draw)
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/XObject"): DictionaryObject({NameObject("/Fm0"): writer._add_object(form)})}
        )
    with path.open("wb") as out:
        writer.write(out)
    return path


AUTHORS = (
    "Amara Okafor1,2, Lucia Ferreira1, Henrik Dahl3, Mei Tanaka2,4, Samuel Osei1, Priya Raman3, Jonas Weber4, "
    "1 Department of Epidemiology, University of Lagos, Nigeria; 2 Institute of Tropical Medicine, Antwerp, "
    "Belgium; 3 Karolinska Institutet, Stockholm, Sweden; 4 Graduate School of Medicine, Kyoto University, Japan"
)
BIO_ABSTRACT = (
    "Malaria remains a leading cause of death in children under five. We followed 1,204 children in two districts "
    "for two rainy seasons and compared bed nets treated with a new insecticide against standard nets. The new "
    "nets cut clinical malaria episodes by 38 percent and were well-tolerated by every household we visited."
)
LICENCE = (
    "Copyright: © 2021 Okafor et al. This is an open access article distributed under the terms of the Creative "
    "Commons Attribution License, which permits unrestricted use, distribution, and reproduction in any medium."
)


def journal_article(path: Path, *, heading: bool) -> Path:
    """A biomedical journal's first page: a long author and affiliation list, the abstract (under a heading, or
    as a bare paragraph), then received dates, the licence text and a DOI broken across two lines."""
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(False)
    pdf.set_title("PONE-D-21-01234 1..12")  # a journal's internal file code, not the title
    pdf.add_page()
    _line(pdf, "Treated Bed Nets and Childhood Malaria in Two", 16, "B", h=8)
    _line(pdf, "Districts: a Cohort Study", 16, "B", h=8)
    _line(pdf, AUTHORS, 9)
    pdf.ln(4)
    if heading:
        _line(pdf, "Abstract", 11, "B")
    lines = BIO_ABSTRACT.replace("well-tolerated", "well-\ntolerated").split("\n")  # the hyphen ends a line
    for line in lines:
        _line(pdf, line)
    _line(pdf, "Received: March 3, 2021; Accepted: June 1, 2021; Published: July 9, 2021", 8)
    _line(pdf, LICENCE, 8)
    _line(pdf, "https://doi.org/10.1371/journal.", 8)
    _line(pdf, "pone.0254321", 8)
    pdf.ln(4)
    _line(pdf, "Introduction", 12, "B")
    _line(pdf, "Malaria kills hundreds of thousands of children every year. " * 3)
    pdf.output(str(path))
    return path


THESIS_OPENING = (
    "Coastal wetlands store carbon in their soils for thousands of years, yet we know little about how fast they "
    "lose it once drained. This thesis measures soil carbon in forty drained and forty intact marshes of the Wadden "
    "Sea and models the loss over a century."
)


def thesis(path: Path) -> Path:
    """A doctoral thesis: a title page, a short declaration, a table of contents, then chapter 1; no abstract."""
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(False)
    pdf.add_page()
    pdf.ln(40)
    _line(pdf, "Carbon Loss from Drained Coastal Wetlands", 20, "B", "C", 10)
    _line(pdf, "Femke de Vries", 12, align="C")
    _line(pdf, "A thesis submitted for the degree of Doctor of Philosophy", 11, align="C")
    _line(pdf, "University of Groningen, 2019", 11, align="C")
    pdf.add_page()
    _line(pdf, "Declaration", 14, "B")
    _line(pdf, "I declare that this thesis is my own work and has not been submitted elsewhere.")
    pdf.add_page()
    _line(pdf, "Contents", 14, "B")
    for entry in ("1 Introduction  1", "2 Field sites  9", "3 Soil carbon  21"):
        _line(pdf, entry)
    pdf.add_page()
    _line(pdf, "1 Introduction", 14, "B")
    _line(pdf, THESIS_OPENING)
    pdf.ln(3)
    _line(pdf, "Drained marshes subside. Their soils oxidise and the carbon returns to the air as it dries. " * 2)
    pdf.output(str(path))
    return path


SECTIONS = ("Introduction", "Method", "Results", "Discussion")


def with_running_lines(path: Path, pages: int = 4) -> Path:
    """A paper whose every page carries a running header and a footer with the page number, as journals and
    conference templates set them."""
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(False)
    for n in range(1, pages + 1):
        pdf.add_page()
        _line(pdf, HEADER, 9, align="C")
        pdf.ln(4)
        if n == 1:
            _line(pdf, "Sparse Mixture Routing for Glacier Radar Sounding", 17, "B", "C", 9)
            _line(pdf, "Abstract", 11, "B", "C")
            _line(pdf, GLACIER_ABSTRACT)
        _line(pdf, f"{n} {SECTIONS[n - 1]}", 12, "B")
        _line(pdf, f"The {SECTIONS[n - 1].lower()} says one thing about radar echoes and ice. " * 4)
        pdf.set_y(-20)
        _line(pdf, f"Journal of Glaciology, Vol. 12 - Page {n}", 8, align="C")
    pdf.output(str(path))
    return path


TABLE = (("Method", "Top-1", "Params"), ("ResNet-50", "76.1", "25.6"), ("DenseNet-121", "74.9", "8.0"))


def _table(pdf: FPDF) -> None:
    pdf.set_font("Helvetica", "", 10)
    for row in TABLE:
        for x, cell in zip((40, 100, 140), row, strict=True):
            pdf.set_x(x)
            pdf.cell(30, 5, cell)
        pdf.ln(5)


def _abstract_page() -> FPDF:
    """A new PDF whose first page holds the glacier paper's title and abstract."""
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(False)
    pdf.add_page()
    _line(pdf, "Sparse Mixture Routing for Glacier Radar Sounding", 17, "B", "C", 9)
    _line(pdf, "Abstract", 11, "B", "C")
    _line(pdf, GLACIER_ABSTRACT)
    return pdf


def with_table(path: Path) -> Path:
    """A results section with a three-column table between two paragraphs."""
    pdf = _abstract_page()
    pdf.ln(4)
    _line(pdf, "4 Results", 12, "B")
    _line(pdf, "Table 1 compares the backbones on the survey lines.")
    pdf.ln(3)
    _table(pdf)
    pdf.ln(3)
    _line(pdf, "The smaller network loses little accuracy.")
    pdf.output(str(path))
    return path


LEFT_BODY = ("The gating network reads one radargram", "column at a time and scores the eight",
             "experts on it; the well-", "trained router picks the best one, whose repre-",
             "sentation is kept for the bed picker.")  # fmt: skip
RIGHT_BODY = ("The right column goes on with the", "training data: twelve survey lines", "flown over the Amundsen Sea",
              "in two seasons, with 4,100 radargram", "columns picked by hand as the truth.")  # fmt: skip


def body_pages(path: Path) -> Path:
    """Four pages: the abstract; a one-column introduction; a results page in two columns written row by row
    across them (left line, then right line); a table with a rotated axis label beside it."""
    pdf = _abstract_page()
    pdf.add_page()
    _line(pdf, "1 Introduction", 12, "B")
    _line(pdf, "Ice sheets lose mass to the ocean. Airborne radar sounding measures how thick they are. " * 3)
    pdf.add_page()
    _line(pdf, "2 Results", 12, "B")
    rows_across(pdf, LEFT_BODY, RIGHT_BODY, pdf.get_y() + 3)
    pdf.add_page()
    _line(pdf, "3 Errors", 12, "B")
    _line(pdf, "Table 2 gives the error per survey line.")
    pdf.ln(3)
    _table(pdf)
    with pdf.rotation(90, 25, pdf.get_y()):
        pdf.text(25, pdf.get_y(), "bed error (m)")
    pdf.output(str(path))
    return path


FIGURE_WORDS = "validation loss per epoch"


def with_figure(path: Path) -> Path:
    """body_pages with a plot drawn into page 4 as a Form XObject (as LaTeX includes a PDF figure): its title and
    tick labels sit beside the table, inside the figure's box."""
    import pypdf
    from pypdf.generic import ArrayObject, DecodedStreamObject, DictionaryObject, FloatObject, NameObject

    plot = FPDF(format=(200, 120))
    plot.add_page()
    _line(plot, f"4 {FIGURE_WORDS}", 12)
    for tick in ("0.8", "0.4", "0.0"):
        _line(plot, tick, 9)
    plot_reader = pypdf.PdfReader(io.BytesIO(bytes(plot.output())))
    reader = pypdf.PdfReader(body_pages(path))
    writer = pypdf.PdfWriter(clone_from=reader)
    page, source = writer.pages[3], plot_reader.pages[0]
    form = DecodedStreamObject()
    form.set_data(source.get_contents().get_data())  # type: ignore[union-attr]
    form.update({NameObject("/Type"): NameObject("/XObject"), NameObject("/Subtype"): NameObject("/Form"),
                 NameObject("/BBox"): ArrayObject([FloatObject(float(v)) for v in source.mediabox]),
                 NameObject("/Resources"): source["/Resources"].clone(writer)})  # fmt: skip
    draw = DecodedStreamObject()
    draw.set_data(page.get_contents().get_data() + b"\nq 0.5 0 0 0.5 330 120 cm /Fig0 Do Q\n")  # type: ignore[union-attr]
    page[NameObject("/Contents")] = writer._add_object(draw)
    resources = page["/Resources"].get_object()
    resources[NameObject("/XObject")] = DictionaryObject({NameObject("/Fig0"): writer._add_object(form)})
    with path.open("wb") as out:
        writer.write(out)
    return path
