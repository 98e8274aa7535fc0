"""The "Check a draft" tab's HTML and input, without a browser (tests/test_ui_browser_draft.py has the page)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.check.report import CheckReport, Cite, PaperRef, SentenceResult
from rag.settings import Settings
from ui.draft_view import DraftChecks, read_input, render_empty, render_report

EVIL = PaperRef("evil-1", '<img src=x onerror="alert(1)">Zebra', "javascript:alert(2)")
GOOD = PaperRef("seth2025alberta", "Alberta Wells Dataset", "https://arxiv.org/abs/2410.09032")


def _report() -> CheckReport:
    sentences = (
        SentenceResult(1, 3, "Wells <script>alert(3)</script> leak [seth2025alberta].",
                       (Cite("seth2025alberta", GOOD, "bibtex key"),), "supported", evidence="Wells leak.",
                       evidence_paper=GOOD),
        SentenceResult(2, 4, "Zebras [x].", (Cite("x", EVIL, "id"),), "wrong paper", "another paper says it",
                       evidence="Zebra stripes.", evidence_paper=GOOD, supported_by=(GOOD,)),
        SentenceResult(3, 5, "Unknown [nobody].", (Cite("nobody", None, None),), "not in library",
                       "nobody is not in the library"),
    )  # fmt: skip
    return CheckReport("draft.md", "markdown", sentences, 7, "papers")


def test_every_label_is_an_icon_and_a_word_and_all_text_is_escaped():
    html = render_report(_report())
    assert "✓ supported" in html and "⇄ wrong paper" in html and "∅ not in library" in html
    assert "<script" not in html and "<img" not in html and "javascript:" not in html
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;Zebra" in html
    assert 'href="https://arxiv.org/abs/2410.09032" target="_blank" rel="noopener noreferrer"' in html
    assert "2 sentences flagged</b> of 3" in html and "Not in the library: nobody." in html
    assert "Said by: " in html
    assert all(f"dc-badge dc-{s}" in render_empty() for s in ("supported", "not-found", "contradicted",
                                                            "wrong-paper", "uncited", "not-in-library"))


def test_input_pasted_or_uploaded_and_its_errors(tmp_path: Path):
    assert read_input("  Some draft text.  ", None) == (None, "Some draft text.")
    up = tmp_path / "paper.tex"
    up.write_text("\\cite{a} text", encoding="utf-8")
    assert read_input("ignored", str(up)) == ("paper.tex", "\\cite{a} text")  # the upload wins
    bad = tmp_path / "bad.md"
    bad.write_bytes(b"caf\xe9")
    for text, path, said in (("", None, "Paste your draft"), (None, str(bad), "not UTF-8"),
                             (None, str(tmp_path / "gone.md"), "could not be read")):  # fmt: skip
        with pytest.raises(ValueError, match=said):
            read_input(text, path)


def test_no_index_and_no_sentence_are_said_in_the_panel():
    class NoIndex:
        missing = "there is no collection 'papers'"

        def current(self) -> None:
            return None

    checks = DraftChecks(NoIndex(), settings=None)  # type: ignore[arg-type]
    assert "no index to check against: there is no collection" in checks.check("A draft sentence with words.", None)
    assert "no sentence to check" in checks.check("# Only a heading", None)
    assert "Paste your draft" in checks.check("   ", None)


def test_a_bug_while_checking_is_a_plain_sentence_not_a_traceback(capsys: pytest.CaptureFixture[str]):
    from ui.draft_view import GENERIC_ERROR

    class Broken:
        def check(self, *args: object, **kwargs: object) -> None:
            raise KeyError("internal detail")

    checks = DraftChecks(None, settings=type("S", (), {"collection": "papers"})())  # type: ignore[arg-type]
    checks.checker = lambda: Broken()  # type: ignore[method-assign]
    html = checks.check("A draft sentence with several words in it.", None)
    assert GENERIC_ERROR in html and "internal detail" not in html
    assert "internal detail" in capsys.readouterr().err  # the server log has it


# -- "Also ask the model": the second opinion of `rag check --verify llm`, from the tab -----------------------------
TWO = ("PaperBench contains 8,316 individually gradable tasks [@icml2025-03].\n\n"
       "Our curated dataset comprises over 213,000 wells from Alberta [@icml2025-00].\n")  # fmt: skip


class _Live:
    """ui.live_index.LiveIndex as DraftChecks uses it: the assistant over the index now, and its chats."""

    missing = None

    def __init__(self, assistant: object) -> None:
        self.assistant, self.chats = assistant, assistant.chats  # type: ignore[attr-defined]

    def current(self) -> object:
        return self.assistant


def _labels(html: str) -> list[str]:
    import re

    return re.findall(r'data-label="([^"]+)"', html)


def test_also_asking_the_model_runs_the_clis_second_opinion_and_shows_its_judgement(bundled_settings: Settings):
    import json

    from rag.adapters.fakes import ScriptedChatModel
    from rag.factory import open_assistant

    fake = ScriptedChatModel([json.dumps({"claims": [{"id": 1, "supported": True}, {"id": 2, "supported": False}]})])
    assistant = open_assistant(bundled_settings.replace(llm="extractive"), chat_model=fake)
    try:
        checks = DraftChecks(_Live(assistant), bundled_settings)
        offline = checks.check(TWO, None)
        assert _labels(offline) == ["supported", "supported"] and fake.calls == []  # not ticked: not asked
        assert "LLM check" not in offline
        html = checks.check(TWO, None, True, None)
    finally:
        assistant.close()
    assert len(fake.calls) == 1  # one batch, as `rag check --verify llm` sends it
    prompt = fake.calls[0][0]["content"]
    assert "8,316 individually gradable tasks" in prompt and "(cites: [1])" in prompt and "(cites: [2])" in prompt
    assert _labels(html) == ["supported", "not found"]
    assert "LLM check: supported" in html and "LLM check: unsupported" in html
    assert "Why: the LLM check found it unsupported" in html
    assert "offline + llm" in html  # the summary says which checks ran


def test_asking_the_model_without_an_endpoint_says_so(assistant: object, bundled_settings: Settings):
    from ui.draft_view import model_option

    checks = DraftChecks(_Live(assistant), bundled_settings)
    html = checks.check(TWO, None, True, None)
    assert _labels(html) == ["supported", "supported"]  # the offline check still runs ...
    assert "The model was not asked: no OpenAI-compatible endpoint is configured" in html  # ... and says why
    assert "offline)" in html and "llm" not in html.split("</p>")[0]
    shown, info = model_option(False)
    assert not shown and "no OpenAI-compatible endpoint is configured" in info and "OPENAI_BASE_URL" in info
    shown, info = model_option(True)
    assert shown and "only adds flags" in info


def test_a_pasted_or_uploaded_latex_draft_says_its_inputs_are_not_read(
    assistant: object, bundled_settings: Settings, tmp_path: Path
):
    """There is no folder behind a pasted or uploaded draft: its \\input's cannot be followed, and the panel says so
    in one line instead of silently checking less."""
    checks = DraftChecks(_Live(assistant), bundled_settings)
    tex = ("\\section{Introduction}\n\\input{sections/intro}\n"
           "PaperBench contains 8,316 individually gradable tasks \\cite{icml2025-03}.\n")  # fmt: skip
    said = ("\\input{sections/intro}: included files are not read from a pasted or uploaded draft; run `rag check "
            "main.tex` on the folder")  # fmt: skip
    html = checks.check(tex, None)
    assert _labels(html) == ["supported"] and said in html
    upload = tmp_path / "main.tex"
    upload.write_text(tex, encoding="utf-8")
    assert said in checks.check(None, str(upload))
    only_inputs = "\\documentclass{article}\n\\begin{document}\n\\input{a}\n\\include{b}\n\\end{document}\n"
    html = checks.check(only_inputs, None)
    assert "There is no sentence to check" in html and "\\input{a} (and 1 more): included files are not read" in html
    assert "included files" not in checks.check(TWO, None)
