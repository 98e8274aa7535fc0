"""The UI's pure HTML (ui.html, ui.message, ui.cards, ui.display) and ui.feedback: escaping, links, citations with
their own sources, evidence, relevance, display cleaning."""

from __future__ import annotations

import json
import re
import threading
from typing import Any

import pytest

from rag.settings import Settings
from rag.types import NOT_FOUND, SUPPORTED, Answer, Citation, Hit, Paper, SentenceCheck
from ui.cards import render_panel, render_paper, source_card
from ui.display import readable
from ui.feedback import read_feedback, record_feedback
from ui.html import esc, paper_meta, safe_url
from ui.message import View, render_message, user_message
from ui.turns import Turn

EVIL_TITLE = '<img src=x onerror="window.__xss=1">Evil'
EVIL_ABSTRACT = "<script>window.__xss=2</script> Zebra stripes & giraffes."
VIEW = View(min_relevance=0.18)


def paper(pid: str = "p-1", **kw: Any) -> Paper:
    base: dict[str, Any] = {
        "id": pid, "title": f"Title {pid}", "abstract": f"Abstract of {pid}. It has two sentences.",
        "authors": ("Ada Lovelace", "Alan Turing"), "year": 2025, "venue": "ICML 2025",
        "url": f"https://arxiv.org/abs/{pid}", "code_url": None,
    }  # fmt: skip
    base.update(kw)
    return Paper(**base)


def hit(p: Paper, score: float = 0.9, **kw: Any) -> Hit:
    return Hit(p, f"{p.id}:0", p.abstract, 1.0, dense_score=score, **kw)


def answer(text: str, hits: list[Hit], cited: list[int], **kw: Any) -> Answer:
    base: dict[str, Any] = {
        "question": "q?", "standalone_question": "q?", "text": text,
        "citations": tuple(Citation(n, hits[n - 1].paper.id, hits[n - 1].paper.title, hits[n - 1].paper.url)
                           for n in cited),
        "sources": tuple(hits), "abstained": False, "unsupported": (), "backend": "openai", "model": "gpt-x",
        "prompt": "answer@abc", "latency_s": 1.25,
    }  # fmt: skip
    base.update(kw)
    return Answer(**base)


def turn(a: Answer | None = None, aid: str = "a1", **kw: Any) -> Turn:
    if a is not None:
        kw = {"hits": a.sources, "searched": True, "standalone": a.standalone_question, **kw}
    return Turn(aid, "q?", answer=a, **kw)


# -- escaping and links ---------------------------------------------------------------------------
def test_esc_escapes_markup_and_quotes() -> None:
    assert esc('<a href="x">&</a>') == "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;"
    assert esc(None) == ""


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("https://arxiv.org/abs/2410.09032", True), ("http://example.org/a?b=1&c=2", True),
        ("javascript:alert(1)", False), ("JaVaScRiPt:alert(1)", False),
        ("data:text/html,<script>alert(1)</script>", False), ("//evil.example/x", False),
        ("ftp://example.org/file", False), ("https://", False), ('https://ok.example/" onmouseover="x', False),
        (None, False), ("", False),
    ],
)  # fmt: skip
def test_safe_url_only_allows_http_and_https(url: str | None, ok: bool) -> None:
    assert (safe_url(url) is not None) == ok
    assert safe_url("http://example.org/a?b=1&c=2") == "http://example.org/a?b=1&amp;c=2"


def test_source_card_escapes_everything_and_links_only_http() -> None:
    evil = paper("evil-1", title=EVIL_TITLE, abstract=EVIL_ABSTRACT, authors=("<b>Mallory</b>",),
                 venue="<i>Conf</i>", url="javascript:window.__xss=5", code_url="https://github.com/x/y")  # fmt: skip
    html = render_panel([turn(hits=(hit(evil),), searched=True)], 0.18)
    assert "<img" not in html and "<script" not in html and "<b>" not in html and "<i>" not in html
    assert "&lt;img src=x onerror=&quot;window.__xss=1&quot;&gt;Evil" in html and "&lt;script&gt;" in html
    assert "javascript:" not in html
    assert ('<a class="ext" href="https://github.com/x/y" target="_blank" rel="noopener noreferrer">Code ↗<span '
            'class="sr-only">: &lt;img src=x onerror=&quot;window.__xss=1&quot;&gt;Evil (opens in a new tab)</span></a>'
            ) in html
    assert 'id="p-a1-1"' in html and 'data-paper-id="evil-1"' in html and "Show abstract" in html


def test_paper_dialog_escapes_marks_evidence_and_handles_unknown_ids() -> None:
    html = render_paper(paper("evil-1", title=EVIL_TITLE, abstract=EVIL_ABSTRACT))
    assert "<img" not in html and "<script" not in html
    assert "&lt;script&gt;window.__xss=2&lt;/script&gt; Zebra stripes &amp; giraffes." in html
    marked = render_paper(paper(abstract="First one. The 213,000 wells [x]. Last."),
                          highlights=["The 213,000 wells [x]."])  # fmt: skip
    assert '<mark class="evidence">The 213,000 wells [x].</mark>' in marked and marked.count("<mark") == 1
    missing = render_paper(None, '<img src=x onerror="1">')
    assert "not found" in missing.lower() and "<img" not in missing and "&lt;img" in missing


