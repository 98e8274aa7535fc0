"""Key-free text about an LLM endpoint: its URL as shown to people, secrets masked, and why a request failed.

No SDK here: rag.llm maps the SDK's errors onto the plain values these functions take.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

OPENAI_DEFAULT_URL = "https://api.openai.com/v1"
PLACEHOLDER_KEY = "not-needed"  # local servers ignore the key, but the SDK insists on one

_KEY_LIKE = re.compile(r"\b(sk|rk|pk)-[A-Za-z0-9_*-]{6,}")


def display_url(base_url: str | None) -> str:
    """The endpoint as shown in messages: no credentials, query or fragment."""
    if not base_url:
        return OPENAI_DEFAULT_URL
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


def redact(text: str, secret: str | None) -> str:
    """Remove the key (and anything that looks like one) from text meant for a message; keep it to one line."""
    if secret and secret != PLACEHOLDER_KEY:
        text = text.replace(secret, "***")
    text = _KEY_LIKE.sub(r"\1-***", text)
    text = " ".join(text.split())
    return text if len(text) <= 200 else text[:197] + "..."


def status_reason(code: int, *, out_of_quota: bool) -> str | None:
    """A short reason for an HTTP error status the user can act on; None when only the server's message helps."""
    if out_of_quota:
        return "out of quota (429): check the account's plan and billing"
    if code == 429:
        return "rate limited (429)"
    if code >= 500:
        return f"server error ({code})"
    if code == 401:
        return "authentication failed (401): check the API key (OPENAI_API_KEY)"
    if code == 403:
        return "permission denied (403): the API key may lack access to this model"
    if code == 404:
        return "not found (404): check the base URL (it usually ends in /v1) and the model name"
    return None
