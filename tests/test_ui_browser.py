"""The web UI in a real browser (Debian chromium driven by Playwright; never `playwright install`).

One app for the module over the bundled corpus plus one hostile paper (markup in every field). Every
page has a route guard that aborts and records any request to a host other than 127.0.0.1/localhost.
Skipped when chromium or playwright is missing, unless RAG_REQUIRE_BROWSER=1 (then it fails).
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from rag.factory import build_index
from tests.ui_server import ROOT, UIServer, start_ui

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = next((p for p in ("/usr/lib/chromium/chromium", "/usr/bin/chromium") if Path(p).exists()), None)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync", "--disable-quic"]
ARTIFACTS = ROOT / "test-artifacts"
ALBERTA = "How many wells are in the Alberta dataset?"
EVIL = {
    "id": "evil-01",
    "title": '<img src=x onerror="window.__xss=1">Evil',
    "abstract": "<script>window.__xss=2</script> We study how zebra stripes affect the decoherence of quantum "
                "giraffes. ${window.__xss=3} {{constructor.constructor('window.__xss=4')()}} Zebra stripes reduce "
                "giraffe decoherence by 40 percent in our experiments.",
    "authors": ["<b>Mallory</b> <svg onload=window.__xss=5>"],
    "year": 2025,
    "venue": "<i>XSSConf</i>",
    "url": "javascript:window.__xss=6",
    "code_url": 'https://example.org/code" onmouseover="window.__xss=7',
}
TIMEOUT_MS = 90_000


def _require_browser() -> None:
    reason = None
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        reason = "playwright (Python) is not installed"
    if CHROMIUM is None:
        reason = "Debian chromium is not installed (/usr/bin/chromium)"
    if reason and os.environ.get("RAG_REQUIRE_BROWSER") == "1":
        pytest.fail(f"RAG_REQUIRE_BROWSER=1 but {reason}")
    if reason:
        pytest.skip(reason)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    _require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def ui(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[UIServer]:
    from rag.settings import BUNDLED_CORPUS, load_settings

    tmp = tmp_path_factory.mktemp("ui-browser")
    evil = tmp / "evil.jsonl"
    evil.write_text(json.dumps(EVIL) + "\n", encoding="utf-8")
    build_index(load_settings(home=tmp / "home", env={}), [BUNDLED_CORPUS, evil])
    server = start_ui(tmp / "home", ARTIFACTS / "ui-browser.log")
    yield server
    server.stop()


@dataclass
class Page:
    page: Any
    outside: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def ask(self, question: str, expect_text: str = "answered by") -> Any:
        from playwright.sync_api import expect

        bots = self.page.get_by_test_id("bot")
        before = bots.count()
        box = self.page.locator("#question").get_by_test_id("textbox")
        box.fill(question)
        self.page.locator("#question").get_by_test_id("submit-button").click()
        expect(bots).to_have_count(before + 1, timeout=TIMEOUT_MS)
        expect(bots.last).to_contain_text(expect_text, timeout=TIMEOUT_MS)
        expect(self.page.get_by_test_id("stop-button")).to_be_hidden(timeout=TIMEOUT_MS)
        return bots.last


@pytest.fixture
def page(browser: Any, ui: UIServer) -> Iterator[Page]:
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1400, "height": 950})
    p = Page(context.new_page())

    def guard(route: Any) -> None:
        url = route.request.url
        if url.startswith(("data:", "blob:")) or urlsplit(url).hostname in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            p.outside.append(url)
            route.abort()

    context.route("**/*", guard)
    p.page.on("websocket", lambda ws: None if urlsplit(ws.url).hostname in ("127.0.0.1", "localhost")
              else p.outside.append(ws.url))
    p.page.on("pageerror", lambda exc: p.errors.append(str(exc)))
    started = time.perf_counter()
    p.page.goto(ui.url)
    expect(p.page.locator("#question").get_by_test_id("textbox")).to_be_editable(timeout=TIMEOUT_MS)
    print(f"page ready in {time.perf_counter() - started:.1f} s")
    yield p
    context.close()
    assert p.outside == [], f"the page made outside requests: {p.outside}"


def test_ask_read_sources_follow_up_and_give_feedback(page: Page, ui: UIServer) -> None:
    from playwright.sync_api import expect

    pg = page.page
    page.ask(ALBERTA, "213,000")
    expect(pg.locator("#chat a.cite[href='#src-1']").first).to_be_visible()
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
    feedback = ui.home / "feedback.jsonl"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not feedback.exists():
        time.sleep(0.2)
    record = json.loads(feedback.read_text(encoding="utf-8").splitlines()[-1])
    assert record["liked"] is True and record["question"] == ALBERTA and record["cited_ids"] == ["icml2025-00"]

    pg.get_by_role("button", name="Copy answer with references").click()
    expect(pg.locator("#copy-box textarea")).to_have_value(
        re.compile(r"213,000.*\nReferences\n\[1\] Alberta Wells Dataset.*https://arxiv\.org/abs/2410\.09032", re.S),
        timeout=TIMEOUT_MS,
    )

    page.ask("Who are its authors?", "Rolnick")
    expect(toast).to_be_hidden(timeout=TIMEOUT_MS)  # a clean screenshot
    expect(pg.get_by_test_id("bot")).to_have_count(2)
    ARTIFACTS.mkdir(exist_ok=True)
    pg.locator("#chat").get_by_test_id("bot").first.scroll_into_view_if_needed()
    pg.screenshot(path=str(ARTIFACTS / "ui.png"))
    assert page.errors == []


def test_untrusted_text_renders_as_text(page: Page) -> None:
    from playwright.sync_api import expect

    pg = page.page
    page.ask("How do zebra stripes affect giraffe decoherence?")
    sources = pg.locator("#sources")
    expect(sources).to_contain_text('<img src=x onerror="window.__xss=1">Evil')
    expect(sources).to_contain_text("<b>Mallory</b>")
    expect(pg.get_by_test_id("bot").last).to_contain_text("Zebra stripes reduce giraffe decoherence")
    assert sources.locator("img, svg[onload], script, b, i").count() == 0
    assert pg.locator('a[href^="javascript" i]').count() == 0
    assert pg.locator('[onmouseover], [onerror], [onload]').count() == 0

    sources.locator('article[data-paper-id="evil-01"] button.show-abstract').click()
    expect(pg.locator("#paper")).to_contain_text("<script>window.__xss=2</script> We study", timeout=TIMEOUT_MS)
    expect(pg.locator("#paper")).to_contain_text("${window.__xss=3} {{constructor.constructor")
    pg.keyboard.press("Escape")
    expect(pg.locator("#paper .paper-modal")).to_have_count(0, timeout=TIMEOUT_MS)

    page.ask('<img src=x onerror="window.__xss=8">What do zebra stripes reduce?')
    time.sleep(0.5)  # give any injected handler a chance to run
    assert pg.evaluate("window.__xss") is None
    assert page.errors == []
