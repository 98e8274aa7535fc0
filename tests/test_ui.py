"""The web UI through its API (gradio_client), against `rag ui` started as a subprocess.

One app for the module: a copy of the bundled index, a login, and a scripted
OpenAI-compatible server (tests/fault_server.py) configured as the endpoint, so "auto" means the openai backend
exactly as a user's server would be used; other tests pick "extractive".
"""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from tests.fault_server import FaultServer
from tests.ui_server import ROOT, UIServer, start_ui

pytestmark = pytest.mark.slow

USER, PASSWORD = "alice", "s3cret:with-colon"
ALBERTA = "How many wells are in the Alberta dataset?"
FAKE_REPLY = "Our curated dataset comprises over 213,000 wells from Alberta [1][9]."


@pytest.fixture(scope="module")
def ui(tmp_path_factory: pytest.TempPathFactory, bundled_home: Path) -> Iterator[UIServer]:
    tmp = tmp_path_factory.mktemp("ui-api")
    shutil.copytree(bundled_home, tmp / "home")
    with FaultServer(["ok"] * 8, reply=FAKE_REPLY) as llm:
        server = start_ui(
            tmp / "home", ROOT / "test-artifacts" / "ui-api.log",
            args=["--auth", f"{USER}:{PASSWORD}"],
            env={"OPENAI_BASE_URL": llm.base_url, "RAG_MODEL": "scripted", "RAG_UI_BACKENDS": "auto,extractive"},
        )
        print(f"UI answered after {server.started_s:.1f} s")
        yield server
        server.stop()


@pytest.fixture(scope="module")
def client(ui: UIServer) -> Any:
    from gradio_client import Client

    return Client(ui.url, auth=(USER, PASSWORD), verbose=False)


def ask(client: Any, message: str, **kwargs: Any) -> tuple[str, str]:
    answer, sources = client.predict(message=message, api_name="/respond", **kwargs)
    return str(answer), str(sources)


def test_startup_log(ui: UIServer) -> None:
    """(A missing index is no longer built at start-up, issue 24 item 5: tests/test_ui_browser_index.py.)"""
    log = ui.log_text()
    assert "nothing to answer from" not in log
    assert "Traceback" not in log
    assert "--auth puts the password in the process list" in log  # given on the command line: a warning


def test_respond_endpoint_signature(client: Any) -> None:
    api = client.view_api(print_info=False, return_format="dict")
    params = [p["parameter_name"] for p in api["named_endpoints"]["/respond"]["parameters"]]
    assert params == ["message", "backend", "model", "k", "year_min", "year_max", "venue", "author", "summary"]
    assert len(api["named_endpoints"]["/respond"]["returns"]) == 2  # the answer and the sources panel


def test_question_cites_the_right_paper_with_its_link(client: Any) -> None:
    answer, sources = ask(client, ALBERTA, backend="extractive")
    assert "213,000" in answer
    assert re.search(r'<a class="cite" href="#(a\d+)-src-1">\[1\]<span class="cite-tip"', answer)
    assert re.search(r'<details class="chip" id="a\d+-src-1">', answer)  # the message carries its own sources
    assert "answered by <b>extractive</b>" in answer
    assert re.search(r'id="p-a\d+-1" data-paper-id="icml2025-00"', sources)
    assert "Alberta Wells Dataset" in sources
    assert 'href="https://arxiv.org/abs/2410.09032" target="_blank" rel="noopener noreferrer"' in sources


def test_fake_llm_answer_loses_its_invalid_marker(client: Any) -> None:
    answer, sources = ask(client, ALBERTA, backend="auto")
    assert "213,000" in answer and "[9]" not in answer and "-src-9" not in answer
    assert "removed 1 citation" in answer
    assert "answered by <b>openai</b> (scripted)" in answer  # the endpoint answered, not the extractive fallback
    assert 'data-paper-id="icml2025-00"' in sources


def test_answers_stream_before_the_verified_text(ui: UIServer) -> None:
    from gradio_client import Client

    job = Client(ui.url, auth=(USER, PASSWORD), verbose=False).submit(
        message=ALBERTA, backend="extractive", api_name="/respond"
    )
    final = job.result(timeout=120)
    partials = [str(o[0]) for o in job.outputs()]
    assert any("Reading" in p for p in partials[:-1]), partials
    assert "answered by" in str(final[0]) and "answered by" not in partials[0]


