"""`rag ui`: serve the app of ui.app until interrupted, behind the access guards. No gradio import here.

Before the app is built: the host names to answer for are settled (ui.hosts: loopback, the bound host,
`--allowed-host` and `ui_allowed_hosts`), uvicorn is told which proxies' X-Forwarded-* to believe
(`ui_trusted_proxies`, default none), gradio's file cache (where exported conversations go) is a private directory
removed at exit, and the index is opened, or found missing (ui.live_index: the page then says so and offers the
sample papers).
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import threading
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from starlette.middleware import Middleware

from rag.settings import Settings
from ui import auth as access
from ui.app import CSS, I18N, THEME, build_app
from ui.auth import LOGIN_ATTEMPTS, LOGIN_BACKOFF_S, LoginGuard, resolve_auth
from ui.hosts import ANY_ADDRESS, HostGuard, allowed_hosts
from ui.live_index import LiveIndex
from ui.operator import operator_controls
from ui.origin import SameOriginGuard


def _raise_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


@asynccontextmanager
async def _host_guard_first(app: Any) -> AsyncIterator[None]:
    """At start-up, before the first connection: put HostGuard in front of the middleware gradio adds to the front
    (`add_middleware` inserts there; its CORS middleware answers a preflight OPTIONS itself), so no request for
    another host reaches anything of the app. The app builds its middleware stack again on the next request."""
    app.user_middleware.sort(key=lambda m: m.cls is not HostGuard)
    app.middleware_stack = None
    yield


def serve(settings: Settings, host: str = "127.0.0.1", port: int = 7860, auth: str | None = None,
          auth_file: str | None = None, allowed: Sequence[str] = ()) -> int:  # fmt: skip
    """Open the index (or say it is missing), then serve the UI until interrupted. Returns the exit code.
    `allowed`: host names to answer for besides loopback, `host` and `ui_allowed_hosts` (`--allowed-host`)."""
    names = allowed_hosts(host, settings.ui.ui_allowed_hosts, allowed)
    credentials, warnings = resolve_auth(auth, auth_file)
    for warning in warnings:
        print(warning, file=sys.stderr, flush=True)
    print(f"answering requests for {', '.join(names)} (any port); others get 421", flush=True)
    if host.strip() in ANY_ADDRESS and len(names) == 3:
        print(f"note: --host {host or '(any)'} listens on every address, but a visitor's browser sends the name it "
              "used, and only the names above are answered: add it with --allowed-host NAME (RAG_UI_ALLOWED_HOSTS)",
              file=sys.stderr, flush=True)  # fmt: skip
    proxies = access.trusted_proxies(settings.ui.ui_trusted_proxies)
    os.environ["FORWARDED_ALLOW_IPS"] = proxies  # uvicorn believes X-Forwarded-* from these only (default: none)
    cache = access.private_cache()  # gradio's file cache (exported conversations): this user's only, gone at exit
    os.environ["GRADIO_TEMP_DIR"] = str(cache)
    operator = operator_controls(settings.ui.ui_operator_controls, host, auth=credentials is not None)
    print("operator mode " + ("on: the page shows the data directory and offers to index the sample papers"
                              if operator else "off: no path in the page, no indexing from it"), flush=True)
    live = LiveIndex(settings, operator=operator)
    access.browser_secret(settings.home, create=True)  # conversations kept in browsers outlive a restart
    if live.missing:
        print(f"note: nothing to answer from: {live.missing}; the page offers to index the sample papers", flush=True)
    guards = [Middleware(HostGuard, allowed=names, trust_forwarded_host=bool(proxies)),
              Middleware(SameOriginGuard, trust_forwarded_host=bool(proxies)),
              Middleware(LoginGuard, attempts=LOGIN_ATTEMPTS, backoff_s=LOGIN_BACKOFF_S)]  # fmt: skip
    try:
        demo = build_app(live, settings)
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, _raise_interrupt)  # terminate = Ctrl-C: close the local LLM too
        demo.queue(default_concurrency_limit=settings.ui.ui_concurrency).launch(
            server_name=host, server_port=port, auth=credentials, auth_message="Paper QA: please log in.",
            theme=THEME, css=CSS, footer_links=["api", "settings"], show_error=False, ssr_mode=False, i18n=I18N,
            app_kwargs={"middleware": guards, "lifespan": _host_guard_first},
        )  # fmt: skip
    except OSError as exc:
        print(f"error: cannot serve on {host}:{port}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        pass
    finally:
        live.close()
        shutil.rmtree(cache, ignore_errors=True)
    return 0
