"""An OpenAI-compatible server that replays recorded strong-model answers (eval/recorded/*.jsonl), streamed as
SSE like a real endpoint. For the evaluation harness and tests, never a product path.

It reads the question and the numbered sources from the product's own prompt, finds the recorded answer for
that question, and writes each `[@paper-id]` placeholder as the number the prompt gave that paper (a paper
that was not retrieved gets a number no source has). A question it has no recording for gets the refusal
sentence. Standard library only; 127.0.0.1 on a free port.

    with ReplayServer(recorded, titles) as server:    # titles: paper id -> title, to read the prompt's numbering
        settings = settings.replace(llm="openai", openai_base_url=server.base_url)
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from eval.recorded import Recorded, question_key, render
from rag.answer.citations import REFUSAL

MODEL = "recorded-strong-model"
_QUESTION = re.compile(r"^Question:\s*(.*?)\s*(?:\n\s*\n|\Z)", re.MULTILINE | re.DOTALL)
_SOURCE_HEADER = re.compile(r"^\[(\d+)\] (.+)$", re.MULTILINE)
_DELTA = re.compile(r"\S*\s*")


class ReplayServer:
    def __init__(self, recorded: Sequence[Recorded], titles: Mapping[str, str], *, delay_s: float = 0.0) -> None:
        self.recorded = {question_key(r.question): r for r in recorded}
        self.titles = dict(titles)
        self.delay_s = delay_s
        self.requests = 0
        self.unmatched: list[str] = []  # questions with no recording
        self._lock = threading.Lock()
        self._httpd = _QuietServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> ReplayServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="replay-server", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    # -- what to say ------------------------------------------------------------------------------------------
    def numbering(self, prompt: str) -> dict[str, int]:
        """Paper id -> the [n] the prompt's source list gives it (matched by title, longest title first)."""
        by_title = sorted(self.titles.items(), key=lambda kv: -len(kv[1]))
        out: dict[str, int] = {}
        for m in _SOURCE_HEADER.finditer(prompt):
            header = m.group(2)
            for pid, title in by_title:
                if header.startswith(title) and pid not in out:
                    out[pid] = int(m.group(1))
                    break
        return out

    def reply_for(self, messages: Sequence[Mapping[str, Any]]) -> str:
        prompt = "\n".join(str(m.get("content", "")) for m in messages if m.get("role") == "user")
        found = _QUESTION.search(prompt)
        question = found.group(1) if found else ""
        rec = self.recorded.get(question_key(question))
        if rec is None:
            with self._lock:
                self.unmatched.append(question)
            return REFUSAL
        numbers = self.numbering(prompt)
        return render(rec.text(), numbers, missing=len(_SOURCE_HEADER.findall(prompt)) + 1)

    # -- HTTP -------------------------------------------------------------------------------------------------
    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

            def _send(self, status: int, payload: Any) -> None:
                body = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:  # noqa: N802
                if self.path.rstrip("/") == "/v1/models":
                    self._send(200, {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "eval"}]})
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    self._send(400, {"error": {"message": "invalid JSON"}})
                    return
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                with server._lock:
                    server.requests += 1
                reply = server.reply_for(body.get("messages") or [])
                usage = {"prompt_tokens": 0, "completion_tokens": len(reply.split()), "total_tokens": 0}
                if not body.get("stream"):
                    choice = {"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}
                    self._send(200, {"id": "replay", "object": "chat.completion", "model": MODEL,
                                     "choices": [choice], "usage": usage})  # fmt: skip
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                self._event(_chunk(""))
                for delta in (d for d in _DELTA.findall(reply) if d):
                    if server.delay_s:
                        time.sleep(server.delay_s)
                    self._event(_chunk(delta))
                self._event(_chunk(None, "stop"))
                if (body.get("stream_options") or {}).get("include_usage"):
                    self._event({**_chunk(None), "choices": [], "usage": usage})
                self._event("[DONE]")
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

            def _event(self, payload: Any) -> None:
                data = (payload if isinstance(payload, str) else json.dumps(payload)).encode()
                line = b"data: " + data + b"\n\n"
                self.wfile.write(f"{len(line):x}\r\n".encode() + line + b"\r\n")
                self.wfile.flush()

        return Handler


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up (the answer step stops reading after it has what it needs) is not an error."""


def _chunk(content: str | None, finish: str | None = None) -> dict[str, Any]:
    delta = {"content": content} if content is not None else {}
    return {"id": "replay", "object": "chat.completion.chunk", "created": 0, "model": MODEL,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}  # fmt: skip
