"""Issue 21 item 5 in the UI: the "Check a draft" tab, in headless Chromium, over a BibTeX-indexed library (six
bundled papers under their BibTeX keys, tests/data/check/library.bib) plus one hostile paper.

A pasted Markdown draft and an uploaded LaTeX file are checked; each sentence shows its label as an icon and a
word (dark text on a light badge, WCAG AA), the evidence and its paper's link; the tab works from the keyboard;
nothing from the draft or a paper runs or loads; the chat keeps its size. "Also ask the model" sends the sentences
the offline check passed to the app's OpenAI-compatible endpoint, the scripted server of tests/fault_server.py
(the `scripted_llm` the answer path's browser tests use), and shows its judgement per sentence.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rag.factory import build_index
from rag.settings import load_settings
from tests.fault_server import FaultServer
from tests.ui_browser import ARTIFACTS, DESKTOP, PHONE, TIMEOUT_MS, Page, open_page
from tests.ui_server import UIServer, start_ui

pytestmark = [pytest.mark.browser, pytest.mark.slow]
DATA = Path(__file__).parent / "data" / "check"
HOSTILE = {"id": "evil-draft", "title": '<img src=x onerror="window.__xss=1">Zebra stripes and giraffes',
           "abstract": "Zebra stripes reduce giraffe decoherence by 40 percent in our experiments.",
           "url": "javascript:window.__xss=2", "authors": ["<b>Mallory</b>"]}  # fmt: skip
DRAFT = ("# Notes\n\nOur curated dataset comprises over 213,000 wells from Alberta [@seth2025alberta].\n"
         "The best-performing tested agent achieves an average replication score of 21.0% [@seth2025alberta].\n"
         "Integrating auxiliary classifiers yields an average 10% relative gain [@smith2019missing].\n"
         "Zebra stripes reduce giraffe decoherence by 40 percent <img src=y onerror=\"window.__xss=3\"> "
         "[see it](javascript:window.__xss=4) [@evil-draft].\n")  # fmt: skip


@pytest.fixture(scope="module")
def draft_ui(browser: Any, scripted_llm: FaultServer, tmp_path_factory: pytest.TempPathFactory
             ) -> Iterator[UIServer]:  # fmt: skip
    tmp = tmp_path_factory.mktemp("ui-draft")
    hostile = tmp / "hostile.jsonl"
    hostile.write_text(json.dumps(HOSTILE) + "\n", encoding="utf-8")
    build_index(load_settings(home=tmp / "home", env={}), [DATA / "library.bib", hostile])
    env = {"RAG_LLM": "extractive", "OPENAI_BASE_URL": scripted_llm.base_url, "RAG_MODEL": "scripted",
           "RAG_MAX_RETRIES": "1"}  # fmt: skip
    server = start_ui(tmp / "home", ARTIFACTS / "ui-draft.log", env=env)
    yield server
    server.stop()


def _open_tab(p: Page) -> None:
    from playwright.sync_api import expect

    p.page.get_by_role("tab", name="Check a draft").click()
    expect(p.page.locator("#draft-text textarea")).to_be_visible(timeout=TIMEOUT_MS)


def _results(p: Page, count: int) -> Any:
    from playwright.sync_api import expect

    items = p.page.locator("#draft-results li.dc-item")
    expect(items).to_have_count(count, timeout=TIMEOUT_MS)
    return items


def _contrast(p: Page) -> list[float]:
    """The contrast ratio of every label badge's text on its background."""
    return p.page.evaluate("""() => {
      const lum = c => { const v = c.match(/[\\d.]+/g).slice(0, 3).map(x => { x = x / 255;
        return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
        return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; };
      return [...document.querySelectorAll('#draft-results .dc-badge')].map(b => {
        const s = getComputedStyle(b), a = lum(s.color), z = lum(s.backgroundColor);
        return (Math.max(a, z) + 0.05) / (Math.min(a, z) + 0.05); });
    }""")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1440x900", "390x844"])
def test_a_pasted_markdown_draft_is_checked_sentence_by_sentence(browser: Any, draft_ui: UIServer,
                                                                 viewport: dict[str, int]) -> None:  # fmt: skip
    from playwright.sync_api import expect

    mobile = {"is_mobile": True, "has_touch": True} if viewport is PHONE else {}
    p, ctx = open_page(browser, draft_ui, viewport, **mobile)
    try:
        size = lambda: {k: v for k, v in p.page.locator("#chat").bounding_box().items() if k != "y"}  # noqa: E731
        chat_before = size()  # (y: the phone scrolls down to the results)
        _open_tab(p)
        p.page.locator("#draft-text textarea").fill(DRAFT)
        p.page.locator("#draft-check").click()
        items = _results(p, 4)
        expect(items.nth(0).locator(".dc-badge")).to_have_text("✓ supported")
        expect(items.nth(0)).to_contain_text("Our curated Dataset comprises over 213,000 wells")
        expect(items.nth(1).locator(".dc-badge")).to_have_text("⇄ wrong paper")
        expect(items.nth(1)).to_contain_text("Said by: PaperBench")
        expect(items.nth(2).locator(".dc-badge")).to_have_text("∅ not in library")
        expect(items.nth(2)).to_contain_text("smith2019missing")
        expect(items.nth(2)).to_contain_text("Suggested citation: Improving Continual Learning")
        expect(p.page.locator("#draft-results .dc-summary")).to_contain_text("2 sentences flagged of 4")
        link = items.nth(0).locator("a.ext").first
        assert link.get_attribute("href") == "https://arxiv.org/abs/2410.09032"
        assert link.get_attribute("target") == "_blank" and "noopener" in (link.get_attribute("rel") or "")
        # the hostile paper and the draft's markup are text: no element, no script, no javascript: link
        expect(items.nth(3)).to_contain_text('<img src=x onerror="window.__xss=1">Zebra stripes')
        assert p.page.locator("#draft-results img").count() == 0
        assert p.page.locator("#draft-results a[href^='javascript']").count() == 0
        assert p.page.evaluate("() => window.__xss") is None
        assert min(_contrast(p)) >= 4.5
        if viewport is PHONE:  # nothing wider than the phone
            assert p.page.evaluate("() => document.documentElement.scrollWidth") <= viewport["width"]
        p.shot(f"ui-draft-{viewport['width']}x{viewport['height']}.png")
        p.page.get_by_role("tab", name="Sources").click()
        assert size() == chat_before  # the chat keeps its width and height
        assert p.outside == [] and p.errors == []
    finally:
        ctx.close()


