"""PDFs made in the test with fpdf2 (a dev dependency): a one-column paper with metadata, a two-column paper
written row by row across the columns (so text order in the file is not reading order), a multi-page paper
with sections and references for --full-text, a scan without a text layer, encrypted files and a broken one."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from fpdf import FPDF

GLACIER_ABSTRACT = (
    "Radar sounding maps the bed beneath glaciers, but picking the bed echo by hand is slow and error prone. "
    "We train a sparse mixture of experts that routes each radargram column to one of eight experts. On twelve "
    "Antarctic survey lines it reduces bed picking error by 41 percent against a U-Net baseline, and it runs "
    "on a laptop in real time."
)


def _pdf(title: str | None = None, author: str | None = None) -> FPDF:
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(False)
    if title:
        pdf.set_title(title)
    if author:
        pdf.set_author(author)
    return pdf


def _line(pdf: FPDF, text: str, size: float = 10, style: str = "", align: str = "L", h: float = 5) -> None:
    pdf.set_font("Helvetica", style, size)
    pdf.multi_cell(0, h, text, align=align, new_x="LMARGIN", new_y="NEXT")


SHORT_ABSTRACT = "We route each radargram column to one of eight experts and cut bed picking error by 41 percent."


def one_column(path: Path, abstract: str = GLACIER_ABSTRACT) -> Path:
    pdf = _pdf("Sparse Mixture Routing for Glacier Radar Sounding", "Ingrid Sorensen, Tomas Ruiz")
    pdf.add_page()
    _line(pdf, "Sparse Mixture Routing for Glacier Radar Sounding", 17, "B", "C", 9)
    _line(pdf, "Ingrid Sorensen, Tomas Ruiz", 11, align="C")
    _line(pdf, "arXiv:2401.01234v2 [cs.LG] 3 Jan 2024", 8, align="C")
    pdf.ln(4)
    _line(pdf, "Abstract", 11, "B", "C")
    _line(pdf, abstract)
    pdf.ln(4)
    _line(pdf, "1 Introduction", 12, "B")
    _line(pdf, "Ice sheets lose mass. Radar sounding measures their thickness from aircraft. " * 3)
    pdf.output(str(path))
    return path


BUS_ABSTRACT = (
    "Buses on one route bunch together and passengers wait longer. We forecast headways fifteen minutes ahead "
    "with a graph recurrent network over the stops of the route. In a simulation of Nairobi route 46 the "
    "forecasts let dispatchers hold buses early and cut bunching events by 23 percent."
)
LEFT = [
    "1 Introduction",
    "Bus bunching is an old problem of transit",
    "operations. Holding a bus at a stop restores",
    "the headway but delays its riders.",
    "2 Related Work",
    "Earlier control schemes hold buses by fixed",
    "rules. Learned forecasts came later.",
]
RIGHT = [
    "3 Method",
    "Each stop is a node of a graph and each",
    "segment between stops is an edge. The",
    "recurrent cell reads the last ten headways.",
    "4 Results",
    "Holding on the forecast cut bunching by a",
    "quarter of the events in our simulation.",
]


def two_column(path: Path) -> Path:
    """No metadata title: the title comes from the largest type. The columns are written row by row, left line
    then right line, as some generators do; reading order must still be the left column, then the right."""
    pdf = _pdf()
    pdf.add_page()
    _line(pdf, "Graph Recurrent Networks for Bus Bunching", 18, "B", "C", 9)
    _line(pdf, "Rosa Martinez and Kofi Otieno", 11, align="C")
    pdf.ln(3)
    _line(pdf, "Abstract", 11, "B", "C")
    _line(pdf, BUS_ABSTRACT)
    rows_across(pdf, LEFT, RIGHT, pdf.get_y() + 6)
    pdf.output(str(path))
    return path


def rows_across(pdf: FPDF, left: Sequence[str], right: Sequence[str], y0: float) -> None:
    """Two columns written row by row across them (a left line, then the right line), as some generators do."""
    pdf.set_font("Helvetica", "", 10)
    for i, (left_line, right_line) in enumerate(zip(left, right, strict=True)):
        pdf.set_xy(10, y0 + i * 5)
        pdf.cell(90, 5, left_line)
        pdf.set_xy(110, y0 + i * 5)
        pdf.cell(90, 5, right_line)


BODY_FACT = "The router sends 93 percent of crevasse columns to expert five, which was trained on firn echoes."


def full_paper(path: Path) -> Path:
    """Three pages: abstract and introduction; method with the fact above on page 2; results, references and an
    appendix on page 3."""
    pdf = _pdf("Sparse Mixture Routing for Glacier Radar Sounding", "Ingrid Sorensen")
    pdf.add_page()
    _line(pdf, "Sparse Mixture Routing for Glacier Radar Sounding", 17, "B", "C", 9)
    _line(pdf, "Abstract", 11, "B", "C")
    _line(pdf, GLACIER_ABSTRACT)
    pdf.ln(3)
    _line(pdf, "1 Introduction", 12, "B")
    _line(pdf, "Ice sheets lose mass to the ocean. Airborne radar sounding measures how thick they are. " * 4)
    _line(pdf, "1", 9, align="C")  # a page number
    pdf.add_page()
    _line(pdf, "2 Method", 12, "B")
    _line(pdf, "Each radargram column is a vector of echo strengths. A gating network scores eight experts. " * 3)
    _line(pdf, "2.1 Routing crevasses", 11, "B")
    _line(pdf, BODY_FACT + " Columns over bare ice go to expert two.")
    pdf.add_page()
    _line(pdf, "3 Results", 12, "B")
    _line(pdf, "Bed picking error fell on every survey line we tried. " * 2)
    _line(pdf, "References", 12, "B")
    _line(pdf, "[1] A. Author. Radar sounding of ice with the phrase zebra quokka. Journal of Ice, 2019.")
    _line(pdf, "Appendix A", 12, "B")
    _line(pdf, "The appendix lists the eight experts and their training lines.")
    pdf.output(str(path))
    return path


def scanned(path: Path) -> Path:
    """A page that is only an image of text (what a scanner gives): no text layer."""
    from PIL import Image, ImageDraw

    image = Image.new("L", (600, 300), 255)
    ImageDraw.Draw(image).text((20, 20), "Abstract. This page is a picture of text.", fill=0)
    png = path.with_suffix(".png")
    image.save(png)
    pdf = _pdf()
    pdf.add_page()
    pdf.image(str(png), x=10, y=10, w=180)
    pdf.output(str(path))
    png.unlink()
    return path


def encrypted(path: Path, user_password: str = "secret") -> Path:
    """Encrypted with RC4 (no crypto package needed to read it). With user_password="" only an owner password
    is set, and the file opens without one."""
    from fpdf.enums import EncryptionMethod

    pdf = _pdf("Sparse Mixture Routing for Glacier Radar Sounding")
    pdf.set_encryption(owner_password="owner", user_password=user_password, encryption_method=EncryptionMethod.RC4)
    pdf.add_page()
    _line(pdf, "Sparse Mixture Routing for Glacier Radar Sounding", 17, "B", "C", 9)
    _line(pdf, "Abstract", 11, "B", "C")
    _line(pdf, GLACIER_ABSTRACT)
    pdf.output(str(path))
    return path


def broken(path: Path) -> Path:
    """A PDF cut off half way, as an interrupted download leaves it."""
    whole = one_column(path.with_name("whole-" + path.name)).read_bytes()
    path.write_bytes(whole[: len(whole) // 3])
    path.with_name("whole-" + path.name).unlink()
    return path
