"""Hardening round 4, item 2: the UI answers only for the host names it is reachable as.

Before: without --auth, a request with `Host: evil.example:PORT` and a matching Origin was served from the local
library, so a DNS-rebinding page (evil.example re-pointed at 127.0.0.1) could read the page, the config and the
answers. Now every HTTP request and websocket the UI serves passes ui.hosts.HostGuard first: loopback names
(localhost, 127.0.0.1, ::1) and the bound host, any port, plus the names the operator gives (`--allowed-host`,
`ui_allowed_hosts` / RAG_UI_ALLOWED_HOSTS); anything else gets 421 and one line of plain text, no library data.

The guard in-process on a small Starlette app, then real HTTP requests to `rag ui` subprocesses, then Chromium:
the page at http://127.0.0.1:PORT and http://localhost:PORT at both sizes, and a browser whose resolver maps
evil.example (the rebinding) and papers.lab.example (a team's name) to 127.0.0.1.
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import PlainTextResponse
from starlette.routing import Route, WebSocketRoute
from starlette.testclient import TestClient
from starlette.websockets import WebSocket, WebSocketDisconnect

from rag.errors import ConfigError
from tests.reliability_helpers import assert_clean_failure, run_rag
from tests.ui_browser import (
    ALBERTA,
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    DESKTOP,
    PHONE,
    TIMEOUT_MS,
    open_page,
)
from tests.ui_server import UIServer, start_ui

LIBRARY_WORDS = ("Alberta", "wells", "icml2025", "19 papers")  # none of them may reach a refused request


# -- the guard, in-process ------------------------------------------------------------------------------------------


def test_the_allowed_names_are_loopback_the_bound_host_and_the_operators() -> None:
    from ui.hosts import allowed_hosts

    loopback = ("localhost", "127.0.0.1", "::1")
    assert allowed_hosts("127.0.0.1", "", ()) == loopback
    assert allowed_hosts("0.0.0.0", "", ()) == loopback  # every address is not every name
    assert allowed_hosts("::", "", ()) == loopback
    assert allowed_hosts("papers.local", "", ()) == (*loopback, "papers.local")
    assert allowed_hosts("192.168.1.5", "", ()) == (*loopback, "192.168.1.5")
    assert allowed_hosts("0.0.0.0", " team.example , [2001:db8::1]", ("Papers.Lab.Example.", "team.example")) == (
        *loopback, "team.example", "2001:db8::1", "papers.lab.example")  # fmt: skip


@pytest.mark.parametrize("bad", ["http://papers.example", "papers.example:8443", "*", "papers example", "a/b", "",
                                 "-x.example", "[::1"])  # fmt: skip
def test_a_name_that_is_not_a_host_name_is_one_line_naming_the_setting(bad: str) -> None:
    from ui.hosts import allowed_hosts

    with pytest.raises(ConfigError) as info:
        allowed_hosts("127.0.0.1", "", (bad,))
    message = str(info.value)
    assert "\n" not in message and message.startswith("ui_allowed_hosts (RAG_UI_ALLOWED_HOSTS, --allowed-host):")
    if bad:  # the same in the setting's comma-separated list (where an empty item is only a stray comma)
        with pytest.raises(ConfigError, match=r"^ui_allowed_hosts \(RAG_UI_ALLOWED_HOSTS, --allowed-host\): "):
            allowed_hosts("127.0.0.1", f"good.example,{bad}", ())


def _app(trust_forwarded_host: bool = False, names: tuple[str, ...] = ("localhost", "127.0.0.1", "::1")) -> Any:
    from ui.hosts import HostGuard

    async def page(request: Any) -> PlainTextResponse:
        return PlainTextResponse("Alberta Wells Dataset: 213,000 wells")

    async def socket(ws: WebSocket) -> None:
        await ws.accept()
        await ws.send_text("Alberta Wells Dataset")
        await ws.close()

    guard = Middleware(HostGuard, allowed=names, trust_forwarded_host=trust_forwarded_host)
    return Starlette(routes=[Route("/", page, methods=["GET", "POST", "OPTIONS"]), WebSocketRoute("/ws", socket)],
                     middleware=[guard])  # fmt: skip


def _refused(response: httpx.Response) -> str:
    assert response.status_code == 421, (response.status_code, response.text[:300])
    assert response.headers["content-type"].startswith("text/plain")
    assert response.headers.get("x-content-type-options") == "nosniff"
    body = response.text
    assert body.endswith("\n") and body.count("\n") == 1 and body.startswith("refused: "), body
    assert not any(word in body for word in LIBRARY_WORDS), body
    return body.strip()


def test_the_guard_refuses_other_hosts_on_every_method_and_on_websockets() -> None:
    client = TestClient(_app(), base_url="http://localhost:7860")
    for host in ("localhost:7860", "127.0.0.1", "127.0.0.1:1", "[::1]:7860", "LOCALHOST:7860", "localhost."):
        assert client.get("/", headers={"host": host}).text.startswith("Alberta"), host
    for method in ("GET", "POST", "OPTIONS"):
        body = _refused(client.request(method, "/", headers={"host": "evil.example:7860",
                                                            "origin": "http://evil.example:7860"}))  # fmt: skip
        assert body == ("refused: this server does not answer for the host 'evil.example'; if that is its name, "
                        "start it with --allowed-host evil.example (or RAG_UI_ALLOWED_HOSTS)")  # fmt: skip
    for host in ("localhost.evil.example", "127.0.0.1.nip.io:7860", "evil.example\x1b[31m", "[::2]:7860", ""):
        _refused(client.get("/", headers={"host": host}))
    with client.websocket_connect("/ws", headers={"host": "127.0.0.1:7860"}) as ws:
        assert ws.receive_text() == "Alberta Wells Dataset"
    with pytest.raises(WebSocketDisconnect), client.websocket_connect("/ws", headers={"host": "evil.example"}) as ws:
        ws.receive_text()


def test_behind_a_trusted_proxy_the_forwarded_host_must_be_allowed_too() -> None:
    trusted = TestClient(_app(trust_forwarded_host=True, names=("localhost", "papers.lab.example")))
    ok = {"host": "localhost:7861", "x-forwarded-host": "papers.lab.example"}
    assert trusted.get("/", headers=ok).status_code == 200
    _refused(trusted.get("/", headers={"host": "localhost:7861", "x-forwarded-host": "evil.example"}))
    # without a trusted proxy the header counts for nothing, as for the cross-origin check
    untrusted = TestClient(_app(names=("localhost",)))
    assert untrusted.get("/", headers={"host": "localhost", "x-forwarded-host": "evil.example"}).status_code == 200


# -- `rag ui` subprocesses --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def default_ui(tmp_path_factory: pytest.TempPathFactory, bundled_home: Path) -> Iterator[UIServer]:
    """`rag ui` as a user starts it: no --auth, no host named."""
    tmp = tmp_path_factory.mktemp("ui-hosts")
    shutil.copytree(bundled_home, tmp / "home")
    server = start_ui(tmp / "home", ARTIFACTS / "ui-hosts.log", env={"RAG_LLM": "extractive"})
    yield server
    server.stop()


@pytest.fixture(scope="module")
def team_ui(tmp_path_factory: pytest.TempPathFactory, bundled_home: Path) -> Iterator[UIServer]:
    """A team's host names from the option and from the setting."""
    tmp = tmp_path_factory.mktemp("ui-hosts-team")
    shutil.copytree(bundled_home, tmp / "home")
    server = start_ui(tmp / "home", ARTIFACTS / "ui-hosts-team.log", args=["--allowed-host", "papers.lab.example"],
                      env={"RAG_LLM": "extractive", "RAG_UI_ALLOWED_HOSTS": "team.example"})  # fmt: skip
    yield server
    server.stop()


