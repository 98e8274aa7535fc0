"""Issue 15, "Evidence belongs to its answer" (items 1-6), in headless Chromium; and issue 21's four labels of
the sentence check as the chat answer shows them, at 1440x900 and 390x844.

Each test names its item. The app and the page fixture are shared with the other browser modules
(tests/ui_browser.py): extractive by default, a scripted endpoint when a test picks "openai".
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.fault_server import FaultServer
from tests.ui_browser import ALBERTA, DESKTOP, PHONE, TIMEOUT_MS, Canary, Page, open_page
from tests.ui_server import UIServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]
AGENTS = "Which paper evaluates AI agents replicating ICML papers?"  # cites icml2025-03, PaperBench
STABILITY = "What is the stability-plasticity dilemma?"  # cites icml2025-01
WELLS_SENTENCE = "Our curated Dataset comprises over 213,000 wells"  # the 5th sentence of icml2025-00's abstract


def shows(page: Page, text: str, yes: bool = True) -> None:
    """The sources panel shows `text` to the reader (rendered text: hidden parts do not count)."""
    from playwright.sync_api import expect

    panel, seen = expect(page.page.locator("#sources")), re.compile(re.escape(text), re.I)  # headings are upper-cased
    if yes:
        panel.to_contain_text(seen, use_inner_text=True, timeout=TIMEOUT_MS)
    else:
        panel.not_to_contain_text(seen, use_inner_text=True, timeout=TIMEOUT_MS)


def test_1_a_citation_opens_the_paper_it_cited_when_it_was_written(page: Page) -> None:
    from playwright.sync_api import expect

    first = page.ask(ALBERTA, "213,000")
    second = page.ask(AGENTS, "PaperBench")
    page.ask(STABILITY, "stability")
    shows(page, "Stability-Plasticity")

    first.locator("a.cite", has_text="[1]").first.click()
    # the first answer's own source opens under it ...
    chip = first.locator("details.chip[open]")
    expect(chip).to_contain_text("Alberta Wells Dataset", timeout=TIMEOUT_MS)
    expect(chip).to_contain_text(WELLS_SENTENCE)
    # ... and the panel follows the first answer, its card [1] marked
    shows(page, "Alberta Wells Dataset")
    shows(page, "Stability-Plasticity", False)
    marked = page.page.locator("#sources .src-card.marked")
    expect(marked).to_have_count(1)
    expect(marked).to_have_attribute("data-paper-id", "icml2025-00")

    second.hover()  # pointing at a message shows its sources
    shows(page, "PaperBench")
    shows(page, "Alberta Wells Dataset", False)
    assert page.errors == []


def test_2_cards_show_the_matched_evidence_and_the_dialog_marks_it(page: Page) -> None:
    from playwright.sync_api import expect

    answer = page.ask(ALBERTA, "213,000")
    card = page.page.locator('#sources article[data-paper-id="icml2025-00"]')
    # the card quotes the sentences the check matched, the answer's own first, not the abstract from its start
    # ("Millions of abandoned oil and gas wells ...", which the answer may quote second)
    expect(card.locator(".src-passage")).to_have_text(re.compile(r"^\s*" + re.escape(WELLS_SENTENCE)))

    # hovering [1] previews the paper's title and that sentence
    cite = answer.locator("a.cite").first
    cite.hover()
    tip = cite.locator(".cite-tip")
    expect(tip).to_be_visible(timeout=TIMEOUT_MS)
    expect(tip).to_contain_text("Alberta Wells Dataset: Pinpointing Oil and Gas Wells")
    expect(tip).to_contain_text(WELLS_SENTENCE)

    # the abstract dialog marks the sentences the answer quotes (each once), that one among them
    card.locator("button.show-abstract").click()
    marks = page.page.locator("#paper mark")
    expect(marks.filter(has_text=WELLS_SENTENCE)).to_have_count(1, timeout=TIMEOUT_MS)
    assert marks.count() == len(answer.locator("a.cite").all())  # one mark per quoted sentence
    expect(page.page.locator("#paper")).to_contain_text("Millions of abandoned")  # the whole abstract is there
    page.page.keyboard.press("Escape")
    expect(page.page.locator("#paper .paper-modal")).to_have_count(0, timeout=TIMEOUT_MS)


def test_3_a_follow_up_says_what_was_searched_for(page: Page) -> None:
    from playwright.sync_api import expect

    first = page.ask(ALBERTA, "213,000")
    expect(first).not_to_contain_text("Searched for")  # nothing was rewritten
    follow_up = page.ask("Who are its authors?", "Rolnick")
    searched = follow_up.locator(".searched")
    expect(searched).to_contain_text("Searched for:")
    expect(searched).to_contain_text(re.compile(r"Alberta", re.I))  # the rewritten question, not the follow-up


def test_4_relevance_is_the_similarity_against_the_threshold(page: Page) -> None:
    from playwright.sync_api import expect

    page.ask(ALBERTA, "213,000")
    page.page.locator("#sources details.src-others > summary").click()
    cards = page.page.locator("#sources section.turn-sources:visible article.src-card")
    expect(cards).to_have_count(5)
    figures = []
    for card in cards.all():
        text = card.locator(".src-id").inner_text()
        m = re.search(r"similarity (-?\d\.\d\d)", text)
        assert m, text
        sim = float(m.group(1))
        figures.append(sim)
        assert ("below the relevance threshold" in text) == (sim < 0.18), text
        assert card.locator(".rel-bar .rel-min").count() == 1  # the threshold is drawn on the bar
    assert 0.4 < figures[0] < 0.9, figures  # the top card is not "1.00": a cosine similarity
    assert any(f < 0.18 for f in figures), figures  # unrelated papers are labelled as such


def test_5_a_source_cited_only_by_an_unsupported_sentence_is_marked(page: Page, scripted_llm: FaultServer) -> None:
    from playwright.sync_api import expect

    scripted_llm.set_reply("Our curated dataset comprises over 213,000 wells from Alberta [1]. "
                           "This method cures 97% of all rare diseases in children [2].")  # fmt: skip
    page.pick_backend("openai")
    answer = page.ask(ALBERTA, "answered by")
    expect(answer).to_contain_text("answered by openai")
    expect(answer.locator(".unsupported")).to_contain_text("cures 97%")
    card2 = page.page.locator("#sources section.turn-sources:visible article.src-card").nth(1)
    expect(card2.locator(".src-num")).to_have_text("2")
    expect(card2).to_contain_text("cited only by a sentence its sources do not support")
    card1 = page.page.locator("#sources section.turn-sources:visible article.src-card").first
    expect(card1).not_to_contain_text("cited only by")
    expect(answer.locator("details.chip", has_text="cited only by")).to_have_count(1)


def test_6_copy_gives_markdown_with_references_never_html(browser: Any, browser_ui: UIServer) -> None:
    from playwright.sync_api import expect

    p, ctx = open_page(browser, browser_ui, permissions=["clipboard-read", "clipboard-write"])
    try:
        p.ask(ALBERTA, "213,000")
        copiers = p.page.locator('#chat button[aria-label*="copy" i], #chat button[title*="copy" i]')
        expect(copiers.first).to_be_visible()
        for button in copiers.all():
            p.page.evaluate("navigator.clipboard.writeText('')")
            button.click()
            p.page.wait_for_function("navigator.clipboard.readText().then(t => t.length > 0)", timeout=TIMEOUT_MS)
            text = p.page.evaluate("navigator.clipboard.readText()")
            assert "<" not in text, text  # no markup; links are [domain](https://...)
            assert text.startswith(WELLS_SENTENCE) and "**References**" in text, text
            assert re.search(r"^- \[1\] .*Alberta Wells Dataset.*\[arxiv\.org\]\(https://arxiv\.org/abs/2410\.09032\)$",
                             text, re.M)
        assert p.outside == []
    finally:
        ctx.close()


# the bundled corpus answers ALBERTA with [1] Alberta Wells, [2] Algebraic Combinatorics, [3] SQGEF, ...
FOUR_LABELS = ("Our curated dataset comprises over 213,000 wells from Alberta [1]. "  # supported
               "The curated dataset comprises over 213,000 satellite images from Planet Labs [1]. "  # contradicted
               "Our curated dataset comprises over 213,000 wells from Alberta [3]. "  # wrong paper: [1] says it
               "This method cures 97% of all rare diseases in children [2].")  # not found  # fmt: skip
FLAGS = (("contradicted", "✗", "213,000 satellite images", "1"), ("wrong paper", "⇄", "wells from Alberta", "3"),
         ("not found", "?", "cures 97%", "2"))  # fmt: skip


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1440x900", "390x844"])
def test_issue21_each_sentence_shows_its_own_label_seen_and_spoken(
    browser: Any, browser_ui: UIServer, scripted_llm: FaultServer, canary: Canary, viewport: dict[str, int]
) -> None:
    """A supported sentence is left plain; each flagged one is marked where it stands (not on a sentence with the
    same words and another citation) by its own symbol and colour, and named in words for screen readers."""
    from playwright.sync_api import expect

    from rag.verify.labels import meaning

    mobile = {"is_mobile": True, "has_touch": True} if viewport is PHONE else {}
    p, ctx = open_page(browser, browser_ui, viewport, **mobile)
    scripted_llm.set_reply(FOUR_LABELS)
    try:
        p.pick_backend("openai")
        answer = p.ask(ALBERTA, "answered by")
        body = answer.locator(".answer-body")
        expect(body.locator(".unsupported")).to_have_count(3)
        colours = set()
        for label, mark, words, cited in FLAGS:
            flag = body.locator(f".unsupported.check-{label.replace(' ', '-')}")
            expect(flag).to_have_count(1)
            expect(flag).to_be_visible()
            expect(flag).to_contain_text(words)
            expect(flag.locator("a.cite")).to_have_text(re.compile(rf"^\[{cited}\]"))  # on its own sentence
            expect(flag).to_contain_text(re.compile(rf"^{re.escape(mark)} "))  # the symbol is seen ...
            expect(flag.locator(".sr-only")).to_have_text(f"{label}: ")  # ... and the label is heard as a word
            assert f"{mark} {label}: " in flag.aria_snapshot()  # what a screen reader reads out
            expect(flag).to_have_attribute("title", meaning(label))  # and the pointer's tip says what it means
            colours.add(flag.evaluate("(e) => getComputedStyle(e).backgroundColor"))
            expect(answer.get_by_role("note").get_by_role("listitem").filter(has_text=meaning(label))).to_have_count(1)
        assert len(colours) == 3, colours  # three labels, three looks (and a word each: never colour alone)
        plain = body.evaluate("""(b) => [...b.querySelectorAll('a.cite')].filter(a => !a.closest('.unsupported'))
            .map(a => [a.previousSibling ? a.previousSibling.textContent : '', a.getAttribute('href')])""")
        assert len(plain) == 1 and plain[0][0].endswith("213,000 wells from Alberta ") and plain[0][1].endswith("-1")
        expect(answer.locator(".answer-meta")).to_contain_text("3 unsupported")
        body.scroll_into_view_if_needed()
        p.shot(f"ui-check-labels-{viewport['width']}x{viewport['height']}.png")
        assert p.errors == []
    finally:
        scripted_llm.set_reply(None)
        ctx.close()
    assert p.outside == [] and canary.hits == []
