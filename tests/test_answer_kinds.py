"""New question kinds over the bundled corpus: lists name every paper that addresses them, comparisons cite each
paper compared, a question about one paper refuses what that paper never mentions, "how many X" needs a count of X,
and links are never quoted as an answer."""

from __future__ import annotations

from rag.answer.assistant import Assistant
from rag.answer.citations import REFUSAL
from rag.answer.question import analyse


def _cited(answer: object) -> set[str]:
    return {c.paper_id for c in answer.citations}  # type: ignore[attr-defined]


def test_a_list_names_each_paper_on_its_own_cited_line(assistant: Assistant):
    answer = assistant.ask("Which papers study continual learning?")
    lines = [line for line in answer.text.splitlines() if line.startswith("- ")]
    assert len(lines) >= 3 and all(line.rstrip().endswith("]") for line in lines)
    assert {"icml2025-01", "icml2025-18", "icml2025-13"} <= _cited(answer)
    considered = len({h.paper.id for h in answer.sources})
    assert answer.text.splitlines()[0] == f"{len(lines)} of the {considered} papers considered address the question:"


def test_a_comparison_cites_both_papers_even_when_one_is_described_not_named(assistant: Assistant):
    named = assistant.ask("How do SEFE and DPCR differ in fighting forgetting?")
    assert {"icml2025-13", "icml2025-16"} <= _cited(named)
    described = assistant.ask("How do PreSelect and the contamination paper treat pretraining data differently?")
    assert {"icml2025-15", "icml2025-05"} <= _cited(described)
    assert analyse("Contrast SimpleMix with PreSelect.").sides == ("SimpleMix", "PreSelect")


def test_what_the_named_paper_never_mentions_is_refused(assistant: Assistant):
    answer = assistant.ask("What accuracy does AffectGPT reach on MER-UniBench?")
    assert answer.abstained and answer.text == REFUSAL
    assert any("does not mention any 'accuracy'" in note for note in answer.notes)
    assert not assistant.ask("What does RegLoRA apply regularization to?").abstained


def test_how_many_needs_a_count_of_the_thing_asked(assistant: Assistant):
    assert "213,000" in assistant.ask("How many wells are in the Alberta dataset?").text
    assert assistant.ask("How many communities does PieClam find on the Cora citation graph?").abstained


def test_links_are_not_quoted_as_answers(assistant: Assistant):
    answer = assistant.ask("Can picking better training text save computing power?")
    assert not answer.abstained and "http" not in answer.text
