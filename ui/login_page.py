"""The login page says why a login waits. No gradio here.

gradio's login form shows "Incorrect Credentials" for a 400 and nothing at all for any other refusal, so after
too many attempts (ui.auth.LoginGuard answers 429) a visitor typing the right password saw nothing happen. The
page a visitor who has not logged in gets is given one small script (ui/static/login.js) that shows the server's
message ("Too many attempts: wait 30 s, then log in again.") in the form, as an alert a screen reader reads out.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

SCRIPT = (Path(__file__).parent / "static" / "login.js").read_text(encoding="utf-8")
_TAG = f"<script>{SCRIPT}</script>".encode()
Send = Callable[[Any], Awaitable[None]]


def add_script(html: bytes) -> bytes:
    """The page with the login script before `</head>` (or at the end when it has no head)."""
    at = html.lower().find(b"</head>")
    return html[:at] + _TAG + html[at:] if at >= 0 else html + _TAG


def with_login_note(send: Send) -> Send:
    """An ASGI `send` that adds the script to an HTML response (plain, not compressed); anything else passes."""
    start: dict[str, Any] | None = None
    body: list[bytes] = []

    async def wrapped(message: Any) -> None:
        nonlocal start
        kind = message.get("type")
        if kind == "http.response.start":
            headers = {k.lower(): v for k, v in message.get("headers") or []}
            html = headers.get(b"content-type", b"").startswith(b"text/html")
            if html and b"content-encoding" not in headers:
                start = message
                return
        elif kind == "http.response.body" and start is not None:
            body.append(message.get("body", b""))
            if message.get("more_body"):
                return
            page = add_script(b"".join(body))
            kept = [(k, v) for k, v in start.get("headers") or [] if k.lower() != b"content-length"]
            await send({**start, "headers": [*kept, (b"content-length", str(len(page)).encode())]})
            await send({"type": "http.response.body", "body": page})
            return
        await send(message)

    return wrapped
