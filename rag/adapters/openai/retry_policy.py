"""Which endpoint failures are worth retrying, how long the server asked us to wait, and what a failed status
means in words a user can act on.

Plain values only (status codes, error codes, response headers): the client maps the SDK's exceptions onto them.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Mapping


def out_of_quota(status_code: int, error_code: object) -> bool:
    """A 429 that waiting will not cure: the account has no credit left."""
    return status_code == 429 and error_code == "insufficient_quota"


def retryable_status(status_code: int, error_code: object) -> bool:
    """Rate limits, request timeouts and server errors may pass; other statuses will not."""
    if out_of_quota(status_code, error_code):
        return False  # waiting will not bring credit back
    return status_code == 429 or status_code == 408 or status_code >= 500


def retry_after_s(headers: Mapping[str, str] | None) -> float | None:
    """Seconds the server asked us to wait (Retry-After-Ms / Retry-After, seconds or HTTP date), if it said."""
    if headers is None:
        return None
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return max(0.0, float(value) / divisor)
        except ValueError:
            pass
        if name == "retry-after":
            try:
                when = email.utils.parsedate_to_datetime(value)
            except (TypeError, ValueError):
                return None
            return max(0.0, when.timestamp() - time.time())
    return None


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
