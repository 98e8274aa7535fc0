"""Credentials inside URLs (issue 14 item 3): `OPENAI_BASE_URL=http://user:KEY@host/v1?api-key=KEY` and a
`RAG_CHROMA_URL` with user-info and a token never appear in what `rag` prints (answers, notes, errors, logging
output on stderr) or stores (eval summary.json, results, report, the run log, the index). The URL stays
recognisable: user-info and query values become `***`."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from rag.adapters.openai.chat import OpenAIChatModel
from rag.ports import complete
from rag.redact import display_url, mask_url, mask_urls_in
from rag.settings import load_settings
from tests.fault_server import FaultServer
from tests.reliability_helpers import WELLS, run_rag

KEY = "URLSECRET789"  # not shaped like an sk- key, so only URL masking can hide it


def _files_with(root: Path, needle: str) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()]


@pytest.mark.parametrize(
    ("url", "masked"),
    [
        (f"http://user:{KEY}@127.0.0.1:8000/v1?api-key={KEY}", "http://***@127.0.0.1:8000/v1?api-key=***"),
        (f"https://{KEY}@host/v1", "https://***@host/v1"),
        (f"http://host:1/v1?a=1&token={KEY}#{KEY}", "http://host:1/v1?a=***&token=***"),
    ],
)
def test_mask_url_hides_user_info_query_values_and_fragment(url: str, masked: str) -> None:
    assert mask_url(url) == masked
    assert KEY not in display_url(url) and KEY not in mask_urls_in(f"failed: {url}; retrying")


def test_settings_repr_masks_url_credentials() -> None:
    s = load_settings(env={"OPENAI_BASE_URL": f"http://user:{KEY}@h/v1?api-key={KEY}",
                           "RAG_CHROMA_URL": f"http://u:{KEY}@h:8000?token={KEY}"})  # fmt: skip
    assert KEY not in repr(s) and KEY not in repr(s.endpoint) and KEY not in str(s)
    assert "http://***@h/v1?api-key=***" in repr(s)


def test_http_client_logs_never_show_url_credentials(caplog: pytest.LogCaptureFixture) -> None:
    """httpx (chromadb) and httpx2 (the openai SDK) log every request's URL at INFO, user-info included; an
    application that shows INFO logs printed the key."""
    caplog.set_level(logging.DEBUG)
    with FaultServer(["ok"]) as server:
        url = f"http://user:{KEY}@127.0.0.1:{server.port}/v1"  # user-info only: a query would break the path
        chat = OpenAIChatModel.from_settings(load_settings(env={"OPENAI_BASE_URL": url}).endpoint, model="m")
        text, _ = complete(chat, [{"role": "user", "content": "hi"}], max_tokens=8, temperature=0.0)
    assert text  # a request was made and logged
    assert any("127.0.0.1" in r.getMessage() for r in caplog.records)
    assert not [r.getMessage() for r in caplog.records if KEY in r.getMessage()]


def _questions(tmp_path: Path) -> Path:
    path = tmp_path / "q.jsonl"
    path.write_text("".join(json.dumps(q) + "\n" for q in [
        {"id": "u1", "question": WELLS, "gold": ["icml2025-00"], "must_include": ["213,000"]},
        {"id": "u2", "question": "Which paper evaluates AI agents replicating ICML papers?", "gold": ["icml2025-03"]},
    ]), encoding="utf-8")  # fmt: skip
    return path


def _endpoint(server: FaultServer) -> str:
    return f"http://user:{KEY}@127.0.0.1:{server.port}/v1?api-key={KEY}"


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_openai_base_url_credentials_are_never_printed_or_stored(tmp_path: Path) -> None:
    home, out_dir = tmp_path / "home", tmp_path / "eval-out"
    assert run_rag(["index"], home).returncode == 0
    env = {"RAG_MAX_RETRIES": "2", "RAG_RETRY_MAX_WAIT_S": "0.05", "RAG_TIMEOUT_S": "2", "RAG_LLM": "openai",
           "RAG_MODEL": "m"}  # fmt: skip
    with FaultServer(["500"] * 200) as server:  # every request fails: the notes name the endpoint
        env["OPENAI_BASE_URL"] = _endpoint(server)
        runs = [
            run_rag(["ask", WELLS], home, env=env),
            run_rag(["ask", WELLS, "--json"], home, env=env),
            run_rag(["eval", str(_questions(tmp_path)), "--out", str(out_dir), "--judge"], home, env=env),
        ]
    with FaultServer([]) as gone:
        port = gone.port  # nothing listens there any more: a connection error names the endpoint
    env["OPENAI_BASE_URL"] = f"http://user:{KEY}@127.0.0.1:{port}/v1?api-key={KEY}"
    runs.append(run_rag(["ask", WELLS], home, env=env))
    runs.append(run_rag(["ask", WELLS], home, env={**env, "OPENAI_BASE_URL": f"ftp://user:{KEY}@host/?k={KEY}"}))
    for proc in runs:
        assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
        assert KEY not in proc.stdout + proc.stderr, (proc.args, proc.stdout[-2000:], proc.stderr[-2000:])
    assert [p.returncode for p in runs] == [0, 0, 0, 0, 2]
    # the endpoint is named without its secrets (the query in the base URL even breaks the path: 404)
    assert f"LLM endpoint http://127.0.0.1:{server.port}/v1 " in runs[0].stderr
    assert "***" in runs[-1].stderr  # the refused URL is shown masked
    summary = json.loads((out_dir / "summary.json").read_text())
    assert summary["run"]["settings"]["openai_base_url"] == f"http://***@127.0.0.1:{server.port}/v1?api-key=***"
    assert _files_with(home, KEY) == [] and _files_with(out_dir, KEY) == []


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_chroma_url_credentials_are_never_printed_or_stored(tmp_path: Path, chroma_url: str) -> None:
    home, out_dir = tmp_path / "home", tmp_path / "eval-out"
    secret_url = chroma_url.replace("http://", f"http://reader:{KEY}@") + f"/?token={KEY}"
    env = {"RAG_CHROMA_URL": secret_url, "RAG_COLLECTION": "urlcreds"}
    runs = [
        run_rag(["index"], home, env=env),
        run_rag(["search", "wells", "--json"], home, env=env),
        run_rag(["ask", WELLS, "--llm", "extractive"], home, env=env),
        run_rag(["eval", str(_questions(tmp_path)), "--out", str(out_dir), "--llm", "extractive"], home, env=env),
        run_rag(["search", "wells"], home, env={**env, "RAG_CHROMA_URL": f"http://reader:{KEY}@127.0.0.1:9/?t={KEY}"}),
    ]
    for proc in runs:
        assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
        assert KEY not in proc.stdout + proc.stderr, (proc.args, proc.stdout[-2000:], proc.stderr[-2000:])
    assert [p.returncode for p in runs] == [0, 0, 0, 0, 2]
    assert "cannot reach the Chroma server at http://***@127.0.0.1:9/?t=***" in runs[-1].stderr
    assert json.loads(runs[1].stdout)["hits"]
    assert json.loads((out_dir / "summary.json").read_text())["run"]["settings"]["chroma_url"].count("***") == 2
    assert _files_with(home, KEY) == [] and _files_with(out_dir, KEY) == []
