"""Issue 37 item 4 in headless Chromium at 1440x900 and 390x844: the "Check a draft" tab and the draft's
bibliography. The app is the one every browser module shares (tests/ui_browser.py: the bundled corpus, whose papers
are icml2025-NN, so the draft's keys resolve only through its .bib file).

A pasted draft citing through `bibliography: refs.bib` showed every sentence as "not in library" and never said why.
Now the page says the bibliography was not uploaded, and uploading refs.bib in the tab's .bib field resolves them.
A LaTeX project uploaded as several files is checked with its \\input's, each sentence at its file and line.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.test_ui_draft_bib import DRAFT, NOT_UPLOADED, REFS
from tests.ui_browser import DESKTOP, PHONE, TIMEOUT_MS, VIEWPORTS, Page

pytestmark = [pytest.mark.browser, pytest.mark.slow]



def _open_tab(p: Page) -> None:
    """The tab, as a visitor opens it: on a narrow screen gradio may put it under "More tabs"."""
    from playwright.sync_api import expect

    tab = p.page.get_by_role("tab", name="Check a draft")
    more = p.page.get_by_role("button", name="More tabs")
    # gradio lays the tabs out after load: wait until one of the two ways in is shown, then take it
    expect(tab.or_(more).filter(visible=True).first).to_be_visible(timeout=TIMEOUT_MS)
    if not tab.filter(visible=True).count():
        more.click()
        tab = p.page.locator("#side-tabs button", has_text="Check a draft").filter(visible=True).last
    tab.click()
    expect(p.page.locator("#draft-text textarea")).to_be_visible(timeout=TIMEOUT_MS)


def _labels(p: Page, count: int) -> list[str | None]:
    from playwright.sync_api import expect

    items = p.page.locator("#draft-results li.dc-item")
    expect(items).to_have_count(count, timeout=TIMEOUT_MS)
    return [items.nth(i).get_attribute("data-label") for i in range(count)]


@VIEWPORTS
def test_a_drafts_bibliography_is_asked_for_and_once_uploaded_resolves_its_keys(
    sized: Page, viewport: dict[str, int], tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    p = sized
    _open_tab(p)
    p.page.locator("#draft-text textarea").fill(DRAFT)
    p.page.locator("#draft-check").click()
    why = p.page.locator("#draft-results .dc-why")
    expect(why).to_have_text(NOT_UPLOADED, timeout=TIMEOUT_MS)  # said, where the results are
    assert _labels(p, 4) == ["not in library"] * 4
    why.scroll_into_view_if_needed()
    expect(why).to_be_in_viewport()
    assert why.get_attribute("role") == "note"
    p.shot(f"ui-draft-bib-missing-{viewport['width']}x{viewport['height']}.png")

    refs = tmp_path / "refs.bib"
    refs.write_text(REFS, encoding="utf-8")
    field = p.page.locator("#draft-bib")
    expect(field).to_contain_text(".bib files")  # the field is named for what it takes
    field.locator("input[type=file]").set_input_files(str(refs))
    expect(field).to_contain_text("refs.bib", timeout=TIMEOUT_MS)
    p.page.locator("#draft-check").click()
    first = p.page.locator("#draft-results li.dc-item").first
    expect(first).to_have_attribute("data-label", "supported", timeout=TIMEOUT_MS)
    labels = _labels(p, 4)
    assert "not in library" not in labels and labels[:2] == ["supported", "supported"]
    expect(why).to_have_count(0)
    expect(p.page.locator("#draft-results .dc-unknown")).to_have_count(0)
    expect(first).to_contain_text("cites seth2025wells: Alberta Wells Dataset")
    if viewport is PHONE:  # nothing wider than the phone
        assert p.page.evaluate("() => document.documentElement.scrollWidth") <= viewport["width"]
    p.shot(f"ui-draft-bib-uploaded-{viewport['width']}x{viewport['height']}.png")
    assert p.errors == []


def test_a_bib_file_that_is_not_utf8_is_one_line_on_the_page(sized: Page, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    p = sized
    _open_tab(p)
    p.page.locator("#draft-text textarea").fill(DRAFT)
    bad = tmp_path / "refs.bib"
    bad.write_bytes(b"@article{a, title={Caf\xe9}}\n")
    p.page.locator("#draft-bib input[type=file]").set_input_files(str(bad))
    expect(p.page.locator("#draft-bib")).to_contain_text("refs.bib", timeout=TIMEOUT_MS)
    p.page.locator("#draft-check").click()
    message = p.page.locator("#draft-results .dc-message")
    expect(message).to_have_text("refs.bib: not UTF-8 text (byte 0xe9 at offset 22); save the .bib file as UTF-8, "
                                 "or remove it to check the draft without it.", timeout=TIMEOUT_MS)  # fmt: skip
    expect(p.page.locator("#draft-results")).not_to_contain_text("Traceback")
    assert p.errors == []




@VIEWPORTS
def test_a_latex_project_uploaded_as_several_files_is_checked_with_its_inputs(
    sized: Page, viewport: dict[str, int], tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    from tests.test_ui_draft_project import INTRO, MAIN, RESULTS

    p = sized
    _open_tab(p)
    files = []
    for name, text in (("main.tex", MAIN), ("intro.tex", INTRO), ("results.tex", RESULTS), ("refs.bib", REFS)):
        (tmp_path / name).write_text(text, encoding="utf-8")
        files.append(str(tmp_path / name))
    p.page.locator("#draft-file input[type=file]").set_input_files(files[:3])
    p.page.locator("#draft-bib input[type=file]").set_input_files(files[3:])
    for name in ("main", "intro", "results"):  # a wide table shows "results .tex"
        expect(p.page.locator("#draft-file")).to_contain_text(re.compile(name + r"\s*\.tex"), timeout=TIMEOUT_MS)
    expect(p.page.locator("#draft-bib")).to_contain_text("refs.bib", timeout=TIMEOUT_MS)
    p.page.locator("#draft-check").click()
    assert _labels(p, 2) == ["supported", "supported"]
    lines = p.page.locator("#draft-results .dc-line")
    assert [lines.nth(i).inner_text() for i in range(2)] == ["sections/intro.tex:3", "results.tex:1"]
    expect(p.page.locator("#draft-results")).not_to_contain_text("rag-draft-")  # no server folder on the page
    if viewport is PHONE:
        assert p.page.evaluate("() => document.documentElement.scrollWidth") <= viewport["width"]
    p.shot(f"ui-draft-project-{viewport['width']}x{viewport['height']}.png")
    assert p.errors == []


test_a_bib_file_that_is_not_utf8_is_one_line_on_the_page = pytest.mark.parametrize(
    "viewport", [DESKTOP], ids=["1440x900"])(test_a_bib_file_that_is_not_utf8_is_one_line_on_the_page)  # fmt: skip
