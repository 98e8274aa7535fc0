"""Issue 24, "The chat UI" (items 6-11), in headless Chromium at 1440x900 and 390x844.

Each test names its item. The app is the one every browser module shares (tests/ui_browser.py): the bundled
corpus plus hostile papers, extractive by default, a scripted endpoint when a test picks "openai". Items 5 and
12 need an index of their own: tests/test_ui_browser_index.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.fault_server import FaultServer
from tests.ui_browser import ALBERTA, DESKTOP, PHONE, Page, open_page
from tests.ui_server import UIServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WELLS_ANSWER = "Our curated dataset comprises over 213,000 wells from Alberta [1]. "
VIEWPORTS = pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1440x900", "390x844"])


@pytest.fixture
def sized(browser: Any, browser_ui: UIServer, viewport: dict[str, int]) -> Iterator[Page]:
    """A fresh page of the shared app at `viewport` (a phone one is a touch device)."""
    phone = viewport is PHONE
    p, ctx = open_page(browser, browser_ui, viewport, **({"is_mobile": True, "has_touch": True} if phone else {}))
    yield p
    ctx.close()
    assert p.outside == [], f"the page made outside requests: {p.outside}"


@VIEWPORTS
def test_8_searched_for_reads_as_a_question_and_only_when_it_adds_something(sized: Page) -> None:
    from playwright.sync_api import expect

    sized.ask(ALBERTA, "213,000")
    follow_up = sized.ask("Who are its authors?", "Rolnick")
    searched = follow_up.locator(".searched")
    expect(searched).to_have_text("Searched for: Who are the Alberta dataset's authors?")
    words = re.findall(r"[\w'-]+", searched.inner_text().lower())
    assert not any(a == b for a, b in zip(words, words[1:], strict=False)), words

    sized.ask("What does the Alberta Wells Dataset contain?", "answered by")
    same = sized.ask("Does the Alberta Wells Dataset also cover Saskatchewan?", "answered by")
    expect(same.locator(".searched")).to_have_count(0)  # the rewrite would add nothing: not shown


@VIEWPORTS
def test_11_a_10_mb_answer_cut_at_max_tokens_shows_what_arrived_marked_incomplete(
    sized: Page, scripted_llm: FaultServer
) -> None:
    from playwright.sync_api import expect

    scripted_llm.set_reply(WELLS_ANSWER + "and then some more " * 550_000, whole=True)  # one 10 MB piece
    try:
        sized.pick_backend("openai")
        message = sized.ask(ALBERTA, "answered by")
    finally:
        scripted_llm.set_reply(None)
    body = message.locator(".answer-body")
    expect(body).to_contain_text("Our curated dataset comprises over 213,000 wells from Alberta")
    expect(body).to_contain_text("and then some more")
    assert len(body.inner_text()) < 4000  # up to max_tokens (512), not 10 MB
    expect(message.locator(".incomplete")).to_contain_text("Incomplete")
    expect(message.locator(".note-list")).to_contain_text("kept writing past max_tokens (512)")
    expect(message.locator("a.cite").first).to_be_visible()
    width = sized.page.evaluate("document.documentElement.scrollWidth")
    assert width <= sized.page.viewport_size["width"], width  # the long text wraps inside the page
