"""ui.render (pure HTML helpers) and rag.feedback: escaping, links, citation markers, unsupported sentences."""

from __future__ import annotations

import json
import re
import threading
from typing import Any

import pytest

from rag.settings import Settings
from rag.types import Answer, Citation, Hit, Paper
from ui import render
from ui.feedback import read_feedback, record_feedback

EVIL_TITLE = '<img src=x onerror="window.__xss=1">Evil'
EVIL_ABSTRACT = "<script>window.__xss=2</script> Zebra stripes & giraffes."


def paper(pid: str = "p-1", **kw: Any) -> Paper:
    base: dict[str, Any] = {
        "id": pid, "title": f"Title {pid}", "abstract": f"Abstract of {pid}. It has two sentences.",
        "authors": ("Ada Lovelace", "Alan Turing"), "year": 2025, "venue": "ICML 2025",
        "url": f"https://arxiv.org/abs/{pid}", "code_url": None,
    }
    base.update(kw)
    return Paper(**base)


def hit(p: Paper, score: float = 0.9) -> Hit:
    return Hit(p, f"{p.id}:0", p.abstract, score, dense_score=score)


def answer(text: str, hits: list[Hit], cited: list[int], **kw: Any) -> Answer:
    base: dict[str, Any] = {
        "question": "q?", "standalone_question": "q?", "text": text,
        "citations": tuple(Citation(n, hits[n - 1].paper.id, hits[n - 1].paper.title, hits[n - 1].paper.url)
                           for n in cited),
        "sources": tuple(hits), "abstained": False, "unsupported": (), "backend": "openai", "model": "gpt-x",
        "prompt": "answer@abc", "latency_s": 1.25,
    }
    base.update(kw)
    return Answer(**base)


# -- escaping and links ---------------------------------------------------------------------------
def test_esc_escapes_markup_and_quotes() -> None:
    assert render.esc('<a href="x">&</a>') == "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;"
    assert render.esc(None) == ""


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("https://arxiv.org/abs/2410.09032", True),
        ("http://example.org/a?b=1&c=2", True),
        ("javascript:alert(1)", False),
        ("JaVaScRiPt:alert(1)", False),
        ("data:text/html,<script>alert(1)</script>", False),
        ("//evil.example/x", False),
        ("ftp://example.org/file", False),
        ("https://", False),
        ('https://ok.example/" onmouseover="x', False),
        (None, False),
        ("", False),
    ],
)
def test_safe_url_only_allows_http_and_https(url: str | None, ok: bool) -> None:
    assert (render.safe_url(url) is not None) == ok


def test_safe_url_escapes_for_attributes() -> None:
    assert render.safe_url("http://example.org/a?b=1&c=2") == "http://example.org/a?b=1&amp;c=2"


def test_source_card_escapes_everything_and_links_only_http() -> None:
    evil = paper("evil-1", title=EVIL_TITLE, abstract=EVIL_ABSTRACT, authors=("<b>Mallory</b>",),
                 venue="<i>Conf</i>", url="javascript:window.__xss=5", code_url="https://github.com/x/y")
    html = render.render_retrieved([hit(evil)])
    assert "<img" not in html and "<script" not in html and "<b>" not in html and "<i>" not in html
    assert "&lt;img src=x onerror=&quot;window.__xss=1&quot;&gt;Evil" in html
    assert "&lt;script&gt;" in html
    assert "javascript:" not in html
    assert '<a class="ext" href="https://github.com/x/y" target="_blank" rel="noopener noreferrer">Code ↗</a>' in html
    assert 'id="src-1"' in html and 'data-paper-id="evil-1"' in html and "Show abstract" in html


def test_paper_panel_escapes_and_handles_unknown_ids() -> None:
    html = render.render_paper(paper("evil-1", title=EVIL_TITLE, abstract=EVIL_ABSTRACT))
    assert "<img" not in html and "<script" not in html
    assert "&lt;script&gt;window.__xss=2&lt;/script&gt; Zebra stripes &amp; giraffes." in html
    assert 'href="https://arxiv.org/abs/evil-1"' in html
    missing = render.render_paper(None, '<img src=x onerror="1">')
    assert "not found" in missing.lower() and "<img" not in missing and "&lt;img" in missing


# -- answers --------------------------------------------------------------------------------------
def test_markers_become_links_to_source_cards() -> None:
    hits = [hit(paper("a")), hit(paper("b"))]
    html = render.render_answer(answer("A holds [1]. B holds too [2][1].", hits, [1, 2]))
    assert html.count('<a class="cite" href="#src-1"') == 2
    assert '<a class="cite" href="#src-2" title="source 2">[2]</a>' in html


def test_marker_without_source_is_not_a_link() -> None:
    html = render.render_answer(answer("Claim [3].", [hit(paper("a"))], []))
    assert "#src-3" not in html and "[3]" in html


def test_answer_text_is_escaped() -> None:
    html = render.render_answer(answer('<img src=x onerror="window.__xss=1"> is a tag [1].', [hit(paper())], [1]))
    assert "<img" not in html and "&lt;img src=x" in html