def test_follow_up_uses_the_session_history(ui: UIServer) -> None:
    from gradio_client import Client

    session = Client(ui.url, auth=(USER, PASSWORD), verbose=False)
    ask(session, ALBERTA, backend="extractive")
    answer, sources = ask(session, "Who are its authors?", backend="extractive")
    assert "Rolnick" in answer or "Rolnick" in sources
    assert 'data-paper-id="icml2025-00"' in sources


@pytest.mark.parametrize(
    ("message", "kwargs", "expected"),
    [
        ("", {}, "empty"),
        ("   ", {}, "empty"),
        ("x" * 4500, {}, "limit"),
        (ALBERTA, {"year_min": "2026", "year_max": "2020"}, "year range"),
        (ALBERTA, {"year_min": "soon"}, "must be a year"),
    ],
)
def test_bad_input_is_a_warning_message(client: Any, message: str, kwargs: dict[str, Any], expected: str) -> None:
    answer, _ = ask(client, message, **({"backend": "extractive"} | kwargs))
    assert '<p class="error">⚠ ' in answer and expected in answer
    assert "Traceback" not in answer


def test_auth_refuses_a_wrong_password_and_accepts_the_right_one(ui: UIServer) -> None:
    with httpx.Client(base_url=ui.url, timeout=30) as http:
        assert http.get("/config").status_code == 401
        wrong = http.post("/login", data={"username": USER, "password": "wrong"})
        assert wrong.status_code in (400, 401)
        assert http.get("/config").status_code == 401
        right = http.post("/login", data={"username": USER, "password": PASSWORD})
        assert right.status_code == 200
        assert http.get("/config").status_code == 200
    from gradio_client import Client

    # the login is refused (gradio answers 400 "Incorrect Credentials"; the login pause 429): gradio_client raises
    # ValueError("Could not login to ..."), AuthenticationError (a ValueError) for a 401. A crash of the client or a
    # refused connection is another error, and fails this test.
    with pytest.raises(ValueError, match=r"^Could not login to "):
        Client(ui.url, auth=(USER, "wrong"), verbose=False)


def test_twenty_sessions_at_once_are_all_answered(ui: UIServer) -> None:
    from gradio_client import Client

    questions = [ALBERTA, "Which paper evaluates AI agents replicating ICML papers?",
                 "What is the stability-plasticity dilemma?", "Which datasets are introduced?"]

    def one(i: int) -> str:
        c = Client(ui.url, auth=(USER, PASSWORD), verbose=False)
        answer, _ = ask(c, questions[i % len(questions)], backend="extractive")
        return answer

    started = time.perf_counter()
    with ThreadPoolExecutor(20) as pool:
        answers = list(pool.map(one, range(20)))
    elapsed = time.perf_counter() - started
    print(f"20 concurrent sessions answered in {elapsed:.1f} s")
    assert len(answers) == 20
    assert all("answered by" in a for a in answers), [a[:200] for a in answers if "answered by" not in a]



# -- the chat function in-process, with a stub assistant: errors become one chat message ----------
class StubAssistant:
    def __init__(self, events: list[Any], error: Exception | None = None) -> None:
        self.events, self.error = events, error
        self.calls: list[tuple[str, list[dict[str, str]], dict[str, Any]]] = []
        self.chats = SimpleNamespace(unavailable=lambda backend: None)

    def floors(self) -> Any:
        from rag.answer.abstain import Floors

        return Floors(0.18)

    def ask_stream(self, question: str, history: Any, **kwargs: Any) -> Iterator[Any]:
        self.calls.append((question, list(history), kwargs))
        yield from self.events
        if self.error is not None:
            raise self.error


def run_respond(stub: StubAssistant, settings: Any, message: str = "q?", history: Any = (), **kw: Any) -> list[Any]:
    from ui.app import make_respond

    args = {"backend": "", "model": "", "k": settings.retrieval.k, "year_min": "", "year_max": "", "venue": "",
            "author": "", "summary": False, "state": {}}
    args.update(kw)
    respond = make_respond(stub, settings)  # type: ignore[arg-type]  # duck-typed stand-in
    return [(html, sources) for html, _, sources, _ in respond(message, list(history), *args.values())]


