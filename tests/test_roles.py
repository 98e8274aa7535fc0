"""Sentence roles (rag.corpus.roles): from a structured abstract's labels when it has them, else cues and position."""

from __future__ import annotations

import pytest

from rag.corpus.roles import BACKGROUND, CONCLUSION, METHOD, OBJECTIVE, RESULT, role_of_label, sentence_roles
from rag.types import AbstractSection


@pytest.mark.parametrize(
    ("label", "role"),
    [
        ("CONCLUSIONS", CONCLUSION),
        ("MATERIALS AND METHODS", METHOD),
        ("RESULTS", RESULT),
        ("BACKGROUND AND AIMS", OBJECTIVE),
        ("Introduction", BACKGROUND),
        ("MAIN OUTCOME MEASURES", METHOD),
        ("PRINCIPAL FINDINGS", RESULT),
        ("Acknowledgements", None),
    ],
)
def test_section_labels_map_to_roles(label: str, role: str | None):
    assert role_of_label(label) == role


def test_labels_decide_where_the_source_has_them():
    sections = (
        AbstractSection("BACKGROUND", "Helicopters are loud. Intubation is hard."),
        AbstractSection("RESULTS", "It took twice as long."),
        AbstractSection("CONCLUSION", "Intubate before the flight."),
    )
    sentences = ["Helicopters are loud.", "Intubation is hard.", "It took twice as long.",
                 "Intubate before the flight."]  # fmt: skip
    assert sentence_roles(sentences, sections) == [BACKGROUND, BACKGROUND, RESULT, CONCLUSION]


def test_inline_labels_cues_and_position_without_labels():
    roles = sentence_roles([
        "Deep networks forget.",
        "The aim of this study was to measure forgetting.",
        "RESULTS: Forgetting fell by 12%.",
        "In conclusion, replay helps.",
    ])  # fmt: skip
    assert roles == [BACKGROUND, OBJECTIVE, RESULT, CONCLUSION]
