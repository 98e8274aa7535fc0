"""Issue 24 item 4, against `rag ui --auth-file` as a subprocess behind a trusted proxy (RAG_UI_TRUSTED_PROXIES
=127.0.0.1: this test plays the proxy and sets X-Forwarded-*). The same app without a trusted proxy, where the
header must count for nothing: tests/test_ui_operator.py::test_failed_logins_pause_this_client.

- X-Forwarded-For names the client only when it comes from a trusted proxy; a paused client is told "too many
  attempts, wait N s" (as JSON, and on the login page in Chromium) instead of nothing.
- Login cookies: SameSite=Lax, HttpOnly, Secure when the proxy says the page is https.
- POSTs from another site's page are refused; gradio_client and the app's own page are not.
- An exported conversation lives in a private directory (0700) that is gone once the UI exits.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import httpx
import pytest

from tests.ui_browser import ALBERTA, ARTIFACTS, DESKTOP, PHONE, TIMEOUT_MS, _require_browser
from tests.ui_server import UIServer, start_ui

pytestmark = pytest.mark.slow
USER, PASSWORD = "reader", "access-secret-0815"


@pytest.fixture(scope="module")
def proxied(tmp_path_factory: pytest.TempPathFactory, bundled_home: Path) -> Iterator[UIServer]:
    tmp = tmp_path_factory.mktemp("ui-access")
    shutil.copytree(bundled_home, tmp / "home")
    secret = tmp / "ui-auth"
    secret.write_text(f"{USER}:{PASSWORD}\n", encoding="utf-8")
    secret.chmod(0o600)
    env = {"RAG_UI_TRUSTED_PROXIES": "127.0.0.1", "RAG_LLM": "extractive"}
    server = start_ui(tmp / "home", ARTIFACTS / "ui-access.log", args=["--auth-file", str(secret)], env=env)
    yield server
    server.stop()


def _login(http: httpx.Client, password: str, client_ip: str | None = None, **headers: str) -> httpx.Response:
    if client_ip:
        headers["X-Forwarded-For"] = client_ip
    return http.post("/login", data={"username": USER, "password": password}, headers=headers)


def test_x_forwarded_for_names_the_client_behind_a_trusted_proxy(proxied: UIServer) -> None:
    with httpx.Client(base_url=proxied.url, timeout=30) as http:
        for _ in range(5):
            assert _login(http, "guess", "10.0.0.1").status_code == 400
        paused = _login(http, PASSWORD, "10.0.0.1")
        assert paused.status_code == 429 and int(paused.headers["retry-after"]) >= 25
        assert re.fullmatch(r"Too many attempts: wait \d+ s, then log in again\.", paused.json()["detail"])
        assert _login(http, PASSWORD, "10.0.0.2").status_code == 200  # another client behind the proxy


def test_login_cookies_are_lax_http_only_and_secure_over_https(proxied: UIServer) -> None:
    with httpx.Client(base_url=proxied.url, timeout=30) as http:
        for proto, secure in (("http", False), ("https", True)):
            response = _login(http, PASSWORD, "10.0.1.1", **{"X-Forwarded-Proto": proto})
            assert response.status_code == 200
            cookies = response.headers.get_list("set-cookie")
            assert len(cookies) == 2, cookies
            for cookie in cookies:
                flags = [f.strip().lower() for f in cookie.split(";")[1:]]
                assert "samesite=lax" in flags and "httponly" in flags and ("secure" in flags) is secure, cookie


def test_posts_from_another_sites_page_are_refused(proxied: UIServer) -> None:
    join = {"data": [], "fn_index": 0, "session_hash": "x1", "event_data": None, "trigger_id": None}
    with httpx.Client(base_url=proxied.url, timeout=30) as http:
        evil = {"Origin": "http://evil.example", "X-Forwarded-For": "10.0.2.1"}
        refused = http.post("/login", data={"username": USER, "password": PASSWORD}, headers=evil)
        assert refused.status_code == 403 and "set-cookie" not in refused.headers
        assert "cross-origin" in refused.json()["detail"]
        assert _login(http, PASSWORD, "10.0.2.1").status_code == 200  # logged in now (no Origin: not a browser)
        assert http.post("/gradio_api/queue/join", json=join, headers=evil).status_code == 403
        same = {"Origin": proxied.url, "X-Forwarded-For": "10.0.2.1"}
        assert http.post("/gradio_api/queue/join", json=join, headers=same).status_code != 403


def _browser_page(browser: Any, server: UIServer, viewport: dict[str, int], client_ip: str) -> tuple[Any, Any]:
    ctx = browser.new_context(viewport=viewport, extra_http_headers={"X-Forwarded-For": client_ip})
    page = ctx.new_page()
    page.goto(server.url)
    return page, ctx


def _fill_login(page: Any, password: str) -> None:
    from playwright.sync_api import expect

    user = page.get_by_label("username", exact=False)
    expect(user).to_be_editable(timeout=TIMEOUT_MS)
    user.fill(USER)
    page.get_by_label("password", exact=False).fill(password)
    page.get_by_role("button", name=re.compile(r"^\s*log\s*in\s*$", re.I)).click()


@pytest.mark.browser
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1440x900", "390x844"])
def test_the_login_page_says_too_many_attempts_and_how_long_to_wait(
    browser: Any, proxied: UIServer, viewport: dict[str, int]
) -> None:
    from playwright.sync_api import expect

    ip = f"10.0.3.{viewport['width'] % 250}"
    page, ctx = _browser_page(browser, proxied, viewport, ip)
    try:
        _fill_login(page, "guess")
        expect(page.get_by_text("Incorrect Credentials", exact=False)).to_be_visible(timeout=TIMEOUT_MS)
        with httpx.Client(base_url=proxied.url, timeout=30) as http:
            for _ in range(4):
                _login(http, "guess", ip)
        _fill_login(page, PASSWORD)  # the right password, during the pause
        note = page.get_by_role("alert").filter(has_text="Too many attempts")
        expect(note).to_be_visible(timeout=TIMEOUT_MS)
        expect(note).to_have_text(re.compile(r"Too many attempts: wait \d+ s, then log in again\."))
        expect(note).to_be_in_viewport()
        # issue 37 item 12: one message, the current one (gradio's red "Incorrect Credentials" stayed above it)
        expect(page.get_by_text("Incorrect Credentials", exact=False)).to_be_hidden()
    finally:
        ctx.close()


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.browser
def test_an_exported_conversation_is_private_and_gone_after_exit(browser: Any, proxied: UIServer) -> None:
    """Last in this module: it stops the app."""
    from playwright.sync_api import expect

    _require_browser()
    page, ctx = _browser_page(browser, proxied, DESKTOP, "10.0.4.1")
    try:
        _fill_login(page, PASSWORD)
        box = page.locator("#question").get_by_test_id("textbox")
        expect(box).to_be_editable(timeout=TIMEOUT_MS)
        box.fill(ALBERTA)
        page.locator("#question").get_by_test_id("submit-button").click()
        expect(page.get_by_test_id("bot").last).to_contain_text("213,000", timeout=TIMEOUT_MS)
        # the answer is final (stop button gone, box editable again) before it is exported: while it streams, the
        # conversation holds only what has finished (a fresh-clone run once exported "# Conversation" alone)
        expect(page.get_by_test_id("stop-button")).to_be_hidden(timeout=TIMEOUT_MS)
        expect(box).to_be_editable(timeout=TIMEOUT_MS)
        page.get_by_role("button", name="Export conversation").click()
        link = page.locator("#export-file a[href*='conversation.md']").first
        expect(link).to_be_attached(timeout=TIMEOUT_MS)
        href = unquote(urlsplit(link.get_attribute("href") or "").path)
        exported = Path(href.split("file=", 1)[1])
        assert exported.is_file() and "213,000" in exported.read_text(encoding="utf-8")
    finally:
        ctx.close()
    private = next(p for p in exported.parents if p.name.startswith("rag-ui-"))
    assert _mode(private) == 0o700, oct(_mode(private))  # no other user can list or read anything in it
    assert not _mode(exported) & 0o077, oct(_mode(exported))
    assert os.stat(private).st_uid == os.getuid()
    proxied.stop()
    assert not private.exists() and not exported.exists()