def _partial_events() -> list[Any]:
    from rag.types import DeltaEvent, Hit, Paper, SourcesEvent

    p = Paper(id="p-1", title="T", abstract="A.", url="https://example.org/p")
    return [SourcesEvent("q?", (Hit(p, "p-1:0", "A.", 0.9, 0.9),), "answer", "openai"), DeltaEvent("partial ")]


@pytest.mark.parametrize(
    "error",
    [
        "LLMError:the LLM endpoint http://127.0.0.1:9/v1 is unreachable after 4 retries",
        "StoreUnavailableError:the vector store at http://127.0.0.1:8765 is unreachable",
        "QuestionError:the question is empty; ask something about the papers",
    ],
)
def test_rag_errors_become_a_warning_message(error: str, settings: Any) -> None:
    from rag import errors

    name, message = error.split(":", 1)
    outputs = run_respond(StubAssistant(_partial_events(), getattr(errors, name)(message)), settings)
    final_message, final_sources = outputs[-1]
    assert '<p class="error">⚠ ' + message.replace("&", "&amp;") + "</p>" in final_message
    assert "No sources for this message" in final_sources
    assert any("partial" in o[0] for o in outputs[:-1])  # the raw deltas streamed first


def test_unexpected_errors_are_generic_and_logged(settings: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from ui.chat_flow import GENERIC_ERROR

    outputs = run_respond(StubAssistant(_partial_events(), RuntimeError("secret internals")), settings)
    assert "⚠ " + GENERIC_ERROR in outputs[-1][0]
    assert "secret" not in outputs[-1][0]
    err = capsys.readouterr().err
    assert "Traceback" in err and "RuntimeError: secret internals" in err


def test_respond_passes_history_filters_and_only_offered_options(settings: Any) -> None:
    from rag.filters import Filters

    s = settings.replace(ui_backends="auto,openai", ui_models="gpt-4o, gpt-4o-mini")
    stub = StubAssistant([])
    history = [{"role": "user", "content": "first <question>"}, {"role": "assistant", "content": "A & B [1]."}]
    run_respond(stub, s, "and then?", history, backend="openai", model=" gpt-4o ", k=s.retrieval.k + 3,
                year_min="2024", venue=" ICML ", summary=True)  # fmt: skip
    question, passed, kwargs = stub.calls[0]
    assert question == "and then?" and passed == history
    assert kwargs == {"llm": "openai", "model": "gpt-4o", "k": s.retrieval.k + 3,
                      "filters": Filters(2024, None, "ICML", None), "summary": True}  # fmt: skip
    run_respond(stub, s, "again")
    assert stub.calls[1][2] == {"llm": "auto", "model": "gpt-4o", "k": None, "filters": None, "summary": None}
    for refused in ({"backend": "extractive"}, {"model": "gpt-5"}):  # not in ui_backends / ui_models
        outputs = run_respond(stub, s, "q?", **refused)
        assert "not offered here" in outputs[-1][0]
    assert len(stub.calls) == 2  # refused before the assistant was asked


def test_a_k_beyond_the_maximum_is_capped_and_said(settings: Any) -> None:
    from rag.types import AnswerEvent
    from tests.test_ui_render import answer, hit, paper

    final = answer("A [1].", [hit(paper())], [1])
    stub = StubAssistant([AnswerEvent(final)])
    outputs = run_respond(stub, settings, k=99)
    assert stub.calls[0][2]["k"] == 20  # min(ui_max_k, max_k)
    assert "20 sources, the most allowed here (asked for 99)" in outputs[-1][0]


def test_parse_auth() -> None:
    from rag.errors import ConfigError
    from ui.auth import parse_auth

    assert parse_auth(None) is None and parse_auth("") is None
    assert parse_auth("bob:pa:ss") == ("bob", "pa:ss")
    for bad in ("bob", "bob:", ":pw"):
        with pytest.raises(ConfigError):
            parse_auth(bad)
