"""Refuse requests that change something when they come from another site's page. No gradio here.

A page on another site can make a visitor's browser POST to the UI (a form, a fetch): log them in as someone
else, start answers, upload files. Browsers say where such a request comes from (`Origin`, else `Referer`;
`Sec-Fetch-Site`), so a POST, PUT, PATCH or DELETE whose origin is not this host is answered 403. A request that
names no origin at all (gradio_client, curl) is not a browser acting for another site and passes. This host is
the `Host` header, or `X-Forwarded-Host` when the operator names the proxies in front (`ui_trusted_proxies`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

from ui.auth import ASGI, Scope, reply

UNSAFE_METHODS = ("POST", "PUT", "PATCH", "DELETE")
_DEFAULT_PORTS = {"http": "80", "https": "443"}


def _netloc(scheme: str, host: str) -> str:
    host = host.strip().lower()
    port = _DEFAULT_PORTS.get(scheme)
    return host[: -len(port) - 1] if port and host.endswith(f":{port}") else host


def refusal(headers: Mapping[str, str], trust_forwarded_host: bool = False) -> str | None:
    """Why a state-changing request comes from another site, or None when it does not (or says nothing)."""
    if headers.get("sec-fetch-site", "").lower() == "cross-site":
        return "a request from another site's page"
    claimed = headers.get("origin") or headers.get("referer")
    if claimed is None:
        return None
    parts = urlsplit(claimed.strip())
    if claimed.strip() == "null" or parts.scheme not in _DEFAULT_PORTS or not parts.netloc:
        return f"a request from a page of unknown origin ({claimed.strip()[:80]!r})"
    origin = _netloc(parts.scheme, parts.netloc)
    hosts = [headers.get("host", "")]
    if trust_forwarded_host and headers.get("x-forwarded-host"):
        hosts.append(headers["x-forwarded-host"].split(",")[0])
    if any(origin == _netloc(parts.scheme, h) for h in hosts if h):
        return None
    return f"a request from {parts.scheme}://{parts.netloc[:80]}, not from this site"


class SameOriginGuard:
    """ASGI middleware: 403 for state-changing requests from other sites' pages."""

    def __init__(self, app: ASGI, trust_forwarded_host: bool = False) -> None:
        self.app, self.trust_forwarded_host = app, trust_forwarded_host

    async def __call__(self, scope: Scope, receive: Callable[[], Awaitable[Any]], send: Any) -> None:
        if scope.get("type") == "http" and scope.get("method") in UNSAFE_METHODS:
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}
            why = refusal(headers, self.trust_forwarded_host)
            if why is not None:
                await reply(send, 403, {"detail": f"refused: {why} (cross-origin requests are not accepted)"})
                return
        await self.app(scope, receive, send)
