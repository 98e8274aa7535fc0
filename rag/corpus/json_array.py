"""JSON documents of papers, streamed value by value (rag.corpus.json_stream): a JSON array of our records, and
the same walk for the outside formats' arrays (a CSL-JSON array, a Semantic Scholar batch) and API pages whose
papers sit under one key (`{"meta": ..., "results": [...]}`, `{"total": ..., "data": [...]}`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from rag.corpus.json_stream import JsonStream
from rag.corpus.source_file import Source
from rag.corpus.text_io import Fields, Record, as_object, corpus_error

Convert = Callable[[dict[str, object]], Fields | str]


def _records(values: Iterator[tuple[int, object]], convert: Convert | None) -> Iterator[Record]:
    for line, value in values:
        obj = as_object(value)
        yield line, obj if isinstance(obj, str) or convert is None else convert(obj)


def read_array_as(source: Source, convert: Convert | None) -> Iterator[Record]:
    """A top-level JSON array: every element is a record. A file of only whitespace has none."""
    stream = JsonStream(source.path, source.blocks())
    if stream.peek() == "":
        return
    yield from _records(stream.items(), convert)
    stream.end()


def read_page_as(source: Source, key: str, convert: Convert) -> Iterator[Record]:
    """A top-level object whose `key` holds the array of records; the other members are skipped."""
    stream = JsonStream(source.path, source.blocks())
    found = False
    for name in stream.members():
        if name == key and not found:
            found = True
            if stream.peek() == "[":
                yield from _records(stream.items(), convert)
            else:
                raise corpus_error(f"{stream.where()}: expected an array of papers under {key!r}")
    stream.end()
    if not found:
        raise corpus_error(f"{source.path}: the JSON object has no {key!r} array")


def read_object_as(source: Source, convert: Convert) -> Iterator[Record]:
    """A file that is one JSON object, one paper (an OpenAlex work or a Semantic Scholar paper as the API
    returns it for a single id)."""
    stream = JsonStream(source.path, source.blocks())
    yield from _records(iter([stream.value()]), convert)
    stream.end()


def read_json_array(source: Source) -> Iterator[Record]:
    """A JSON array of our own records, decoded element by element so each one has a line number."""
    return read_array_as(source, None)
