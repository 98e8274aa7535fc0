from pathlib import Path

import pytest

from rag.answer.citations import REFUSAL, answer_sentences, clean_markers, parse_markers, strip_markers
from rag.errors import ConfigError
from rag.prompts import load_prompt, prompt_id

PROMPTS = Path(__file__).resolve().parent.parent / "prompts"


@pytest.mark.parametrize("path", sorted(PROMPTS.glob("*.md")), ids=lambda p: p.name)
def test_every_prompt_renders_with_exactly_its_declared_variables(path: Path):
    prompt = load_prompt(PROMPTS, path.stem)
    values = {name: f"<<{name}>>" for name in prompt.variables}
    text = prompt.render(**values)
    for name in prompt.variables:
        assert f"<<{name}>>" in text
    assert "$" not in text.replace("$$", "")
    if prompt.variables:
        with pytest.raises(ConfigError, match="missing"):
            prompt.render(**dict(list(values.items())[1:]))
    with pytest.raises(ConfigError, match="undeclared"):
        prompt.render(**values, surprise="x")


def test_prompt_with_unused_declared_variable_is_refused(tmp_path: Path):
    (tmp_path / "p.md").write_text("<!-- variables: a, b -->\nonly $a here\n")
    with pytest.raises(ConfigError, match="declares"):
        load_prompt(tmp_path, "p")


def test_answer_prompts_share_the_refusal_sentence_and_ids_carry_a_hash():
    system = load_prompt(PROMPTS, "answer_system")
    assert REFUSAL in system.render(refusal=REFUSAL)
    pid = prompt_id(system, load_prompt(PROMPTS, "answer_user"))
    assert pid.startswith("answer_system+answer_user@") and len(pid.split("@")[1]) == 12


def test_parse_markers_handles_lists_ranges_and_model_habits():
    assert parse_markers("A [1]. B [2, 3]. C [1][4]. D [2-4]. E [Source 5].") == [1, 2, 3, 4, 5]


def test_clean_markers_removes_unknown_numbers_and_counts_them():
    text, removed = clean_markers("Wells [1]. Forgetting [2, 7]. Made up [9].", {1, 2, 3})
    assert text == "Wells [1]. Forgetting [2]. Made up."
    assert removed == 2


def test_answer_sentences_moves_trailing_markers_and_skips_headings():
    text = "**Continual learning**\n- Paper A: does X [1]\nIt has 213,000 wells. [2] Another claim [3]."
    assert answer_sentences(text) == ["- Paper A: does X [1]", "It has 213,000 wells [2].", "Another claim [3]."]
    assert strip_markers("It has 213,000 wells [2].") == "It has 213,000 wells."


def test_titles_with_question_marks_are_not_split():
    title = "How Contaminated Is Your Benchmark? Measuring Dataset Leakage"
    text = f"The code for {title} is at https://github.com/x/y [1]. Another sentence [2]."
    assert answer_sentences(text, keep_whole=[title]) == [
        f"The code for {title} is at https://github.com/x/y [1].",
        "Another sentence [2].",
    ]