def _port(server: UIServer) -> int:
    return int(server.url.rsplit(":", 1)[1])


JOIN = {"data": [ALBERTA], "fn_index": 0, "session_hash": "rebind1", "event_data": None, "trigger_id": None}
# (method, path, body): the page, its config and API description, the queue (join and its event stream), the
# heartbeat, a file route, and a CORS preflight (which gradio's own CORS middleware answers before ours run)
ENDPOINTS = [("GET", "/", None), ("GET", "/config", None), ("GET", "/gradio_api/info", None),
             ("POST", "/gradio_api/queue/join", JOIN), ("GET", "/gradio_api/queue/data?session_hash=rebind1", None),
             ("GET", "/gradio_api/heartbeat/rebind1", None), ("GET", "/gradio_api/file=/etc/hostname", None),
             ("OPTIONS", "/gradio_api/queue/join", None)]  # fmt: skip


def _send(http: httpx.Client, method: str, path: str, body: Any, host: str) -> httpx.Response:
    """The status, headers and first 4 kB of the answer (the heartbeat and the event stream never end)."""
    origin = f"http://{host}"
    headers = {"Host": host, "Origin": origin}  # the rebinding page's own origin: the cross-origin check passes it
    if method == "OPTIONS":
        headers["Access-Control-Request-Method"] = "POST"
    with http.stream(method, path, json=body, headers=headers) as response:
        start = b""
        for chunk in response.iter_bytes():
            start += chunk
            if len(start) > 4096:
                break
    kept = {k: v for k, v in response.headers.items() if k not in ("content-encoding", "content-length")}
    return httpx.Response(response.status_code, headers=kept, content=start)


