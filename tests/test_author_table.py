"""The author -> papers table written with the docstore: the author lookup reads no chunk, finds the same papers
as reading each chunk did, stays right through re-indexing, and an index written before it still answers."""

from __future__ import annotations

import json
from pathlib import Path

from rag.adapters.fakes import HashEmbedder
from rag.factory import build_index, layout_of, open_retriever
from rag.index.author_table import TABLE, name_spans
from rag.index.docstore import DocStore
from rag.index.integrity import write_manifest
from rag.index.records import AUTHOR_SEP
from rag.retrieve.fields import ChunkLookup, authored_papers, mentioned, name_words
from rag.settings import BUNDLED_CORPUS, Settings


def _bundled() -> list[dict]:
    return [json.loads(line) for line in BUNDLED_CORPUS.read_text().splitlines()]


def _questions(papers: list[dict]) -> list[str]:
    """A question per author name of the corpus (surname, full name, possessive), and a few names no one has."""
    out = ["What did Smith-Jones and O'Neil show?", "Is there work by Pe'er?", "Papers by Nobody Knows"]
    for p in papers:
        for a in p.get("authors") or []:
            name = str(a)
            out += [f"What did {name.split()[-1]}'s paper find?", f"Which papers did {name} write?"]
    return out


def test_a_name_span_is_what_mentioned_matches():
    texts = [str(p["abstract"]) for p in _bundled()]
    texts += [
        "as Smith-Jones and O'Neil showed",
        "the Pe'er–Lab (Pe'er) and McDonald's data",
        "Li-Wei Zhang-Li",
        "ÉCOLE of Müller, Müllers and Anne-Marie's work",
        "x_Foo Foo_bar Foo2 2Foo",
        "Lee--Kim and Lee-'Kim",
    ]
    words = {w for t in texts for w in name_words(t)}
    words |= {"Smith", "Jones", "Wei", "Zhang-Li", "Lee--Kim", "Lee-'Kim", "Anne-Marie", "Marie", "Foo", "Müller"}
    checked = 0
    for text in texts:
        spans = name_spans(text)
        for w in words:
            assert (w in spans) == mentioned(w, text), (w, text)
            checked += mentioned(w, text)
    assert checked > 100  # the words occur in the texts often enough for the comparison to mean something


def test_the_table_finds_the_same_papers_as_reading_each_chunk(settings: Settings, tmp_path: Path):
    build_index(settings, embedder=HashEmbedder(64))
    retriever = open_retriever(settings, embedder=HashEmbedder(64))
    assert retriever.docs is not None
    table = retriever.docs.author_table
    assert table is not None
    found = 0
    for q in _questions(_bundled()):
        by_table = authored_papers(q, retriever.lexical.postings, table)
        by_chunks = authored_papers(q, retriever.lexical.postings, ChunkLookup(retriever._authors_of))
        assert by_table == by_chunks, q
        found += bool(by_table)
    assert found > 30


def _table_matches_docstore(settings: Settings) -> None:
    docs = DocStore.load(layout_of(settings).docs_dir)
    assert docs is not None and docs.author_table is not None
    firsts = [cid for cid in docs.ids if cid.endswith(":0")]
    expected = {}
    for cid in firsts:
        chunk = docs.get(cid)
        assert chunk is not None
        expected[cid] = tuple(str(chunk.metadata.get("authors") or "").split(AUTHOR_SEP))
    assert docs.author_table.authors(firsts) == expected
    assert docs.author_table.authors(["no-such-paper:0"]) == {}


def test_the_table_follows_changes_deletions_and_additions(settings: Settings, tmp_path: Path):
    papers = _bundled()
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps(p) + "\n" for p in papers))
    build_index(settings, [corpus], embedder=HashEmbedder(64))
    papers[3]["authors"] = ["Ada Quillfeather"]  # metadata only
    gone = papers.pop(5)
    papers.append({**gone, "id": "added-1", "authors": ["Bo Zanderling"], "abstract": "Zanderling et al. show it."})
    corpus.write_text("".join(json.dumps(p) + "\n" for p in papers))
    build_index(settings, [corpus], embedder=HashEmbedder(64))
    _table_matches_docstore(settings)
    retriever = open_retriever(settings, embedder=HashEmbedder(64))
    hits = retriever.search("What did Quillfeather write?", 3)
    assert hits[0].paper.id == papers[3]["id"]
    assert all(h.paper.id != gone["id"] for h in retriever.search(" ".join(gone["authors"]), 19))
    # the added paper's abstract names its own author: a cited work's name, left out (as without the table)
    table = retriever.docs.author_table if retriever.docs is not None else None
    assert table is not None and authored_papers("Zanderling's paper", retriever.lexical.postings, table) == []


def test_an_index_written_before_the_table_answers_the_same_and_gets_it_at_the_next_index(settings: Settings):
    build_index(settings, embedder=HashEmbedder(64))
    author = next(p["authors"][-1] for p in _bundled() if p.get("authors"))
    question = f"What did {author} propose?"
    before = [h.chunk_id for h in open_retriever(settings, embedder=HashEmbedder(64)).search(question, 5)]
    docs_dir = layout_of(settings).docs_dir
    (docs_dir / TABLE).unlink()  # as an older version wrote it: no table, and a manifest without it
    write_manifest(docs_dir, json.loads((docs_dir / "ids.json").read_text())["fingerprint"])
    old = open_retriever(settings, embedder=HashEmbedder(64))
    assert old.docs is not None and old.docs.author_table is None
    assert [h.chunk_id for h in old.search(question, 5)] == before
    report = build_index(settings, embedder=HashEmbedder(64))
    assert report.embedded == 0 and (docs_dir / TABLE).exists()
    _table_matches_docstore(settings)
