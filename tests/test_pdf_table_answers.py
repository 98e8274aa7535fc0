"""Issue 35, a table value: "How many parameters does ViT-Huge have?" is answered from the table row that names its
cells by their columns (rag.corpus.pdf_tables: "ViT-Huge | Layers 32 | ... | Params 632M."). Found on bench/pdf_dev2
(vit_iclr2021, page 5): the question was refused as "does not mention any 'parameters'", because the table writes
"Params" and only the one passage the question named was read."""

from __future__ import annotations

import pytest

from rag.answer.counting import counts
from rag.answer.paper_focus import paper_gap
from rag.answer.question import analyse
from rag.answer.term_match import Haystack
from rag.types import Hit, Paper

ROW = "ViT-Huge | Layers 32 | Hidden size D 1280 | MLP size 5120 | Heads 16 | Params 632M."
PAPER = Paper("vit", "An image is worth 16x16 words", "Vision Transformer (ViT) attains excellent results.")


@pytest.mark.parametrize(("short", "word"), [("Params", "parameters"), ("Hyperparams", "hyperparameters"),
                                             ("Optim", "optimizer")])  # fmt: skip
def test_a_column_name_cut_short_stands_for_the_word(short: str, word: str) -> None:
    assert Haystack.of(f"x | {short} 3.").has(word)  # a column name; in prose a cut word is not taken (below)


@pytest.mark.parametrize(("text", "word"), [("the form of it", "formula"), ("one cat", "category"),
                                            ("Params 3", "parades"), ("x | Temp 3", "temperature"),
                                            ("we tuned the params", "parameters")])  # fmt: skip
def test_a_short_word_a_cut_too_short_or_another_word_is_not_taken_for_a_cut(text: str, word: str) -> None:
    assert not Haystack.of(text).has(word)


def test_a_row_counts_what_its_column_names() -> None:
    assert counts(ROW, "parameters") and counts(ROW, "layers") and counts(ROW, "heads")
    assert not counts(ROW, "experts") and not counts("ViT-Huge | 32 | 632M.", "parameters")


def test_the_named_papers_every_retrieved_passage_is_read_before_it_is_said_not_to_mention_the_asked_thing() -> None:
    q = analyse("How many parameters does the largest ViT variant, ViT-Huge, have?")
    prose = Hit(PAPER, "vit:3", "ViT-Huge dominates ResNets on the compute trade-off.", 1.0, 0.6, page=8)
    table = Hit(PAPER, "vit:1", ROW, 0.9, 0.55, page=5)
    assert paper_gap(q, [prose, table], [1]) is None
    assert paper_gap(q, [prose], [1]) is not None  # the prose alone never states any parameters
