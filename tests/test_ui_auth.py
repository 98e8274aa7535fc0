"""ui.auth: where the UI's password comes from, and LoginGuard (failed-login pauses, login for cancel/reset),
on a small Starlette app in-process. The same guard in front of the real app: tests/test_ui_operator.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from rag.errors import ConfigError
from ui.auth import CLI_WARNING, LoginGuard, parse_auth, resolve_auth


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
        return JSONResponse({"success": ok}, status_code=200 if ok else 400)

    async def cancel(request: Request) -> JSONResponse:
        return JSONResponse({"success": True})

    routes = [Route("/login", login, methods=["POST"]), Route("/gradio_api/cancel", cancel, methods=["POST"]),
              Route("/gradio_api/reset", cancel, methods=["POST"])]  # fmt: skip
    a = Starlette(routes=routes, middleware=[Middleware(LoginGuard, attempts=5, backoff_s=30.0, clock=clock)])
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
    paused = login(client, "right")  # even the right password waits out the pause
    assert paused.status_code == 429 and paused.headers["retry-after"] == "30"
    assert "too many failed logins" in paused.json()["detail"]
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