def test_unsupported_sentences_are_marked() -> None:
    hits = [hit(paper("a"))]
    text = "The dataset has 213,000 wells [1]. It cures cancer [1]. It is large [1]."
    html = render.render_answer(answer(text, hits, [1], unsupported=("It cures cancer [1].",)))
    m = re.search(r'<span class="unsupported" title="not supported by the cited sources">⚠ (.*?)</span>', html)
    assert m is not None
    assert "It cures cancer" in m.group(1) and "213,000" not in m.group(1) and "large" not in m.group(1)
    assert "1 unsupported" in html


def test_unsupported_sentence_found_when_the_marker_moved() -> None:
    # the support check moves a marker that follows the full stop in front of it
    text = "First claim. [1] Second claim."
    start, end = render.find_sentence(text, "First claim [1].") or (0, 0)
    assert text[start:end].startswith("First claim.")
    assert render.find_sentence(text, "Something else entirely.") is None


def test_unplaced_unsupported_sentence_is_listed() -> None:
    html = render.render_answer(answer("Fine [1].", [hit(paper())], [1], unsupported=("Ghost sentence <b>x</b>.",)))
    assert "Not supported by the cited sources" in html and "Ghost sentence &lt;b&gt;x&lt;/b&gt;." in html


def test_incomplete_answer_notes_and_backend() -> None:
    a = answer("Partial [1]", [hit(paper())], [1], complete=False, notes=("incomplete: <cut>",))
    html = render.render_answer(a)
    assert "incomplete" in html and "&lt;cut&gt;" in html
    assert "answered by <b>openai</b> (gpt-x)" in html and "1.2 s" in html
    ext = render.render_answer(answer("X [1].", [hit(paper())], [1], backend="extractive", model="extractive"))
    assert "answered by <b>extractive</b> ·" in ext


def test_plain_text_recovers_the_answer_for_history() -> None:
    a = answer("A & B [1]. Odd claim [1].", [hit(paper())], [1], unsupported=("Odd claim [1].",), notes=("n",))
    assert render.plain_text(render.render_answer(a)) == "A & B [1]. Odd claim [1]."


# -- sources panel --------------------------------------------------------------------------------
def test_sources_show_cited_first_and_fold_the_rest() -> None:
    hits = [hit(paper("a")), hit(paper("b")), hit(paper("c"))]
    html = render.render_sources(answer("B [2].", hits, [2]))
    cited, _, others = html.partition("<details")
    assert 'id="src-2"' in cited and 'id="src-1"' not in cited
    assert 'id="src-1"' in others and 'id="src-3"' in others and "Also retrieved, not cited (2)" in others


def test_sources_when_abstained_show_closest_papers() -> None:
    hits = [hit(paper("a")), hit(paper("b"))]
    html = render.render_sources(answer("The indexed papers do not answer this question.", hits, [], abstained=True))
    assert "Closest papers" in html and 'id="src-1"' in html and 'id="src-2"' in html
    assert "No indexed paper" in render.render_sources(answer("x", [], []))


def test_answer_with_references_lists_cited_papers() -> None:
    hits = [hit(paper("a", title="Alpha")), hit(paper("b", title="Beta", authors=tuple(f"A{i}" for i in range(9))))]
    text = render.answer_with_references(answer("Beta says so [2]. Alpha too [1].", hits, [2, 1]))
    lines = text.splitlines()
    assert lines[0] == "Beta says so [2]. Alpha too [1]."
    refs = lines[lines.index("References") + 1 :]
    assert refs[0].startswith("[1] Alpha. Ada Lovelace, Alan Turing. ICML 2025 (2025). https://arxiv.org/abs/a")
    assert refs[1].startswith("[2] Beta. A0, A1, A2, A3, A4, A5 et al.")


def test_header_reports_paper_count_and_empty_index() -> None:
    assert "19 indexed paper abstracts" in render.render_header(19)
    assert "index is empty" in render.render_header(0)
    assert "did not finish" in render.render_header(5, stale=True)


# -- feedback -------------------------------------------------------------------------------------
def test_record_feedback_appends_jsonl(settings: Settings) -> None:
    record_feedback(settings.home, "q1", "a1 [1]", True, "extractive", ["icml2025-00"])
    record_feedback(settings.home, "q2", "a2", False, "openai", [])
    lines = (settings.home / "feedback.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(x)["liked"] for x in lines] == [True, False]
    first = json.loads(lines[0])
    assert first["question"] == "q1" and first["cited_ids"] == ["icml2025-00"] and first["backend"] == "extractive"


def test_record_feedback_is_thread_safe(settings: Settings) -> None:
    def work(i: int) -> None:
        for j in range(25):
            record_feedback(settings.home, f"q{i}-{j}", "x" * 2000, j % 2 == 0, "extractive", [f"p{i}"])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    records = read_feedback(settings.home)
    assert len(records) == 200
    assert len({r["question"] for r in records}) == 200
