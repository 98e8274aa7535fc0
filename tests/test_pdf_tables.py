"""A PDF table's rows are read as rows under their column names (rag.corpus.pdf_tables), from layout text that
keeps each word's horizontal position, as pypdf and PDFium give it."""

from __future__ import annotations

from rag.corpus.pdf_tables import lines_text

VIT = [
    "Model        Layers   Hidden size D   MLP size   Heads   Params",
    "",
    "ViT-Base       12          768          3072       12      86M",
    "ViT-Large      24         1024          4096       16     307M",
    "ViT-Huge       32         1280          5120       16     632M",
    "Table 1: Details of Vision Transformer model variants.",
]


def test_a_header_with_single_spaces_names_each_rows_cells() -> None:
    out = lines_text(VIT)
    assert "ViT-Huge | Layers 32 | Hidden size D 1280 | MLP size 5120 | Heads 16 | Params 632M." in out
    assert out[0] == ""  # the header's words live on in the rows
    assert out[-1] == "Table 1: Details of Vision Transformer model variants."


def test_a_header_set_with_wide_gaps_is_a_row_of_its_own_and_still_names_the_columns() -> None:
    out = lines_text(["Method      Top-1      Params", "ResNet-50    76.1     25.6", "DenseNet     74.9      8.0"])
    assert out == ["", "ResNet-50 | Top-1 76.1 | Params 25.6.", "DenseNet | Top-1 74.9 | Params 8.0."]


def test_rows_without_a_header_line_above_keep_their_bare_cells() -> None:
    lines = ["We report the errors below.", "", "", "", "ResNet-50    76.1     25.6", "DenseNet     74.9      8.0"]
    out = lines_text(lines)
    assert out[0] == "We report the errors below." and out[-1] == "DenseNet | 74.9 | 8.0."


def test_a_prose_line_above_is_not_taken_for_a_header() -> None:
    lines = ["The results are given in the table below, for each model we trained.",
             "ResNet-50    76.1     25.6", "DenseNet     74.9      8.0"]  # fmt: skip
    out = lines_text(lines)
    assert out[0] == lines[0] and out[1] == "ResNet-50 | 76.1 | 25.6."


def test_justified_prose_with_wide_gaps_stays_prose() -> None:
    line = "the  model  is  trained  with  a  learning  rate  of  0.1  for  90  epochs"
    assert lines_text([line]) == ["the model is trained with a learning rate of 0.1 for 90 epochs"]


def test_a_row_of_another_width_is_not_named() -> None:
    lines = ["Model      Top-1      Params", "ResNet-50    76.1     25.6", "DenseNet     74.9      8.0",
             "Mean    75.5     16.8     3     4"]  # fmt: skip
    out = lines_text(lines)
    assert out[1] == "ResNet-50 | Top-1 76.1 | Params 25.6." and out[3] == "Mean | 75.5 | 16.8 | 3 | 4."


def test_cells_with_units_and_sizes_are_values_of_their_columns() -> None:
    lines = ["model          resolution   AP     inference latency",
             "SpineNet-49S    640×640     39.9        11.7ms",
             "SpineNet-49     640×640     42.8        15.3ms"]  # fmt: skip
    out = lines_text(lines)
    assert out[2] == "SpineNet-49 | resolution 640×640 | AP 42.8 | inference latency 15.3ms."


def test_a_table_of_contents_is_not_body_text() -> None:
    from rag.corpus.pdf_layout import sections

    page = ["Contents", "3.1 Flocking Model .................................... 13",
            "3.2 Influencing Agents .................................. 15", "",
            "1 Introduction", "Flocking is a coordinated collective behavior of agents."]  # fmt: skip
    body = sections([page], 0, 0)
    assert all("...." not in s.text and "Influencing Agents" not in s.text for s in body)
    assert body[-1].heading == "1 Introduction" and body[-1].text.startswith("Flocking is a coordinated")
