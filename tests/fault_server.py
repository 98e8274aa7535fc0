"""A fault-injecting OpenAI-compatible HTTP server for tests (standard library only, 127.0.0.1, free port).

    with FaultServer(["429", "429", "ok"]) as server:
        settings = Settings(openai_base_url=server.base_url, ...)
        ...
        assert server.count == 3

Each POST to /v1/chat/completions or /v1/embeddings takes the next behaviour from the script:
  "ok"              stream REPLY as SSE chunks (+ a usage chunk when asked), or a JSON body when stream is false
  "429"             rate limited, with `Retry-After: 0`
  "quota"           429 with code insufficient_quota (retrying cannot help)
  "500", "503"      server errors
  "400", "401"      client errors (the 401 message echoes the API key, as careless servers do)
  "hang"            say nothing for `hang_s` seconds (longer than the client timeout), then close
  "drop_midstream"  send 2 content chunks, then close the socket in the middle of the chunked body
  "stall_midstream" send 2 content chunks, then say nothing for `hang_s` seconds
  "malformed"       200 with a body that is neither JSON nor SSE
  "bad_json"        200 SSE whose data line is not JSON
  "empty_choices"   one chunk with `choices: []`, then [DONE]
  "no_finish"       the reply's content chunks and [DONE], but never a finish_reason
  "sse_comments"    200 SSE that sends only `: keep-alive` comments, every 0.2 s, until the server stops: each read
                    returns in time, so the client's read timeout never fires
  "slow_tokens"     the reply's words one every `token_s` (0.3 s), then "more" forever: no finish in sight
  "endless"         words as fast as the socket takes them, forever, whatever max_tokens says
A request after the script ran out gets 418 (not retried by clients), so a test sees it at once.
`rules=[(text, behaviour), (text, "ok", reply), ...]`: a request whose JSON body contains `text` gets that
behaviour (and reply) instead, without using up the script: `[("You are grading", "500"), ("", "ok")]` fails
every LLM-as-judge call and answers everything else.
With reject_stream_options=True, any request carrying stream_options gets a 400 without using up the script.
GET /v1/models lists one model.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

REPLY_CHUNKS = ["Hello", " from", " the", " fault", " server."]
REPLY = "".join(REPLY_CHUNKS)
MODEL = "fault-model"
USAGE = {"prompt_tokens": 11, "completion_tokens": len(REPLY_CHUNKS), "total_tokens": 11 + len(REPLY_CHUNKS)}
BEHAVIOURS = {
    "ok", "429", "quota", "500", "503", "400", "401", "hang", "drop_midstream", "stall_midstream",
    "malformed", "bad_json", "empty_choices", "no_finish", "sse_comments", "slow_tokens", "endless",
}  # fmt: skip


def _chunk(content: str | None = None, finish: str | None = None, *, choices: bool = True) -> dict[str, Any]:
    body: dict[str, Any] = {"id": "chatcmpl-fault", "object": "chat.completion.chunk", "created": 0, "model": MODEL}
    if choices:
        delta = {"content": content} if content is not None else {}
        body["choices"] = [{"index": 0, "delta": delta, "finish_reason": finish}]
    else:
        body["choices"] = []
    return body


def _words(text: str) -> list[str]:
    """Word-sized chunks, each with the spaces after it."""
    return re.findall(r"\S*\s*", text)[:-1] or [text]


class FaultServer:
    def __init__(
        self,
        script: list[str],
        *,
        hang_s: float = 5.0,
        reject_stream_options: bool = False,
        api_key_echo: str = "sk-test-SECRET123",
        reply: str | None = None,
        delay_s: float = 0.0,
        rules: list[tuple[str, ...]] | None = None,
        token_s: float = 0.3,
    ) -> None:
        self.token_s = token_s
        self.rules = [(rule[0], rule[1], rule[2] if len(rule) > 2 else None) for rule in rules or []]
        unknown = [b for b in [*script, *(rule[1] for rule in self.rules)] if b not in BEHAVIOURS]
        if unknown:
            raise ValueError(f"unknown behaviours {unknown}; known: {sorted(BEHAVIOURS)}")
        self.script = list(script)
        # what "ok" streams: REPLY by default, or any text, cut into word-sized chunks `delay_s` apart
        self.reply_chunks = REPLY_CHUNKS if reply is None else _words(reply)
        self.reply = "".join(self.reply_chunks)
        self.delay_s = delay_s
        self.hang_s = hang_s
        self.reject_stream_options = reject_stream_options
        self.api_key_echo = api_key_echo
        self.requests: list[tuple[str, str, dict[str, Any]]] = []  # (method, path, json body)
        self.count = 0  # POSTs to chat/completions and embeddings
        self.closed_by_client = 0  # endless streams the client hung up on
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    def set_reply(self, reply: str | None = None, delay_s: float = 0.0, whole: bool = False) -> None:
        """What "ok" streams from now on (None: REPLY), `delay_s` between word-sized chunks (`whole`: the reply in
        one chunk, as a server that does not stream token by token sends it)."""
        with self._lock:
            words = [reply] if whole and reply else None
            self.reply_chunks = words or (REPLY_CHUNKS if reply is None else _words(reply))
            self.reply = "".join(self.reply_chunks)
            self.delay_s = delay_s

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return [body for method, _, body in self.requests if method == "POST"]

    def _next(self, body: dict[str, Any]) -> tuple[str, list[str]]:
        """The behaviour for this request and the reply chunks "ok" streams."""
        with self._lock:
            if self.reject_stream_options and "stream_options" in body:
                return "reject_stream_options", self.reply_chunks
            self.count += 1
            text = json.dumps(body)
            for needle, behaviour, reply in self.rules:
                if needle in text:
                    return behaviour, self.reply_chunks if reply is None else _words(reply)
            return (self.script.pop(0) if self.script else "exhausted"), self.reply_chunks

    def __enter__(self) -> FaultServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self._stop.set()  # wakes hanging handlers
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive and chunked bodies, like real endpoints

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet in tests
                pass

            # --- plumbing -------------------------------------------------------------------------------------
            def _json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def _error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
                self._json(status, {"error": {"message": message, "type": "fault", "code": status}}, headers)

            def _sse_start(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()

            def _write_chunked(self, data: bytes) -> None:
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()

            def _event(self, payload: Any) -> None:
                text = payload if isinstance(payload, str) else json.dumps(payload)
                self._write_chunked(f"data: {text}\n\n".encode())

            def _sse_end(self) -> None:
                self._event("[DONE]")
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

            def _abort(self) -> None:
                self.close_connection = True
                try:
                    self.wfile.flush()
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

            # --- routes ---------------------------------------------------------------------------------------
            def do_GET(self) -> None:  # noqa: N802
                with server._lock:
                    server.requests.append(("GET", self.path, {}))
                if self.path.rstrip("/") == "/v1/models":
                    self._json(200, {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "tests"}]})
                else:
                    self._error(404, f"no route {self.path}")

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                with server._lock:
                    server.requests.append(("POST", self.path, body))
                path = self.path.rstrip("/")
                if path not in ("/v1/chat/completions", "/v1/embeddings"):
                    self._error(404, f"no route {self.path}")
                    return
                behaviour, chunks = server._next(body)
                self._behave(behaviour, path, body, chunks)

            def _behave(self, behaviour: str, path: str, body: dict[str, Any], chunks: list[str]) -> None:
                stream = bool(body.get("stream"))
                if behaviour == "reject_stream_options":
                    self._error(400, "Unrecognized request argument supplied: stream_options")
                elif behaviour == "exhausted":
                    self._error(418, "fault script exhausted")
                elif behaviour == "429":
                    self._error(429, "Rate limit reached", {"Retry-After": "0"})
                elif behaviour == "quota":
                    error = {"message": "You exceeded your current quota", "type": "insufficient_quota"}
                    self._json(429, {"error": {**error, "code": "insufficient_quota"}})
                elif behaviour in ("500", "503", "400"):
                    self._error(int(behaviour), f"fault {behaviour}")
                elif behaviour == "401":
                    self._error(401, f"Incorrect API key provided: {server.api_key_echo}")
                elif behaviour == "hang":
                    server._stop.wait(server.hang_s)
                    self._abort()
                elif behaviour == "malformed":
                    data = b"<html><body>this is not an API</body></html>"
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                elif path == "/v1/embeddings":
                    self._embeddings(body)
                elif not stream:
                    self._json(200, self._completion("".join(chunks)))
                else:
                    self._stream(behaviour, body, chunks)

            def _forever(self, behaviour: str, chunks: list[str]) -> None:
                """Keep the stream open until the client goes away or the server stops."""
                words = iter(chunks)
                try:
                    while not server._stop.is_set():
                        if behaviour == "sse_comments":
                            self._write_chunked(b": keep-alive\n\n")
                            server._stop.wait(0.2)
                            continue
                        self._event(_chunk(next(words, "more ")))
                        if behaviour == "slow_tokens":
                            server._stop.wait(server.token_s)
                except OSError:  # the client closed the connection: what a bounded client does
                    with server._lock:
                        server.closed_by_client += 1
                self._abort()

            def _completion(self, reply: str) -> dict[str, Any]:
                return {
                    "id": "chatcmpl-fault",
                    "object": "chat.completion",
                    "created": 0,
                    "model": MODEL,
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}
                    ],
                    "usage": USAGE,
                }

            def _embeddings(self, body: dict[str, Any]) -> None:
                inputs = body.get("input") or []
                inputs = [inputs] if isinstance(inputs, str) else inputs
                data = [
                    {"object": "embedding", "index": i, "embedding": [float(len(str(t)) % 7), 1.0, 0.5, float(i)]}
                    for i, t in enumerate(inputs)
                ]
                data.reverse()  # clients must order by index
                self._json(200, {"object": "list", "data": data, "model": body.get("model"), "usage": USAGE})

            def _stream(self, behaviour: str, body: dict[str, Any], chunks: list[str]) -> None:
                self._sse_start()
                if behaviour == "bad_json":
                    self._write_chunked(b"data: {this is not json\n\n")
                    self._sse_end()
                    return
                if behaviour == "empty_choices":
                    self._event(_chunk(choices=False))
                    self._sse_end()
                    return
                self._event(_chunk(""))  # role-only first chunk, as OpenAI sends
                if behaviour in ("sse_comments", "slow_tokens", "endless"):
                    self._forever(behaviour, chunks)
                    return
                if behaviour in ("drop_midstream", "stall_midstream"):
                    for piece in chunks[:2]:
                        self._event(_chunk(piece))
                    time.sleep(0.05)  # let the client read what was sent
                    if behaviour == "stall_midstream":
                        server._stop.wait(server.hang_s)
                    self._abort()
                    return
                for piece in chunks:
                    if server.delay_s:
                        time.sleep(server.delay_s)
                    self._event(_chunk(piece))
                if behaviour != "no_finish":
                    self._event(_chunk(finish="stop"))
                if (body.get("stream_options") or {}).get("include_usage"):
                    usage_chunk = _chunk(choices=False)
                    usage_chunk["usage"] = USAGE
                    self._event(usage_chunk)
                self._sse_end()

        return Handler
