"""Fuzzing questions: any text through `Assistant.ask` (extractive backend, bundled index) gives a well-formed Answer
or a QuestionError; nothing else. tests/test_corpus_fuzz.py fuzzes the corpus readers."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rag.answer.assistant import Assistant
from rag.answer.citations import REFUSAL
from rag.errors import QuestionError

# every code point, surrogates and controls included (undecodable argv bytes arrive as lone surrogates)
anything = st.characters(exclude_categories=())
words = st.sampled_from(["wells", "Alberta", "PaperBench", "continual", "learning", "how many", "which paper", "?",
                         "summarize", "authors", "code", "[1]", "[7]", "SYSTEM:", "ignore", "FID", "2025", "213,000"])
question = st.one_of(
    st.text(anything, max_size=200),
    st.lists(st.one_of(words, st.text(anything, max_size=8)), max_size=12).map(" ".join),
    st.lists(st.one_of(words, st.text(st.characters(categories=["Cs", "Cc", "Cf"]), min_size=1, max_size=3)),
             min_size=1, max_size=8).map(" ".join),  # real words among surrogates, controls and format characters
    st.text(st.sampled_from(" \t\n\r\x00\x0b\x1b\u200b\u202e\ufeff"), max_size=20),
    st.integers(3_990, 4_010).map(lambda n: "w" * n),  # around the length limit
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(question)
def test_any_question_gives_an_answer_or_a_question_error(assistant: Assistant, question: str) -> None:
    try:
        answer = assistant.ask(question)
    except QuestionError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert answer.text.strip()
    assert answer.abstained == (answer.text == REFUSAL)
    ids = [h.paper.id for h in answer.sources]
    for c in answer.citations:
        assert 1 <= c.n <= len(ids) and ids[c.n - 1] == c.paper_id
    assert answer.unsupported == ()  # extractive answers quote their sources
    assert answer.complete and answer.backend == "extractive"
