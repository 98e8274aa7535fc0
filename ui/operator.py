"""Operator mode: whether the page shows the server's data directory and offers to write into the index. No gradio.

A UI that serves only loopback without a login has one user, the operator: the page names the data directory in
the commands it suggests and offers "Index the sample papers here". With `--auth` or listening beyond loopback,
the visitors are a team: they see the collection's name and paper count, never an absolute path, and the index
is written only by the operator (`rag index` on the server); ui.live_index refuses the write even when asked
through a crafted API call. `ui_operator_controls` (RAG_UI_OPERATOR_CONTROLS, `rag ui --operator-controls`):
auto (that rule), on or off.
"""

from __future__ import annotations

import ipaddress

from rag.errors import RagError

LOOPBACK_NAMES = ("localhost",)
REFUSED = ("indexing from the page is for the operator only: ask them to run `rag index` on the server, or to start "
           "the UI with --operator-controls on")  # fmt: skip


class OperatorOnly(RagError):
    """A visitor asked for what only the operator may do."""


def is_loopback(host: str) -> bool:
    name = host.strip().lower().strip("[]")
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def operator_controls(setting: str, host: str, auth: bool) -> bool:
    """Whether the page is the operator's: `setting` on/off as given; auto: on when it serves only loopback
    (`host`) and asks for no login (`auth`)."""
    if setting in ("on", "off"):
        return setting == "on"
    return is_loopback(host) and not auth

