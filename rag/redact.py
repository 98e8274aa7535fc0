"""Key-free text: URLs as shown to people and stored in reports, secrets masked, one line.

Anything printed or written (messages, notes, logs, eval summaries) that names an endpoint goes through here.
"""

from __future__ import annotations

import logging
import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

OPENAI_DEFAULT_URL = "https://api.openai.com/v1"
PLACEHOLDER_KEY = "not-needed"  # local servers ignore the key, but the SDK insists on one

_KEY_LIKE = re.compile(r"\b(sk|rk|pk)-[A-Za-z0-9_*-]{6,}")
_URL_IN_TEXT = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s'\"<>]+", re.IGNORECASE)


def display_url(base_url: str | None) -> str:
    """The endpoint as shown in messages: no credentials, query or fragment."""
    if not base_url:
        return OPENAI_DEFAULT_URL
    try:
        parts = urlsplit(base_url)
        host = parts.hostname or ""
        if parts.port is not None:
            host = f"{host}:{parts.port}"
    except ValueError:
        return "(unparsable URL)"
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


def mask_url(url: str) -> str:
    """The URL with its user-info and every query value replaced by ***: kept recognisable, never secret."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if parts.port is not None:
            host = f"{host}:{parts.port}"
    except ValueError:
        return "(unparsable URL)"
    if parts.username is not None or parts.password is not None:
        host = f"***@{host}"
    query = urlencode([(k, "***") for k, _ in parse_qsl(parts.query, keep_blank_values=True)], safe="*")
    return urlunsplit((parts.scheme, host, parts.path, query, ""))


def mask_urls_in(text: str) -> str:
    """Every URL inside a piece of text, masked (for messages that quote a URL)."""
    return _URL_IN_TEXT.sub(lambda m: mask_url(m.group(0)), text)


def redact(text: str, secret: str | None = None) -> str:
    """Remove the key (and anything that looks like one, or sits in a URL) from text meant for a message; keep
    it to one line."""
    if secret and secret != PLACEHOLDER_KEY:
        text = text.replace(secret, "***")
    text = mask_urls_in(_KEY_LIKE.sub(r"\1-***", text))
    text = " ".join(text.split())
    return text if len(text) <= 200 else text[:197] + "..."


class _MaskUrls(logging.Filter):
    """Masks every URL in a log record: httpx logs each request's full URL (user-info and query included) at
    INFO, so an application that shows INFO logs would print an OPENAI_BASE_URL's credentials."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = mask_urls_in(message)
        if masked != message:
            record.msg, record.args = masked, ()
        return True


# the loggers that print request URLs: httpx (chromadb's client) and httpx2 (the openai SDK's), and the SDKs
URL_LOGGERS = ("httpx", "httpx2", "httpcore", "openai", "openai._base_client", "chromadb")


def mask_urls_in_logs(names: tuple[str, ...] = URL_LOGGERS) -> None:
    """Add the URL-masking filter to those loggers (once each); the adapters call it when they are imported."""
    for name in names:
        logger = logging.getLogger(name)
        if not any(isinstance(f, _MaskUrls) for f in logger.filters):
            logger.addFilter(_MaskUrls())
