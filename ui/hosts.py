"""Answer only for the host names the UI is reachable as. No gradio here.

A page on another site can re-point its own name at 127.0.0.1 (DNS rebinding): the visitor's browser then sends
that page's requests to the UI with `Host: evil.example:PORT` and a matching `Origin`, and, being same-origin with
the page, lets it read the answers. What gives it away is the Host header: the UI answers only for loopback names
(localhost, 127.0.0.1, ::1), the host it was bound to, and the names the operator gives (`--allowed-host`,
`ui_allowed_hosts` / RAG_UI_ALLOWED_HOSTS: a team's name behind a proxy), on any port. Binding to 0.0.0.0 or ::
listens on every address but adds no name: the operator names the host visitors use. Every other request (HTTP or
websocket) gets 421 and one line of plain text, before anything of the app runs. Behind a trusted proxy
(`ui_trusted_proxies`) its X-Forwarded-Host must be one of these names too.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from rag.errors import ConfigError
from ui.auth import ASGI, Scope

LOOPBACK = ("localhost", "127.0.0.1", "::1")
ANY_ADDRESS = ("0.0.0.0", "::", "")  # bind addresses that are every address, not a name
SETTING = "ui_allowed_hosts (RAG_UI_ALLOWED_HOSTS, --allowed-host)"
_LABEL = re.compile(r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?")


def _normal(name: str) -> str | None:
    """`name` as it is compared (lower case, no brackets around an IPv6 address, no final dot), or None when it is
    not a host name or an IP address."""
    name = name.strip().lower()
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    name = name[:-1] if name.endswith(".") else name
    try:
        return str(ipaddress.ip_address(name))
    except ValueError:
        pass
    if not name or len(name) > 253 or not all(_LABEL.fullmatch(label) for label in name.split(".")):
        return None
    return name


def allowed_hosts(bind: str, setting: str, named: Iterable[str]) -> tuple[str, ...]:
    """The names to answer for: loopback, the bound host (unless it is every address), the setting's
    comma-separated names, then the ones named on the command line. A bad name is a one-line ConfigError."""
    names = list(LOOPBACK)
    if bind.strip() not in ANY_ADDRESS and (host := _normal(bind)) is not None:
        names.append(host)
    for given in [*(v for v in setting.split(",") if v.strip()), *named]:
        host = _normal(given)
        if given.strip() == "*":
            raise ConfigError(f"{SETTING}: '*' would answer for any host name, which is what lets another site's page "
                              "read the UI (DNS rebinding); name the hosts visitors use")  # fmt: skip
        if host is None:
            raise ConfigError(f"{SETTING}: {given!r} is not a host name; give the name visitors use, without scheme, "
                              "port or path, e.g. papers.lab.example (any port is answered)")  # fmt: skip
        names.append(host)
    return tuple(dict.fromkeys(names))


def host_of(header: str) -> str | None:
    """The name of a Host header (`evil.example:7872` -> evil.example, `[::1]:7860` -> ::1), or None when it names
    none (empty, a malformed port or brackets, characters no host name has)."""
    value = header.strip()
    port: str | None
    if value.startswith("["):  # [IPv6]:port
        name, bracket, rest = value.partition("]")
        name += bracket
        port = rest[1:] if rest.startswith(":") else None if not rest else "?"
    elif value.count(":") > 1:  # a bare IPv6 address
        name, port = value, None
    else:
        name, colon, after = value.partition(":")
        port = after if colon else None
    if port is not None and not port.isdigit():
        return None
    return _normal(name)


def _shown(value: str) -> str:
    return "".join(c for c in value if " " <= c <= "~")[:80]


def refusal(headers: Mapping[str, str], allowed: tuple[str, ...], trust_forwarded_host: bool = False) -> str | None:
    """Why a request is not for one of the `allowed` names, as one line, or None when it is."""
    claims = [("Host", headers.get("host"))]
    if trust_forwarded_host and headers.get("x-forwarded-host"):
        claims.append(("X-Forwarded-Host", headers["x-forwarded-host"].split(",")[0]))
    for header, value in claims:
        if not value or not value.strip():
            return f"refused: the request names no host (no {header} header)"
        name = host_of(value)
        if name is None:
            return f"refused: {_shown(value)!r} ({header}) is not a host name this server answers for"
        if name not in allowed:
            via = "" if header == "Host" else f" ({header})"
            return (f"refused: this server does not answer for the host '{name}'{via}; if that is its name, start it "
                    f"with --allowed-host {name} (or RAG_UI_ALLOWED_HOSTS)")  # fmt: skip
    return None


class HostGuard:
    """ASGI middleware: 421 with one line of plain text for an HTTP request, or a closed websocket, whose Host is
    not one of `allowed` (ui.hosts.allowed_hosts)."""

    def __init__(self, app: ASGI, allowed: tuple[str, ...] = LOOPBACK, trust_forwarded_host: bool = False) -> None:
        self.app, self.allowed, self.trust_forwarded_host = app, allowed, trust_forwarded_host

    async def __call__(self, scope: Scope, receive: Callable[[], Awaitable[Any]], send: Any) -> None:
        kind = scope.get("type")
        if kind in ("http", "websocket"):
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}
            why = refusal(headers, self.allowed, self.trust_forwarded_host)
            if why is not None:
                if kind == "websocket":
                    await receive()  # websocket.connect
                    await send({"type": "websocket.close", "code": 1008, "reason": why[:120]})
                else:
                    await _plain(send, 421, why)
                return
        await self.app(scope, receive, send)


async def _plain(send: Any, status: int, line: str) -> None:
    body = (line + "\n").encode("utf-8")
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode()),
        (b"x-content-type-options", b"nosniff"), (b"cache-control", b"no-store")]})  # fmt: skip
    await send({"type": "http.response.body", "body": body})
