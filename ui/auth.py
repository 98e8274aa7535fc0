"""The UI's login: where the password comes from, and a guard in front of gradio's routes. No gradio here.

- The password stays out of `ps`: read it from RAG_UI_AUTH or a file (`--auth-file`); `--auth USER:PASSWORD` on
  the command line still works but warns.
- LoginGuard (an ASGI middleware) pauses a client after `attempts` failed logins: further tries get 429 with
  Retry-After for `backoff_s`, doubling with each failure after that, and the message "too many attempts: wait
  N s" (the login page shows it: ui.login_page); a successful login resets the count. During a pause the right
  password is refused too: accepting it would let a guesser go on at full speed, each wrong guess answered.
  The client is the connecting address: X-Forwarded-For counts only from the proxies the operator names
  (`ui_trusted_proxies`; uvicorn applies it before this guard sees the request).
- The login cookies get `SameSite=Lax` (gradio sets `SameSite=None` on one of them, which lets other sites' requests
  carry it) and `Secure` when the page was served over https (directly or by a trusted proxy), HttpOnly as before.
- It also refuses gradio's /gradio_api/cancel and /gradio_api/reset without a login, which gradio leaves open.
"""

from __future__ import annotations

import ipaddress
import json
import os
import secrets
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from pathlib import Path
from typing import Any

from rag.errors import ConfigError
from ui.login_page import with_login_note

CLI_WARNING = ("warning: --auth puts the password in the process list (ps); "
               "use RAG_UI_AUTH or --auth-file FILE instead")  # fmt: skip