# -- messages -------------------------------------------------------------------------------------
def test_user_messages_are_shown_literally() -> None:
    assert user_message('<img src="http://x/p.png"> hi') == "&lt;img src=&quot;http://x/p.png&quot;&gt; hi"


def test_markers_link_to_the_messages_own_chips_with_a_preview() -> None:
    hits = [hit(paper("a")), hit(paper("b"))]
    checks = (SentenceCheck("A holds [1].", (1,), SUPPORTED, evidence=((1, "Abstract of a."),)),)
    html = render_message(turn(answer("A holds [1]. B holds too [2][1].", hits, [1, 2], sentence_checks=checks),
                               aid="a7"), VIEW)  # fmt: skip
    assert html.startswith('<div class="answer" id="a7">')
    assert html.count('<a class="cite" href="#a7-src-1">[1]<span class="cite-tip" role="tooltip">') == 2
    assert "<b>Title a</b> Abstract of a.</span></a>" in html
    assert '<details class="chip" id="a7-src-1">' in html and '<details class="chip" id="a7-src-2">' in html
    assert '<button type="button" class="show-abstract" value="a7|2">' in html


def test_model_and_corpus_markdown_stays_text() -> None:
    bad = "See ![x](http://127.0.0.1:9/p.png?d=1) and [Title a](http://phish.example) or http://x.example/y [1]."
    p = paper("a", abstract=bad, title="[T](http://phish.example)")
    html = render_message(turn(answer(bad, [hit(p)], [1])), VIEW)
    assert "<img" not in html and 'href="http' not in html.replace('href="https://arxiv.org/abs/a"', "")
    assert "![x](http://127.0.0.1:9/p.png?d=1)" in html and "[Title a](http://phish.example)" in html


def test_marker_without_source_is_not_a_link_and_text_is_escaped() -> None:
    html = render_message(turn(answer('<img src=x onerror="1"> claim [3].', [hit(paper("a"))], [])), VIEW)
    assert "src-3" not in html and "[3]" in html and "<img" not in html and "&lt;img src=x" in html


def test_unsupported_sentences_are_marked_and_unplaced_ones_listed() -> None:
    hits = [hit(paper("a"))]
    text = "The dataset has 213,000 wells [1]. It cures cancer [1]. It is large [1]."
    html = render_message(turn(answer(text, hits, [1], unsupported=("It cures cancer [1].", "Ghost <b>x</b>."))), VIEW)
    m = re.search(r'<span class="unsupported" title="not supported by the cited sources">⚠ (.*?)</span></span>', html)
    assert m is not None and "It cures cancer" in m.group(1) and "213,000" not in m.group(1)
    assert "Not supported by the cited sources" in html and "Ghost &lt;b&gt;x&lt;/b&gt;." in html
    assert "2 unsupported" in html


def test_summaries_render_as_lists() -> None:
    hits = [hit(paper("a")), hit(paper("b"))]
    html = render_message(turn(answer("2 relevant papers:\n- A: one [1]\n- B: two [2]", hits, [1, 2])), VIEW)
    assert "<p>2 relevant papers:</p><ul><li>A: one <a class" in html and html.count("<li>") == 2


def test_message_states_searching_streaming_stopped_failed() -> None:
    assert "Searching the index…" in render_message(Turn("a1", "q?"), VIEW)
    reading = render_message(Turn("a1", "q?", hits=(hit(paper()),), searched=True), VIEW)
    assert "Reading 1 paper…" in reading
    streaming = render_message(Turn("a1", "q?", hits=(hit(paper()),), searched=True, text="Partial <b>"), VIEW)
    assert "Partial &lt;b&gt;" in streaming and "answered by" not in streaming
    stopped = render_message(Turn("a1", "q?", hits=(hit(paper()),), searched=True, text="Part", stopped=True), VIEW)
    assert "Stopped (incomplete)" in stopped and "Part" in stopped and 'id="a1-src-1"' in stopped
    failed = render_message(Turn("a1", "q?", error="the LLM <endpoint> failed"), VIEW)
    assert '<p class="error">⚠ the LLM &lt;endpoint&gt; failed</p>' in failed


def test_searched_for_shows_the_rewritten_question_only() -> None:
    a = answer("A [1].", [hit(paper())], [1], question="Who wrote it?", standalone_question="Who wrote the paper?")
    t = Turn("a1", "Who wrote it?", standalone="Who wrote the wells paper?", hits=a.sources, searched=True, answer=a)
    assert "Searched for: <q>Who wrote the wells paper?</q>" in render_message(t, VIEW)
    same = Turn("a1", "who wrote it", standalone="Who wrote it?", hits=a.sources, searched=True, answer=a)
    assert "Searched for" not in render_message(same, VIEW)


