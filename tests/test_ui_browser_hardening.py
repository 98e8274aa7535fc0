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

from tests.ui_browser import ALBERTA, DESKTOP, PHONE, Page, open_page
from tests.ui_server import UIServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]
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
