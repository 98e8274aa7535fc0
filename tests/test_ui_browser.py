"""The web UI in a real browser: the main flow, hostile text, and Markdown that must not load anything.

One app for every browser module (tests/ui_browser.py, via tests/conftest.py): the bundled corpus plus hostile
papers, a scripted OpenAI-compatible endpoint, and a route guard on every page that fails the test on any request
that is not for the app itself. Skipped when chromium or playwright is missing, unless RAG_REQUIRE_BROWSER=1.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest

from rag.settings import BUNDLED_CORPUS
from tests.fault_server import FaultServer
from tests.ui_browser import ALBERTA, ARTIFACTS, DESKTOP, PHONE, TIMEOUT_MS, Canary, Page, open_page
from tests.ui_server import UIServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]
PAPER_URLS = {u for line in BUNDLED_CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()
              for u in (json.loads(line).get("url"), json.loads(line).get("code_url")) if u}  # fmt: skip


def test_ask_read_sources_follow_up_and_give_feedback(page: Page, browser_ui: UIServer) -> None:
    from playwright.sync_api import expect

    pg = page.page
    first = page.ask(ALBERTA, "213,000")
    expect(first.locator("a.cite[href='#a1-src-1']").first).to_be_visible()
    sources = pg.locator("#sources")
    expect(sources).to_contain_text("Alberta Wells Dataset")
    link = sources.locator('a[href="https://arxiv.org/abs/2410.09032"]').first
    expect(link).to_be_visible()
    assert link.get_attribute("target") == "_blank" and "noopener" in (link.get_attribute("rel") or "")

    sources.locator('article[data-paper-id="icml2025-00"] button.show-abstract').click()
    expect(pg.locator("#paper")).to_contain_text("Millions of abandoned oil and gas wells", timeout=TIMEOUT_MS)
    pg.locator("#paper .paper-close").click()
    expect(pg.locator("#paper .paper-modal")).to_have_count(0, timeout=TIMEOUT_MS)

    pg.locator("#chat").get_by_role("button", name="Like", exact=True).last.click()
    toast = pg.get_by_text("Thanks: your feedback was saved.")
    expect(toast).to_be_visible(timeout=TIMEOUT_MS)
    feedback = browser_ui.home / "feedback.jsonl"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not feedback.exists():
        time.sleep(0.2)
    record = json.loads(feedback.read_text(encoding="utf-8").splitlines()[-1])
    assert record["liked"] is True and record["question"] == ALBERTA and record["cited_ids"] == ["icml2025-00"]

    pg.get_by_role("button", name="Copy answer with references").click()
    expect(pg.locator("#copy-box textarea")).to_have_value(
        re.compile(r"213,000.*\*\*References\*\*\n\n- \[1\] .*Alberta Wells Dataset.*arxiv\.org/abs/2410\.09032", re.S),
        timeout=TIMEOUT_MS,
    )

    page.ask("Who are its authors?", "Rolnick")
    expect(toast).to_be_hidden(timeout=TIMEOUT_MS)  # a clean screenshot
    expect(page.bots).to_have_count(2)
    page.shot("ui.png")
    assert page.errors == []


def test_untrusted_text_renders_as_text(page: Page) -> None:
    from playwright.sync_api import expect

    pg = page.page
    page.ask("How do zebra stripes affect giraffe decoherence?")
    sources = pg.locator("#sources")
    expect(sources).to_contain_text('<img src=x onerror="window.__xss=1">Evil')
    expect(sources).to_contain_text("<b>Mallory</b>")
    expect(page.bots.last).to_contain_text("Zebra stripes reduce giraffe decoherence")
    assert pg.locator("#sources img, #sources svg[onload], #sources script, #sources b, #sources i").count() == 0
    assert pg.locator('a[href^="javascript" i]').count() == 0
    assert pg.locator("[onmouseover], [onerror], [onload]").count() == 0

    sources.locator('article[data-paper-id="evil-01"] button.show-abstract').click()
    expect(pg.locator("#paper")).to_contain_text("<script>window.__xss=2</script> We study", timeout=TIMEOUT_MS)
    expect(pg.locator("#paper")).to_contain_text("${window.__xss=3} {{constructor.constructor")
    pg.keyboard.press("Escape")
    expect(pg.locator("#paper .paper-modal")).to_have_count(0, timeout=TIMEOUT_MS)

    page.ask('<img src=x onerror="window.__xss=8">What do zebra stripes reduce?')
    expect(page.page.get_by_test_id("user").last).to_have_text('<img src=x onerror="window.__xss=8">What do zebra '
                                                              "stripes reduce?")  # fmt: skip
    assert pg.evaluate("window.__xss") is None
    assert page.errors == []


def _only_our_links(page: Page) -> None:
    """No image anywhere in the chat; every link is a [n] citation or a card link from index metadata."""
    chat = page.page.locator("#chat")
    assert chat.locator("img, picture, video, audio, iframe, object, embed, source").count() == 0
    for link in chat.locator("a[href]").all():
        href, cls = link.get_attribute("href") or "", link.get_attribute("class") or ""
        assert (cls == "cite" and re.fullmatch(r"#a\d+-src-\d+", href)) or (cls == "ext" and href in PAPER_URLS), href


def test_markdown_and_urls_in_answers_and_abstracts_load_nothing(
    page: Page, canary: Canary, scripted_llm: FaultServer
) -> None:
    from playwright.sync_api import expect

    bait = canary.url
    # the extractive backend quotes the planted abstract word for word
    quoted = page.ask("How much carbon do kelp forests export to deep ocean sediments?", "175 teragrams")
    page.wait_idle()
    expect(quoted).to_contain_text("(image not shown: chart)")  # the verified answer drops the image's URL
    _only_our_links(page)
    page.page.locator('#sources article[data-paper-id="planted-md"] button.show-abstract').click()
    dialog = page.page.locator("#paper")
    expect(dialog).to_contain_text(f"[Kelp Carbon Atlas]({bait}/phish) and at {bait}/bare-abstract", timeout=TIMEOUT_MS)
    assert dialog.locator("img, a[href]").count() == 0  # the paper has no URL in its metadata
    page.page.keyboard.press("Escape")

    # an LLM answer with an image, a link dressed as a paper, a bare URL and raw HTML, slowly streamed
    reply = (f"Kelp forests export 175 teragrams of carbon per year [1]. See ![x]({bait}/llm.png?d=answer) and "
             f"[Alberta Wells Dataset]({bait}/llm-phish) or {bait}/llm-bare and www.kelp-data.example/y "
             f'<img src="{bait}/llm-img.png"> <a href="{bait}/llm-a">here</a> [1].')  # fmt: skip
    scripted_llm.set_reply(reply, delay_s=0.03)
    page.pick_backend("openai")
    streaming = page.send("How much carbon do kelp forests export?")
    expect(streaming).to_contain_text("llm-phish", timeout=TIMEOUT_MS)  # while it streams
    _only_our_links(page)
    expect(streaming).to_contain_text("answered by", timeout=TIMEOUT_MS)
    page.wait_idle()
    # verified: the link shows where it goes (as text here: the chat makes no link of model text), the image is
    # gone, the tag is text
    expect(streaming).to_contain_text(f"Alberta Wells Dataset ([127.0.0.1]({bait}/llm-phish))")
    expect(streaming).to_contain_text("See (image not shown: x) and")
    expect(streaming).to_contain_text(f'<img src="{bait}/llm-img.png">')
    _only_our_links(page)

    # what the reader types is shown as typed, and loads nothing either
    page.ask(f'<img src="{bait}/typed.png"> ![t]({bait}/typed-md.png) kelp carbon?')
    expect(page.page.get_by_test_id("user").last).to_contain_text(f'<img src="{bait}/typed.png">')
    _only_our_links(page)
    assert page.outside == [] and canary.hits == []


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1440x900", "390x844"])
def test_screenshots(browser: Any, browser_ui: UIServer, viewport: dict[str, int]) -> None:
    """test-artifacts/ui-<w>x<h>.png after two questions (docs/ui.png is a copy of the desktop one)."""
    from playwright.sync_api import expect

    mobile = {"is_mobile": True, "has_touch": True} if viewport is PHONE else {}
    p, ctx = open_page(browser, browser_ui, viewport, **mobile)
    try:
        p.ask(ALBERTA, "213,000")
        second = p.ask("Summarize the continual learning papers", "relevant papers")
        expect(second.locator("details.chip").first).to_be_visible()
        if viewport is PHONE:
            second.locator("details.chip summary").first.click()
        else:
            second.locator("a.cite").first.hover()
        path = p.shot(f"ui-{viewport['width']}x{viewport['height']}.png")
        assert path.stat().st_size > 10_000 and path.parent == ARTIFACTS
        assert p.outside == [] and p.errors == []
    finally:
        ctx.close()
