"""Rank fusion keeps exact-name matches (issue 14 item 14): over near-duplicate papers that differ only in their
unique names ("Zorp123") and numbers, a question naming one of them finds that paper first and is answered from
it, even though dense search cannot tell the near-duplicates apart and reciprocal rank fusion let papers that both
retrievers rank in the middle outscore BM25's first place."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag.answer.assistant import Assistant
from rag.factory import build_index, make_embedder, open_assistant
from rag.index.lexical import LexicalIndex
from rag.settings import Settings, load_settings
from tests.reliability_helpers import write_jsonl

NAMES = ["Quix481", "Blen902", "Trax377", "Vemo615", "Krul208", "Plix554", "Dorv731", "Muzz119", "Yelt846", "Fraq263",
         "Gonx390", "Hibe457", "Jorv528", "Lume674", "Nerk785", "Ospa813", "Rivt932", "Sulk147", "Wexa259", "Zent364",
         "Abro512", "Cilk640", "Egra771", "Ivor886", "Kopa905", "Moxi132", "Orla243", "Pruv368", "Tesk479", "Ulma590"]
# papers worded unlike the questions: dense search ranks them below the near-duplicates that are
TARGETS = {
    "Zorp123": ("Zorp123: Ice Fracture Maps", "Zorp123 provides 4,321 labelled radar scenes of ice fractures on "
                "Greenland outlet glaciers, with segmentation baselines."),
    "Hexa808": ("Hexa808", "Hexa808 collects 7,654 hand-traced fracture outlines from Antarctic shelf imagery."),
    "Quolm77": ("Quolm77 fracture atlas", "An atlas, Quolm77, of 2,468 fissure polygons drawn over alpine ice "
                "fields by volunteers."),
}  # fmt: skip


def _papers() -> list[dict[str, object]]:
    papers: list[dict[str, object]] = [
        {
            "id": f"dup-{i:02d}",
            "title": f"The {name} Glacier Crevasse Benchmark of Annotated Images",
            "year": 2024,
            "abstract": (
                f"We present the {name} glacier crevasse benchmark with {10_000 + 1_111 * i:,} annotated images, and "
                "strong baselines for crevasse detection in the glacier crevasse benchmark images."
            ),
        }
        for i, name in enumerate(NAMES)
    ]
    for name, (title, abstract) in TARGETS.items():
        papers.append({"id": f"target-{name}", "title": title, "year": 2023, "abstract": abstract})
    return papers


@pytest.fixture(scope="module")
def near_duplicates(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Settings, Assistant]]:
    tmp = tmp_path_factory.mktemp("exact-names")
    settings = load_settings(home=tmp / "home", env={}).replace(llm="extractive")
    embedder = make_embedder(settings)
    build_index(settings, [write_jsonl(tmp / "dup.jsonl", _papers())], embedder=embedder)
    assistant = open_assistant(settings, embedder=embedder)
    yield settings, assistant
    assistant.close()


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_a_question_naming_a_unique_identifier_finds_that_paper_first(near_duplicates, name: str) -> None:
    _, assistant = near_duplicates
    question = f"How many annotated images are in the {name} glacier crevasse benchmark?"
    assert assistant.retriever.search(question, 5, mode="lexical")[0].paper.id == f"target-{name}"  # BM25 knows
    dense = [h.paper.id for h in assistant.retriever.search(question, 10, mode="dense")]
    assert f"target-{name}" not in dense[:5]  # dense search does not: the near-duplicates match the wording
    hits = assistant.retriever.search(question, 5)
    assert hits[0].paper.id == f"target-{name}", [h.paper.id for h in hits]  # and the fused list keeps it


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_the_answer_comes_from_the_named_paper(near_duplicates, name: str) -> None:
    _, assistant = near_duplicates
    answer = assistant.ask(f"How many annotated images are in the {name} glacier crevasse benchmark?")
    assert not answer.abstained, answer.text
    assert answer.citations and answer.citations[0].paper_id == f"target-{name}", answer.text
    assert re.search(r"\d,\d{3}", answer.text) and name in answer.text


def test_a_near_duplicate_named_in_the_question_is_found_too(near_duplicates) -> None:
    _, assistant = near_duplicates
    for i in (0, 13, 29):
        hits = assistant.retriever.search(f"How many annotated images are in the {NAMES[i]} benchmark?", 5)
        assert hits[0].paper.id == f"dup-{i:02d}"


def test_a_common_word_does_not_pin_anything(near_duplicates) -> None:
    settings, _ = near_duplicates
    lexical = LexicalIndex.load(Path(settings.index_dir) / f"bm25-{settings.collection}")
    assert lexical is not None
    assert lexical.exact_match("glacier crevasse benchmark images") is None  # every paper has these words
    assert lexical.exact_match("fractures on Greenland glaciers") is None  # one paper's words, but not a name
    assert lexical.exact_match("the Zorp123 benchmark") == "target-Zorp123:0"
    assert lexical.exact_match("the Quix481 benchmark") == "dup-00:0"
    assert lexical.exact_match("an unknown Zzyzx999 benchmark") is None