@pytest.mark.slow
@pytest.mark.parametrize("method,path,body", ENDPOINTS, ids=[f"{m} {p.split('?')[0]}" for m, p, _ in ENDPOINTS])
def test_a_request_for_another_host_is_refused_with_no_library_data(
    default_ui: UIServer, method: str, path: str, body: Any
) -> None:
    port = _port(default_ui)
    with httpx.Client(base_url=default_ui.url, timeout=30) as http:
        for host in (f"evil.example:{port}", "evil.example", f"localhost.evil.example:{port}"):
            _refused(_send(http, method, path, body, host))


@pytest.mark.slow
def test_loopback_names_are_served_on_every_endpoint(default_ui: UIServer) -> None:
    port = _port(default_ui)
    with httpx.Client(base_url=default_ui.url, timeout=30) as http:
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", "localhost", f"LocalHost:{port}"):
            for path in ("/", "/config", "/gradio_api/info"):
                response = http.get(path, headers={"Host": host})
                assert response.status_code == 200, (host, path, response.status_code)
            assert "Alberta Wells Dataset" in http.get("/config", headers={"Host": host}).text


@pytest.mark.slow
def test_a_dns_rebinding_client_gets_no_answer_and_a_local_one_does(default_ui: UIServer) -> None:
    """The whole exchange a page of evil.example would run once its name points at 127.0.0.1 (before: the answer,
    213,000 wells, came back); gradio_client through /gradio_api/queue/join and the event stream."""
    from gradio_client import Client

    port = _port(default_ui)
    evil = {"Host": f"evil.example:{port}", "Origin": f"http://evil.example:{port}"}
    # the refusal (421 for /config and for the page it falls back to) is gradio_client's "Could not fetch config"
    # ValueError, raised before any question is sent; any other error (a crash, a refused connection) fails the test
    with pytest.raises(ValueError, match=r"^Could not fetch config for ") as info:
        Client(default_ui.url, headers=evil, verbose=False).predict(ALBERTA, api_name="/respond")
    assert "213,000" not in str(info.value)
    local = {"Host": f"localhost:{port}", "Origin": f"http://localhost:{port}"}
    answer = Client(default_ui.url, headers=local, verbose=False).predict(ALBERTA, api_name="/respond")
    assert "213,000" in str(answer)


