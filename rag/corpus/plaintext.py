"""Plain text: blank-line-separated paragraphs, one abstract each; an optional first one-line paragraph names
the collection, and a short first line that ends no sentence is the paper's title."""

from __future__ import annotations

from collections.abc import Iterator

from rag.corpus.source_file import Source
from rag.corpus.text_io import Fields, Record, slugify


def _looks_like_title(lines: list[str]) -> bool:
    """A paragraph "Title\\nabstract...": a short first line that ends no sentence, then a new sentence."""
    first = lines[0]
    return (
        len(lines) > 1
        and len(first) < 150
        and not first.endswith((".", ",", ";", ":", "-"))
        and (lines[1][:1].isupper() or lines[1][:1].isdigit())
    )


def read_text_file(source: Source) -> Iterator[Record]:
    """Blank-line-separated paragraphs; an optional first one-line paragraph names the collection."""
    paragraphs: list[tuple[int, list[str]]] = []
    current: list[str] | None = None
    for number, line in enumerate(source.text().replace("\r\n", "\n").replace("\r", "\n").split("\n"), 1):
        if not line.strip():
            current = None
        elif current is None:
            current = [line.strip()]
            paragraphs.append((number, current))
        else:
            current.append(line.strip())
    venue = None
    if len(paragraphs) > 1 and len(paragraphs[0][1]) == 1:
        first = paragraphs[0][1][0]
        if len(first) < 120 and not first.endswith("."):
            venue, paragraphs = first, paragraphs[1:]
    slug = slugify(source.path.stem)
    for index, (number, lines) in enumerate(paragraphs):
        fields: Fields = {"id": f"{slug}-{index:02d}", "venue": venue, "abstract": "\n".join(lines)}
        if _looks_like_title(lines):
            fields["title"], fields["abstract"] = lines[0], "\n".join(lines[1:])
        yield number, fields