def test_an_uploaded_latex_file_from_the_keyboard(browser: Any, draft_ui: UIServer) -> None:
    from playwright.sync_api import expect

    p, ctx = open_page(browser, draft_ui, DESKTOP)
    try:
        tab = p.page.get_by_role("tab", name="Check a draft")
        tab.focus()
        p.page.keyboard.press("Enter")  # the tab opens from the keyboard
        expect(p.page.locator("#draft-text textarea")).to_be_visible(timeout=TIMEOUT_MS)
        p.page.locator("#draft-file input[type=file]").set_input_files(str(DATA / "draft.tex"))
        expect(p.page.locator("#draft-file")).to_contain_text("draft.tex", timeout=TIMEOUT_MS)
        p.page.locator("#draft-check").focus()
        p.page.keyboard.press("Enter")
        items = _results(p, 6)
        labels = [items.nth(i).get_attribute("data-label") for i in range(6)]
        assert labels == ["supported", "supported", "contradicted", "wrong paper", "supported", "not in library"]
        expect(items.nth(2)).to_contain_text("Why: pairs the source's terms the other way round")
        expect(items.nth(4)).to_contain_text("cites aux: Improving Continual Learning")
        # every link of the results is reachable with Tab
        focusable = p.page.evaluate("""() => [...document.querySelectorAll('#draft-results a')]
            .every(a => a.tabIndex >= 0 && a.href.startsWith('https://'))""")
        assert focusable
        assert p.outside == [] and p.errors == []
    finally:
        ctx.close()


def test_an_empty_draft_says_what_to_do(browser: Any, draft_ui: UIServer) -> None:
    from playwright.sync_api import expect

    p, ctx = open_page(browser, draft_ui, DESKTOP)
    try:
        _open_tab(p)
        p.page.locator("#draft-check").click()
        expect(p.page.locator("#draft-results .dc-message")).to_contain_text("Paste your draft", timeout=TIMEOUT_MS)
    finally:
        ctx.close()


def test_also_asking_the_model_shows_its_judgement_per_sentence(browser: Any, draft_ui: UIServer,
                                                                scripted_llm: FaultServer) -> None:  # fmt: skip
    from playwright.sync_api import expect

    draft = ("PaperBench contains 8,316 individually gradable tasks [@starace2025paperbench].\n\n"
             "Our curated dataset comprises over 213,000 wells from Alberta [@seth2025alberta].\n")  # fmt: skip
    p, ctx = open_page(browser, draft_ui, DESKTOP)
    try:
        _open_tab(p)
        p.page.locator("#draft-text textarea").fill(draft)
        p.page.locator("#draft-check").click()  # not ticked: the offline check alone
        items = _results(p, 2)
        expect(p.page.locator("#draft-results .dc-summary")).to_contain_text("checked offline)")
        expect(p.page.locator("#draft-results")).not_to_contain_text("LLM check")
        asked = scripted_llm.count
        scripted_llm.set_reply('{"claims": [{"id": 1, "supported": true}, {"id": 2, "supported": false}]}',
                               whole=True)  # fmt: skip
        box = p.page.get_by_label("Also ask the model")  # a named checkbox, enabled: the app has an endpoint
        expect(box).to_be_enabled()
        box.check()
        p.page.locator("#draft-check").click()
        summary = p.page.locator("#draft-results .dc-summary")
        expect(summary).to_contain_text("checked offline + llm", timeout=TIMEOUT_MS)
        expect(summary).to_contain_text("1 sentence flagged of 2")
        items = _results(p, 2)
        assert [items.nth(i).get_attribute("data-label") for i in range(2)] == ["supported", "not found"]
        expect(items.nth(0)).to_contain_text("LLM check: supported")
        expect(items.nth(1).locator(".dc-badge")).to_have_text("? not found")
        expect(items.nth(1)).to_contain_text("LLM check: unsupported")
        expect(items.nth(1)).to_contain_text("Why: the LLM check found it unsupported")
        assert scripted_llm.count == asked + 1  # one batch for both sentences, as `rag check --verify llm` sends
        p.shot("ui-draft-llm-1440x900.png")
        assert p.outside == [] and p.errors == []
    finally:
        scripted_llm.set_reply(None)
        ctx.close()