@pytest.mark.slow
def test_the_teams_names_from_the_option_and_the_setting_are_served(team_ui: UIServer) -> None:
    port = _port(team_ui)
    with httpx.Client(base_url=team_ui.url, timeout=30) as http:
        for host in ("papers.lab.example", f"papers.lab.example:{port}", "TEAM.example:443", f"127.0.0.1:{port}"):
            assert http.get("/config", headers={"Host": host}).status_code == 200, host
        for host in ("evil.example", f"lab.example:{port}", "papers.lab.example.evil.example"):
            _refused(http.get("/config", headers={"Host": host}))
    assert ("answering requests for localhost, 127.0.0.1, ::1, team.example, papers.lab.example (any port)"
            in team_ui.log_text())  # fmt: skip


@pytest.mark.slow
def test_a_bad_allowed_host_stops_rag_ui_with_one_line(tmp_path: Path) -> None:
    proc = run_rag(["ui", "--allowed-host", "https://papers.lab.example/"], tmp_path / "home", timeout=90)
    line = assert_clean_failure(proc)
    assert line.startswith("error: ui_allowed_hosts (RAG_UI_ALLOWED_HOSTS, --allowed-host): 'https://papers.lab")


# -- in Chromium ------------------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1440x900", "390x844"])
@pytest.mark.parametrize("name", ["127.0.0.1", "localhost"])
def test_the_page_works_at_127_0_0_1_and_localhost(
    browser: Any, default_ui: UIServer, viewport: dict[str, int], name: str
) -> None:
    from playwright.sync_api import expect

    server = dataclasses.replace(default_ui, url=f"http://{name}:{_port(default_ui)}")
    extra = {"is_mobile": True, "has_touch": True} if viewport is PHONE else {}
    page, ctx = open_page(browser, server, viewport, **extra)
    try:
        message = page.ask(ALBERTA)
        expect(message).to_contain_text("213,000", timeout=TIMEOUT_MS)
        assert page.outside == [] and page.errors == [], (page.outside, page.errors)
        page.shot(f"ui-hosts-{name}-{viewport['width']}.png")
    finally:
        ctx.close()


@pytest.mark.slow
@pytest.mark.browser
def test_in_a_browser_a_rebound_name_is_refused_and_the_teams_name_works(browser: Any, team_ui: UIServer) -> None:
    """Chromium resolving evil.example and papers.lab.example to 127.0.0.1, as DNS rebinding and a team's DNS do
    (a second Chromium of the suite's Playwright, with a resolver rule)."""
    from playwright.sync_api import expect

    port = _port(team_ui)
    rules = "--host-resolver-rules=MAP evil.example 127.0.0.1, MAP papers.lab.example 127.0.0.1"
    mapped = browser.browser_type.launch(executable_path=CHROMIUM, headless=True, args=[*CHROMIUM_ARGS, rules])
    try:
        page = mapped.new_context(viewport=DESKTOP).new_page()
        response = page.goto(f"http://evil.example:{port}/")
        assert response is not None and response.status == 421
        text = page.locator("body").inner_text()
        assert text.startswith("refused: this server does not answer for the host 'evil.example'"), text
        assert not any(word in text for word in LIBRARY_WORDS)
        assert page.evaluate("fetch('/config').then(r => r.status)") == 421  # the page's own script: nothing either

        page.goto(f"http://papers.lab.example:{port}/")
        box = page.locator("#question").get_by_test_id("textbox")
        expect(box).to_be_editable(timeout=TIMEOUT_MS)
        box.fill(ALBERTA)
        page.locator("#question").get_by_test_id("submit-button").click()
        expect(page.get_by_test_id("bot").last).to_contain_text("213,000", timeout=TIMEOUT_MS)
    finally:
        mapped.close()
