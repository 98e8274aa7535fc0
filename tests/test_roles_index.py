"""Sentence roles kept from the source to the answer: readers keep a structured abstract's labels, the indexer
records each window's roles with the whole abstract in view, the retriever fills Hit.roles, and the answer step
reads the whole abstract (and its roles) when the search found one window of it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.corpus import read_papers
from rag.corpus.abstract_sections import inline_sections
from rag.corpus.roles import BACKGROUND, CONCLUSION, METHOD, OBJECTIVE, RESULT, decode_roles, encode_roles
from rag.factory import build_index, open_retriever
from rag.index.chunking import chunk_paper, chunk_roles
from rag.retrieve.whole_abstracts import whole_abstract
from rag.settings import Settings
from rag.types import AbstractSection, Paper

SECTIONS = [
    {"label": "BACKGROUND", "text": "Night-time bleeding after tonsillectomy worries parents. It is rarely studied."},
    {"label": "OBJECTIVE", "text": "We asked whether bleeding at night is more common than bleeding by day."},
    {"label": "METHODS", "text": "We reviewed 1,200 charts of children operated on between 2001 and 2010."},
    {"label": "RESULTS", "text": "Bleeding occurred at night in 31 children and by day in 12 children."},
    {"label": "CONCLUSIONS", "text": "Bleeding after tonsillectomy happens mostly at night. Parents should be told."},
]
STRUCTURED = {"id": "pmid-1", "title": "Bleeding after tonsillectomy",
              "abstract": " ".join(s["text"] for s in SECTIONS), "sections": SECTIONS}  # fmt: skip
PLAIN = {"id": "plain-1", "title": "Gradient noise in small networks",
         "abstract": "Small networks are popular. We study gradient noise in them. We found that noise grows with "
         "depth. In conclusion, shallow networks are calmer."}  # fmt: skip


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    path = tmp_path / "papers.jsonl"
    path.write_text("\n".join(json.dumps(p) for p in (STRUCTURED, PLAIN)) + "\n")
    return path


def test_jsonl_sections_and_inline_labels_are_kept_by_the_readers(corpus: Path, tmp_path: Path):
    papers = {p.id: p for p in read_papers([corpus])}
    assert [s.label for s in papers["pmid-1"].abstract_sections] == [s["label"] for s in SECTIONS]
    assert papers["plain-1"].abstract_sections == ()
    ris = tmp_path / "pubmed.ris"
    abstract = "BACKGROUND: Bruxism is common. METHODS: We recorded 40 sleepers. RESULTS: Grinding fell by half. "
    ris.write_text(f"TY  - JOUR\nTI  - Sleep and teeth\nAB  - {abstract}CONCLUSIONS: Splints help.\nER  - \n")
    (paper,) = read_papers([ris])
    assert [(s.label, s.text) for s in paper.abstract_sections] == [
        ("BACKGROUND", "Bruxism is common."), ("METHODS", "We recorded 40 sleepers."),
        ("RESULTS", "Grinding fell by half."), ("CONCLUSIONS", "Splints help.")]  # fmt: skip


def test_inline_labels_need_two_known_labels_starting_the_abstract():
    assert inline_sections("We study X. Note: this is fine. Results: good.") == ()  # not at the start
    assert inline_sections("Aim 1: model the data. Aim 2: test it.") == ()  # "Aim 1" is no part of an abstract
    assert len(inline_sections("Objective: To see. Materials and Methods: We looked. Results: All good.")) == 3


def test_every_window_gets_the_roles_of_the_whole_abstract():
    paper = Paper("p", "T", STRUCTURED["abstract"],
                  abstract_sections=tuple(AbstractSection(s["label"], s["text"]) for s in SECTIONS))  # fmt: skip
    chunks = chunk_paper(paper, size=30, overlap=0)
    assert len(chunks) >= 3
    whole, per_chunk = chunk_roles(paper, chunks)
    assert whole == encode_roles([BACKGROUND, BACKGROUND, OBJECTIVE, METHOD, RESULT, CONCLUSION, CONCLUSION])
    assert "".join(per_chunk) == whole  # no overlap: the windows' roles concatenate to the abstract's
    # without labels, position counts in the whole abstract: the last window does not open with "background"
    plain = Paper("p", "T", STRUCTURED["abstract"])
    _, unlabelled = chunk_roles(plain, chunk_paper(plain, size=30, overlap=0))
    assert unlabelled[0][0] == "b" and all(code[0] != "b" for code in unlabelled[1:])


def test_roles_that_do_not_fit_the_text_are_unknown():
    assert decode_roles("bmrc", 4) == (BACKGROUND, METHOD, RESULT, CONCLUSION)
    assert decode_roles("bmr", 4) == () and decode_roles("bmxc", 4) == () and decode_roles(None, 0) == ()


def test_hits_carry_roles_and_are_widened_to_the_whole_abstract(corpus: Path, settings: Settings, minilm: object):
    s = settings.replace(chunk_tokens=30, chunk_overlap=0)
    build_index(s, [corpus], embedder=minilm)  # type: ignore[arg-type]
    retriever = open_retriever(s, embedder=minilm)  # type: ignore[arg-type]
    hits = retriever.search("Is bleeding after tonsillectomy more frequent at night?", 2, per_paper=3)
    windows = [h for h in hits if h.paper.id == "pmid-1"]
    assert windows and all(h.roles and len(h.roles) == len(h.text.split(". ")) for h in windows)
    later = next(h for h in windows if not h.chunk_id.endswith(":0"))
    widened, vectors = whole_abstract(later, retriever)
    assert widened.text == STRUCTURED["abstract"] and widened.paper.abstract == STRUCTURED["abstract"]
    assert widened.roles[-2:] == (CONCLUSION, CONCLUSION) and widened.roles[2] == OBJECTIVE
    assert len(vectors) == len(widened.roles)  # every window's stored sentence vectors are reused
