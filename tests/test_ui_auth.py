"""ui.auth: where the UI's password comes from, and LoginGuard (failed-login pauses, login for cancel/reset, the
login cookies' flags, the login page's note); ui.origin: cross-origin requests refused. On a small Starlette app
in-process. The same guards in front of the real app: tests/test_ui_operator.py, tests/test_ui_access.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from rag.errors import ConfigError
from ui.auth import CLI_WARNING, LoginGuard, parse_auth, resolve_auth, trusted_proxies
from ui.origin import SameOriginGuard, refusal


def test_the_password_comes_from_a_file_the_environment_or_the_command_line_with_a_warning(tmp_path: Path) -> None:
    secret = tmp_path / "auth"
    secret.write_text("\nbob:pa:ss\n", encoding="utf-8")
    secret.chmod(0o600)
    assert resolve_auth(None, str(secret), {}) == (("bob", "pa:ss"), [])
    secret.chmod(0o644)
    creds, warnings = resolve_auth("x:y", str(secret), {"RAG_UI_AUTH": "a:b"})  # the file wins
    assert creds == ("bob", "pa:ss") and warnings == [f"warning: {secret} can be read by other users; chmod 600 it"]
    assert resolve_auth(None, None, {"RAG_UI_AUTH": "eve:pw"}) == (("eve", "pw"), [])
    assert resolve_auth("eve:pw", None, {}) == (("eve", "pw"), [CLI_WARNING])
    assert resolve_auth(None, None, {}) == (None, [])
    empty = tmp_path / "empty"
    empty.write_text("\n", encoding="utf-8")
    for bad in (str(empty), str(tmp_path / "missing")):
        with pytest.raises(ConfigError, match="--auth-file"):
            resolve_auth(None, bad, {})
    assert parse_auth(None) is None and parse_auth("bob:pa:ss") == ("bob", "pa:ss")
    for wrong in ("bob", "bob:", ":pw"):
        with pytest.raises(ConfigError):
            parse_auth(wrong)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def app(clock: Clock, *, auth: bool = True) -> Starlette:
    async def login(request: Request) -> JSONResponse:
        form = await request.form()
        ok = form.get("password") == "right"
        response = JSONResponse({"success": ok}, status_code=200 if ok else 400)
        if ok:  # the cookies as gradio 6 sets them
            response.set_cookie("access-token-cid", "t", httponly=True, samesite="none", secure=True)
            response.set_cookie("access-token-unsecure-cid", "t", httponly=True)
        return response

    async def cancel(request: Request) -> JSONResponse:
        return JSONResponse({"success": True})

    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse("<html><head><title>x</title></head><body>app</body></html>")

    routes = [Route("/login", login, methods=["POST"]), Route("/gradio_api/cancel", cancel, methods=["POST"]),
              Route("/gradio_api/reset", cancel, methods=["POST"]), Route("/", page)]  # fmt: skip
    guards = [Middleware(SameOriginGuard), Middleware(LoginGuard, attempts=5, backoff_s=30.0, clock=clock)]
    a = Starlette(routes=routes, middleware=guards)
    a.auth = {"u": "right"} if auth else None  # type: ignore[attr-defined]  # what gradio's App carries
    a.auth_dependency = None  # type: ignore[attr-defined]
    a.tokens, a.cookie_id = {"good-token": "u"}, "cid"  # type: ignore[attr-defined]
    return a


def login(client: TestClient, password: str) -> Any:
    return client.post("/login", data={"username": "u", "password": password})


def test_failed_logins_pause_the_client_and_the_pause_doubles() -> None:
    clock = Clock()
    client = TestClient(app(clock))
    for _ in range(5):
        assert login(client, "wrong").status_code == 400
    paused = login(client, "right")  # even the right password waits out the pause (a guesser would not)
    assert paused.status_code == 429 and paused.headers["retry-after"] == "30"
    assert paused.json()["detail"] == "Too many attempts: wait 30 s, then log in again."
    clock.now += 31
    assert login(client, "wrong").status_code == 400  # the 6th failure: 60 s
    assert login(client, "right").headers["retry-after"] == "60"
    clock.now += 61
    assert login(client, "right").status_code == 200  # a success resets the count
    for _ in range(4):
        assert login(client, "wrong").status_code == 400
    assert login(client, "right").status_code == 200


def test_cancel_and_reset_need_a_login_when_auth_is_on() -> None:
    client = TestClient(app(Clock()))
    body = {"session_hash": "abc", "fn_index": 0, "event_id": "x"}
    for path in ("/gradio_api/cancel", "/gradio_api/reset", "/gradio_api/cancel/"):
        assert client.post(path, json=body).status_code == 401
        assert client.post(path, json=body, cookies={"access-token-cid": "forged"}).status_code == 401
    client.cookies.set("access-token-cid", "good-token")
    assert client.post("/gradio_api/cancel", json=body).status_code == 200
    assert client.post("/gradio_api/reset", json=body).status_code == 200
    open_client = TestClient(app(Clock(), auth=False))  # no login configured: nothing to check
    assert open_client.post("/gradio_api/cancel", json=body).status_code == 200


def test_login_cookies_are_same_site_lax_and_secure_over_https() -> None:
    """Issue 24 item 4: gradio sets `SameSite=None` on one login cookie (other sites' requests carry it) and
    `Secure` on it even over http; the other has no SameSite."""
    for base, secure in (("http://testserver", False), ("https://testserver", True)):
        response = TestClient(app(Clock()), base_url=base).post("/login", data={"username": "u", "password": "right"})
        cookies = response.headers.get_list("set-cookie")
        assert len(cookies) == 2, cookies
        for cookie in cookies:
            flags = [f.strip().lower() for f in cookie.split(";")[1:]]
            assert "samesite=lax" in flags and "httponly" in flags, cookie
            assert ("secure" in flags) is secure, cookie
            assert "samesite=none" not in flags


def test_the_login_page_carries_the_note_script_until_the_visitor_logs_in() -> None:
    client = TestClient(app(Clock()))
    page = client.get("/")
    assert page.status_code == 200 and "login-note" in page.text and page.text.index("login-note") < page.text.index(
        "</head>")
    assert int(page.headers["content-length"]) == len(page.content)
    client.cookies.set("access-token-cid", "good-token")
    assert "login-note" not in client.get("/").text
    assert "login-note" not in TestClient(app(Clock(), auth=False)).get("/").text


@pytest.mark.parametrize(
    ("headers", "refused"),
    [
        ({}, False),  # gradio_client, curl: no browser acting for another site
        ({"origin": "http://testserver"}, False),
        ({"origin": "http://TestServer:80"}, False),
        ({"referer": "http://testserver/?x=1"}, False),
        ({"origin": "http://evil.example"}, True),
        ({"origin": "http://testserver.evil.example"}, True),
        ({"origin": "https://testserver:8443"}, True),
        ({"origin": "null"}, True),
        ({"referer": "http://evil.example/page"}, True),
        ({"origin": "http://testserver", "sec-fetch-site": "cross-site"}, True),
        ({"origin": "https://papers.example.org", "x-forwarded-host": "papers.example.org"}, True),  # untrusted
    ],
    ids=["none", "same", "same-default-port", "same-referer", "other", "suffix", "other-port", "null",
         "other-referer", "sec-fetch-site", "forwarded-host-untrusted"],
)  # fmt: skip
def test_cross_origin_posts_are_refused(headers: dict[str, str], refused: bool) -> None:
    """Issue 24 item 4: a page on another site could make a visitor's browser log in, ask, upload."""
    client = TestClient(app(Clock()))
    response = client.post("/login", data={"username": "u", "password": "right"}, headers=headers)
    assert (response.status_code == 403) is refused, (headers, response.status_code, response.text)
    if refused:
        assert "cross-origin requests are not accepted" in response.json()["detail"]
        assert "set-cookie" not in response.headers
    assert client.get("/", headers=headers).status_code == 200  # reading the page is not refused


def test_forwarded_host_counts_only_behind_a_trusted_proxy() -> None:
    headers = {"host": "127.0.0.1:7861", "origin": "https://papers.example.org",
               "x-forwarded-host": "papers.example.org"}  # fmt: skip
    assert refusal(headers) is not None
    assert refusal(headers, trust_forwarded_host=True) is None


def test_trusted_proxies_are_addresses_or_networks() -> None:
    assert trusted_proxies("") == ""
    assert trusted_proxies(" 127.0.0.1, 10.0.0.0/8 ,::1") == "127.0.0.1,10.0.0.0/8,::1"
    with pytest.raises(ConfigError, match="'proxy.local' is not an IP address"):
        trusted_proxies("proxy.local")