PROTECTED = ("/gradio_api/cancel", "/gradio_api/reset")
LOGIN_ATTEMPTS, LOGIN_BACKOFF_S = 5, 30.0  # failed logins per client before a pause; the first pause (then doubling)
MAX_PAUSE_S = 3600.0
Scope = MutableMapping[str, Any]
ASGI = Callable[[Scope, Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Awaitable[None]]


def parse_auth(auth: str | None) -> tuple[str, str] | None:
    if not auth:
        return None
    user, sep, password = auth.partition(":")
    if not sep or not user or not password:
        raise ConfigError("--auth / --auth-file / RAG_UI_AUTH expects USER:PASSWORD")
    return user, password


def read_auth_file(path: str) -> tuple[tuple[str, str] | None, list[str]]:
    p = Path(path).expanduser()
    try:
        line = next((ln.strip() for ln in p.read_text(encoding="utf-8").splitlines() if ln.strip()), "")
        mode = p.stat().st_mode
    except OSError as exc:
        raise ConfigError(f"--auth-file {path}: {exc.strerror or exc}") from None
    if not line:
        raise ConfigError(f"--auth-file {path} is empty; write USER:PASSWORD in it")
    warnings = [f"warning: {path} can be read by other users; chmod 600 it"] if mode & 0o077 else []
    return parse_auth(line), warnings


def resolve_auth(
    cli: str | None, auth_file: str | None, env: Mapping[str, str] | None = None
) -> tuple[tuple[str, str] | None, list[str]]:
    """(user, password) from --auth-file, --auth or RAG_UI_AUTH (in that order), and the warnings to print."""
    env = os.environ if env is None else env
    if auth_file:
        return read_auth_file(auth_file)
    if cli:
        return parse_auth(cli), [CLI_WARNING]
    return parse_auth(env.get("RAG_UI_AUTH")), []


def trusted_proxies(value: str) -> str:
    """`ui_trusted_proxies` checked: comma-separated IP addresses or networks ("" = no proxy is trusted)."""
    names = [v.strip() for v in value.split(",") if v.strip()]
    for name in names:
        try:
            ipaddress.ip_network(name, strict=False)
        except ValueError:
            raise ConfigError(f"ui_trusted_proxies (RAG_UI_TRUSTED_PROXIES): {name!r} is not an IP address or "
                              "network; list the addresses of the proxies in front, e.g. 127.0.0.1") from None
    return ",".join(names)


def private_cache() -> Path:
    """A directory only this user can read (0700), for the files gradio serves (exports); removed at exit."""
    return Path(tempfile.mkdtemp(prefix="rag-ui-", dir=os.environ.get("GRADIO_TEMP_DIR") or None))


def browser_secret(home: Path, create: bool = False) -> str:
    """The secret gr.BrowserState encrypts the conversation with, from `home`/ui-secret (made, 0600, by `rag ui`
    when home exists); a fresh one per process otherwise (conversations then survive a reload, not a restart)."""
    path = home / "ui-secret"
    try:
        if create and not path.exists() and home.is_dir():
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(secrets.token_urlsafe(24))
        text = path.read_text(encoding="utf-8").strip()
        if len(text) >= 16:
            return text
    except OSError:
        pass
    return secrets.token_urlsafe(24)


class LoginGuard:
    """ASGI middleware: failed-login pauses per client, and login required for cancel/reset."""

    def __init__(self, app: ASGI, attempts: int = 5, backoff_s: float = 30.0,
                 clock: Callable[[], float] = time.monotonic) -> None:  # fmt: skip
        self.app, self.attempts, self.backoff_s, self.clock = app, attempts, backoff_s, clock
        self.failures: dict[str, int] = {}
        self.paused_until: dict[str, float] = {}

    async def __call__(self, scope: Scope, receive: Callable[[], Awaitable[Any]], send: Any) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path") or "").rstrip("/")
        if path in PROTECTED and _auth_on(scope) and not _logged_in(scope):
            await reply(send, 401, {"detail": "Not authenticated"})
            return
        if path.endswith("/login") and scope.get("method") == "POST":
            await self._login(scope, receive, send)
            return
        if scope.get("method") == "GET" and _auth_on(scope) and not _logged_in(scope):
            await self.app(scope, receive, with_login_note(send))  # the login page: show why a login waits
            return
        await self.app(scope, receive, send)

    async def _login(self, scope: Scope, receive: Callable[[], Awaitable[Any]], send: Any) -> None:
        client = str((scope.get("client") or ("?", 0))[0])
        wait = self.paused_until.get(client, 0.0) - self.clock()
        if wait > 0:
            seconds = max(1, round(wait))
            await reply(send, 429, {"detail": f"Too many attempts: wait {seconds} s, then log in again."},
                        {"retry-after": str(seconds)})  # fmt: skip
            return
        status: list[int] = []
        https = scope.get("scheme") == "https"

        async def watch(message: Any) -> None:
            if message.get("type") == "http.response.start":
                status.append(int(message.get("status", 0)))
                message = {**message, "headers": [(k, cookie_flags(v, https) if k.lower() == b"set-cookie" else v)
                                                  for k, v in message.get("headers") or []]}  # fmt: skip
            await send(message)

        await self.app(scope, receive, watch)
        if status and status[0] < 300:
            self.failures.pop(client, None)
            self.paused_until.pop(client, None)
        elif status and status[0] in (400, 401, 403):
            n = self.failures[client] = self.failures.get(client, 0) + 1
            if n >= self.attempts:
                self.paused_until[client] = self.clock() + min(MAX_PAUSE_S, self.backoff_s * 2 ** (n - self.attempts))
            if len(self.failures) > 10_000:  # a flood of addresses: forget the oldest
                for key in list(self.failures)[:1000]:
                    self.failures.pop(key, None)
                    self.paused_until.pop(key, None)


def _auth_on(scope: Scope) -> bool:
    app = scope.get("app")
    return getattr(app, "auth", None) is not None or getattr(app, "auth_dependency", None) is not None


def _logged_in(scope: Scope) -> bool:
    app = scope.get("app")
    tokens, cookie_id = getattr(app, "tokens", {}) or {}, getattr(app, "cookie_id", "")
    cookies: dict[str, str] = {}
    for name, value in scope.get("headers") or []:
        if name == b"cookie":
            for part in value.decode("latin-1").split(";"):
                key, _, val = part.strip().partition("=")
                cookies[key] = val
    token = cookies.get(f"access-token-{cookie_id}") or cookies.get(f"access-token-unsecure-{cookie_id}")
    return bool(token) and token in tokens


def cookie_flags(header: bytes, https: bool) -> bytes:
    """A Set-Cookie header with `SameSite=Lax`, and `Secure` exactly when the page is served over https."""
    parts = [p.strip() for p in header.decode("latin-1").split(";") if p.strip()]
    kept = [p for p in parts if p.split("=", 1)[0].strip().lower() not in ("samesite", "secure")]
    return "; ".join([*kept, "SameSite=Lax", *(["Secure"] if https else [])]).encode("latin-1")


async def reply(send: Any, status: int, body: dict[str, Any], headers: Mapping[str, str] | None = None) -> None:
    data = json.dumps(body).encode()
    head = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    head += [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": head})
    await send({"type": "http.response.body", "body": data})
