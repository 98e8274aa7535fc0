"""A citation key holding an invisible character (a zero-width space, a bidi override or isolate, any Unicode
format character, category Cf) looks like another key: "icml2025\\u200b" reads as "icml2025". The report says that
the key holds one and names it, in the text, JSON and Markdown reports (issue 37 item 8)."""

from __future__ import annotations

import sys
import unicodedata

import pytest

from rag.check.draft import parse_draft
from rag.check.render import markdown_report, text_report
from rag.check.report import CheckReport, Cite, PaperRef, SentenceResult
from rag.check.run import _unknown_reason
from rag.safe_text import FORMAT_CHARS, invisible_chars, show_invisible
from rag.types import SUPPORTED
from rag.verify.labels import NOT_IN_LIBRARY

ZWSP = "icml2025\u200b"
NOTE = "key 'icml2025\\u200b' holds an invisible character (U+200B ZERO WIDTH SPACE)"


def _report(*keys: str) -> CheckReport:
    cites = tuple(Cite(k, None, None) for k in keys)
    shown = "; ".join(keys)
    s = SentenceResult(1, 3, f"Wells leak methane into the air [{shown}].", cites, NOT_IN_LIBRARY,
                       reason=_unknown_reason(keys, {}))  # fmt: skip
    return CheckReport("draft.tex", "latex", (s,), 6, "papers")


@pytest.mark.parametrize(("text", "name"), [
    ("Wells leak methane into the air \\cite{icml2025\u200b}.", "d.tex"),
    ("Wells leak methane into the air [@icml2025\u200b].", "d.md"),
    ("Wells leak methane into the air [see @icml2025\u200b, p. 3].", "d.md"),
    ("Wells leak methane into the air, says @icml2025\u200b here.", "d.md"),
])  # fmt: skip
def test_a_key_keeps_its_invisible_character_in_latex_and_markdown(text: str, name: str):
    (sentence,) = parse_draft(text, name).sentences
    assert sentence.keys == (ZWSP,)


def test_an_invisible_character_inside_a_markdown_key_does_not_cut_it():
    """Pandoc ends a key at a character it does not allow: `[@icml\\u200b2025]` was the key "icml"."""
    (sentence,) = parse_draft("Wells leak methane into the air [@icml\u200b2025] and more.", "d.md").sentences
    assert sentence.keys == ("icml\u200b2025",)
    (sentence,) = parse_draft("Wells leak methane into the air, as @icml\u202e2025 says.", "d.md").sentences
    assert sentence.keys == ("icml\u202e2025",)


def test_the_text_report_names_the_invisible_character_of_a_key_not_in_the_library():
    text = text_report(_report(ZWSP))
    assert f"cites icml2025\\u200b: not in the library; {NOTE}" in text
    assert f"why: icml2025\\u200b is not in the library; {NOTE}" in text
    assert "Not in the library: icml2025\\u200b (sentence 1)." in text
    assert f"warning: {NOTE}" in text
    assert "icml2025\u200b" not in text.replace("[icml2025\u200b]", "")  # the key is never shown bare


def test_the_json_record_names_the_invisible_character_of_a_key():
    record = _report(ZWSP, "plain2020").to_record()
    (s,) = record["sentences"]
    assert [c["invisible"] for c in s["cites"]] == [["U+200B ZERO WIDTH SPACE"], []]
    assert record["summary"]["unknown_keys"] == [
        {"key": ZWSP, "sentences": [1], "invisible": ["U+200B ZERO WIDTH SPACE"]},
        {"key": "plain2020", "sentences": [1], "invisible": []},
    ]
    assert s["reason"] == f"icml2025\\u200b, plain2020 are not in the library; {NOTE}"


def test_the_markdown_report_names_the_invisible_character_of_a_key():
    md = markdown_report(_report(ZWSP))
    assert "Not in the library: `icml2025\\u200b`." in md
    assert "> warning: key 'icml2025\\\\u200b' holds an invisible character (U+200B ZERO WIDTH SPACE)" in md
    assert "    - cites `icml2025\\u200b`: not in the library; key 'icml2025\\\\u200b' holds an invisible" in md


def test_bidi_overrides_and_isolates_are_each_named():
    key = "smith\u202e2019\u2066x\u202e"
    assert invisible_chars(key) == ("U+202E RIGHT-TO-LEFT OVERRIDE", "U+2066 LEFT-TO-RIGHT ISOLATE")
    assert show_invisible(key) == "smith\\u202e2019\\u2066x\\u202e"
    text = text_report(_report(key))
    assert ("warning: key 'smith\\u202e2019\\u2066x\\u202e' holds invisible characters (U+202E RIGHT-TO-LEFT "
            "OVERRIDE, U+2066 LEFT-TO-RIGHT ISOLATE)") in text  # fmt: skip
    assert show_invisible("tag\U000e0041") == "tag\\U000e0041"  # beyond the BMP


def test_a_key_found_in_the_library_with_an_invisible_character_is_still_named():
    """A key can still resolve (a BibTeX key folded to a valid id): LaTeX would not find it, so it is said."""
    paper = PaperRef("icml2025", "A Paper", None)
    s = SentenceResult(1, 1, f"Wells leak methane [{ZWSP}].", (Cite(ZWSP, paper, "bibtex key"),), SUPPORTED)
    report = CheckReport("d.tex", "latex", (s,), 6, "papers")
    assert f"cites icml2025\\u200b: A Paper (icml2025), by bibtex key; {NOTE}" in text_report(report)
    assert f"warning: {NOTE}" in text_report(report)
    assert report.to_record()["sentences"][0]["cites"][0]["invisible"] == ["U+200B ZERO WIDTH SPACE"]


def test_plain_keys_get_no_warning():
    text = text_report(_report("plain2020"))
    assert "invisible" not in text and "warning" not in text
    assert "cites plain2020: not in the library\n" in text


def test_the_format_characters_accepted_in_keys_are_every_format_character():
    """FORMAT_CHARS (a regex class, fast to build) holds exactly Unicode category Cf of this Python."""
    import re

    every = {chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"}
    matched = {c for c in every if re.fullmatch(f"[{FORMAT_CHARS}]", c)}
    assert matched == every
    assert re.fullmatch(f"[{FORMAT_CHARS}]", "a") is None and re.fullmatch(f"[{FORMAT_CHARS}]", " ") is None
