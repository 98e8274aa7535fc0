"""Issue 37 item 9 in headless Chromium at 1440x900 and 390x844: the "Check a draft" tab on a phone, its results
brought into view after a check (the focus on their heading), and the report copied or downloaded as the Markdown
`rag check --format markdown` writes.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.test_ui_browser_draft_bib import _labels, _open_tab
from tests.test_ui_draft_bib import DRAFT
from tests.ui_browser import TIMEOUT_MS, VIEWPORTS, Page

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _check(p: Page) -> list[str | None]:
    _open_tab(p)
    p.page.locator("#draft-text textarea").fill(DRAFT)
    p.page.locator("#draft-check").click()
    return _labels(p, 4)


@VIEWPORTS
def test_after_a_check_the_results_are_in_view_and_their_heading_has_the_focus(sized: Page,
                                                                               viewport: dict[str, int]) -> None:
    from playwright.sync_api import expect

    p = sized
    _check(p)
    heading = p.page.locator("#draft-results .dc-title")
    expect(heading).to_be_focused(timeout=TIMEOUT_MS)  # page.js moves the focus once the results are on the page
    expect(heading).to_be_in_viewport()
    assert heading.get_attribute("tabindex") == "-1"
    p.shot(f"ui-draft-in-view-{viewport['width']}x{viewport['height']}.png")
    assert p.errors == []


@VIEWPORTS
def test_the_report_is_downloaded_and_copied_as_the_clis_markdown(sized: Page, viewport: dict[str, int]) -> None:
    from playwright.sync_api import expect

    p = sized
    tools = p.page.locator("#draft-tools")
    _open_tab(p)
    expect(tools).to_be_hidden()  # no report yet: nothing to copy
    labels = _check(p)
    download = p.page.get_by_role("button", name="Download report")
    expect(download).to_be_visible(timeout=TIMEOUT_MS)
    with p.page.expect_download(timeout=TIMEOUT_MS) as got:
        download.click()
    assert got.value.suggested_filename == "draft-check.md"
    text = Path(got.value.path()).read_text(encoding="utf-8")
    assert text.startswith("# Manuscript check: draft")  # rag.check.render.markdown_report, as `rag check` writes
    for n, label in enumerate(labels, 1):
        assert f"{n}. " in text and f"**{label}**" in text
    p.page.get_by_role("button", name="Copy report").click()
    box = p.page.locator("#draft-copy-box textarea")
    expect(box).to_have_value(text, timeout=TIMEOUT_MS)  # the same Markdown, to copy by hand if the clipboard failed
    p.shot(f"ui-draft-report-{viewport['width']}x{viewport['height']}.png")
    assert p.errors == []


@VIEWPORTS
def test_the_tab_is_reachable_by_its_name_on_a_phone_without_an_unnamed_menu(sized: Page,
                                                                              viewport: dict[str, int]) -> None:
    from playwright.sync_api import expect

    p = sized
    tab = p.page.get_by_role("tab", name="Check a draft")
    expect(tab).to_be_visible(timeout=TIMEOUT_MS)  # among the tabs, not behind gradio's "⋯" button
    expect(p.page.locator("#side-tabs .overflow-menu")).to_have_count(0)  # no overflow menu at all: the tabs wrap
    for name in ("Sources", re.compile(r"^Library \(")):
        expect(p.page.get_by_role("tab", name=name)).to_be_visible()
    tab.click()
    expect(p.page.locator("#draft-text textarea")).to_be_visible(timeout=TIMEOUT_MS)
    assert p.page.evaluate("() => document.documentElement.scrollWidth") <= viewport["width"]
    p.shot(f"ui-draft-tab-{viewport['width']}x{viewport['height']}.png")
    assert p.errors == []