def test_no_match_with_filters_says_so() -> None:
    a = answer("The indexed papers do not answer this question.", [], [], abstained=True)
    html = render_message(Turn("a1", "q?", searched=True, answer=a, filters="year ≥ 2030"), VIEW)
    assert "No paper matches your filters: year ≥ 2030." in html and "do not answer" not in html
    assert "No paper matches your filters: year ≥ 2030" in render_panel([Turn("a1", "q", searched=True, answer=a,
                                                                           filters="year ≥ 2030")], 0.18)


def test_long_answers_are_truncated_with_a_note() -> None:
    a = answer("word " * 30_000 + "[1].", [hit(paper())], [1])
    html = render_message(turn(a), View(max_chars=64 * 1024))
    assert "Truncated: this answer is 146 KB long; the page shows its first 64 KB." in html
    assert len(html) < 64 * 1024 * 2 + 20_000  # the text once, the copy text (cut too) once


def test_copy_button_holds_markdown_with_references() -> None:
    a = answer("Alpha says so [1].", [hit(paper("a", title="Alpha"))], [1])
    m = re.search(r'class="copy-answer" value="([^"]*)"', render_message(turn(a), VIEW))
    assert m is not None
    import html as h

    text = h.unescape(m.group(1))
    assert text.startswith("Alpha says so [1].") and "**References**" in text and "- [1] " in text


# -- cards: evidence, relevance, unsupported-only -------------------------------------------------
def test_card_quotes_the_evidence_and_shows_similarity_against_the_threshold() -> None:
    p = paper("a", abstract="Intro sentence. The key 213,000 wells. Outro.")
    checks = (SentenceCheck("Wells [1].", (1,), SUPPORTED, evidence=((1, "The key 213,000 wells."),)),)
    t = turn(answer("Wells [1].", [hit(p, 0.58), hit(paper("b"), 0.05)], [1], sentence_checks=checks))
    card = source_card(t, 1, t.sources[0], 0.18)
    assert 'Evidence</div><blockquote class="src-passage">The key 213,000 wells.</blockquote>' in card
    assert "similarity 0.58" in card and "below the relevance threshold" not in card
    assert 'style="left:18%"' in card  # the threshold tick
    other = source_card(t, 2, t.sources[1], 0.18)
    assert "similarity 0.05" in other and "below the relevance threshold" in other and "From the passage" in other


def test_a_source_cited_only_by_unsupported_sentences_is_flagged() -> None:
    hits = [hit(paper("a")), hit(paper("b"))]
    checks = (SentenceCheck("Fine [1].", (1,), SUPPORTED), SentenceCheck("Wrong [2].", (2,), NOT_FOUND, reason="x"))
    t = turn(answer("Fine [1]. Wrong [2].", hits, [1, 2], unsupported=("Wrong [2].",), sentence_checks=checks))
    assert "cited only by a sentence" in source_card(t, 2, hits[1], 0.18)
    assert "cited only by a sentence" not in source_card(t, 1, hits[0], 0.18)
    assert render_message(t, VIEW).count("cited only by a sentence") == 1


def test_card_shows_the_page_of_a_full_text_chunk_and_the_year_once() -> None:
    t = turn(answer("X [1].", [hit(paper(), page=4)], [1]))
    card = source_card(t, 1, t.sources[0], 0.18)
    assert "ICML 2025 · p. 4" in card and "2025 · 2025" not in card
    assert paper_meta(paper(venue="NeurIPS")) == "Ada Lovelace, Alan Turing · NeurIPS · 2025"


def test_panel_holds_every_answer_and_shows_the_latest() -> None:
    turns = [turn(answer("A [1].", [hit(paper("a"))], [1]), aid="a1"), turn(answer("B [1].", [hit(paper("b"))], [1]),
                                                                             aid="a2")]  # fmt: skip
    html = render_panel(turns, 0.18)
    assert '<section class="turn-sources" data-aid="a1" hidden>' in html
    assert '<section class="turn-sources" data-aid="a2">' in html
    assert '<section class="turn-sources" data-aid="a1">' in render_panel(turns, 0.18, selected="a1")


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("auxiliary classifiers~(ACs) give", "auxiliary classifiers (ACs) give"),
        ("an average 10\\% relative gain", "an average 10% relative gain"),
        ("costs ~10% less", "costs ~10% less"), ("https://example.org/~user", "https://example.org/~user"),
        ("the \\emph{key} idea", "the key idea"), ("R\\&D and a\\_b", "R&D and a_b"), ("plain", "plain"),
    ],
)  # fmt: skip
def test_display_text_is_cleaned_of_latex_leftovers(raw: str, shown: str) -> None:
    assert readable(raw) == shown


def test_display_cleaning_is_for_reading_only() -> None:
    a = answer("Uses ACs~(x) for 10\\% [1].", [hit(paper(abstract="ACs~(x) give 10\\%."))], [1])
    html = render_message(turn(a), VIEW)
    assert "Uses ACs (x) for 10% " in html and a.text == "Uses ACs~(x) for 10\\% [1]."
    assert "ACs~(x) for 10\\%" in html  # the copy button keeps the stored text


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
    assert len(records) == 200 and len({r["question"] for r in records}) == 200
