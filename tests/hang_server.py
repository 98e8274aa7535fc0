"""A TCP proxy on 127.0.0.1 that can go silent: it forwards to a real server (a `chroma run`) until `hang` is
set, then accepts connections and reads requests but never answers (a stuck server behind a load balancer).

    with HangProxy("127.0.0.1", 8000) as proxy:        # proxy.url -> http://127.0.0.1:<free port>
        proxy.hang.set()                                # from now on nothing is answered
"""

from __future__ import annotations

import contextlib
import socket
import threading
from types import TracebackType


class HangProxy:
    def __init__(self, host: str | None = None, port: int | None = None, *, hang: bool = False) -> None:
        self.target = (host, port) if host and port else None  # no target: silent from the start
        self.hang = threading.Event()
        if hang or self.target is None:
            self.hang.set()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.2)
        self._stop = threading.Event()
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self.accepted = 0
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"

    def __enter__(self) -> HangProxy:
        threading.Thread(target=self._accept, name="hang-proxy", daemon=True).start()
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self._stop.set()
        with self._lock:
            for s in self._sockets:
                with contextlib.suppress(OSError):
                    s.close()
        self._listener.close()

    def _keep(self, s: socket.socket) -> None:
        with self._lock:
            self._sockets.append(s)

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self._listener.accept()
            except (TimeoutError, OSError):
                continue
            self.accepted += 1
            self._keep(client)
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        upstream = None
        if not self.hang.is_set() and self.target is not None:
            try:
                upstream = socket.create_connection(self.target, timeout=10)
                upstream.settimeout(None)
                self._keep(upstream)
                threading.Thread(target=self._pipe, args=(upstream, client, False), daemon=True).start()
            except OSError:
                upstream = None
        self._pipe(client, upstream, True)

    def _pipe(self, src: socket.socket, dst: socket.socket | None, from_client: bool) -> None:
        """Copy src to dst; bytes from the client are swallowed once `hang` is set (or with no upstream)."""
        try:
            while not self._stop.is_set():
                data = src.recv(65536)
                if not data:
                    break
                if dst is None or (from_client and self.hang.is_set()):
                    continue  # read, never answered
                dst.sendall(data)
        except OSError:
            pass
        finally:
            if dst is not None and not self.hang.is_set():
                with contextlib.suppress(OSError):
                    dst.shutdown(socket.SHUT_WR)
