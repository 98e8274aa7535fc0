"""A chat message for each turn, as HTML the chat shows as it is (Markdown rendering is off). No gradio here.

    <div class="answer" id="a3">  Searched for: …  the answer, [n] linked to its own source chips (hover: title
                                   and evidence)  ⚠ unsupported sentences  notes  the chips  answered by … · Copy

Model and corpus text is escaped, so a `![x](http://…)`, a `[title](http://…)` or a bare URL in it stays text;
the only links are the [n] citations and the paper links built from index metadata (http/https only).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from rag.answer.citations import strip_markers
from rag.answer.followup import adds_words
from rag.export import answer_markdown
from rag.types import Answer
from rag.verify.labels import flag_lines, flagged, meaning, symbol
from ui.cards import UNSUPPORTED_ONLY, relevance, where
from ui.evidence import cited_numbers, tip_sentence, unsupported_only
from ui.html import esc, paper_links, paper_meta, txt
from ui.turns import Turn

UNSUPPORTED_TIP = "not supported by the cited sources"
MAX_ANSWER_CHARS = 64 * 1024  # what the page shows of one answer; the rest is cut with a note
_MARKER = re.compile(r"\[(\d+)\]")
_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")


@dataclass(frozen=True)
class View:
    """What rendering needs from the settings."""

    min_relevance: float = 0.18
    max_chars: int = MAX_ANSWER_CHARS


def user_message(question: str) -> str:
    """The reader's message shown literally: `<img …>` typed into the box is text."""
    return esc(question)


# -- the answer text ------------------------------------------------------------------------------
def _cite(turn: Turn) -> Callable[[int], str | None]:
    hits = turn.sources

    def link(n: int) -> str | None:
        if not 1 <= n <= len(hits):
            return None
        tip = tip_sentence(turn.answer, n, hits[n - 1].text)
        return (f'<a class="cite" href="#{turn.aid}-src-{n}">[{n}]<span class="cite-tip" role="tooltip">'
                f"<b>{txt(hits[n - 1].paper.title)}</b> {txt(tip)}</span></a>")  # fmt: skip

    return link


def _inline(text: str, link: Callable[[int], str | None]) -> str:
    out, pos = [], 0
    for m in _MARKER.finditer(text):
        out.append(txt(text[pos : m.start()]))
        out.append(link(int(m.group(1))) or m.group(0))
        pos = m.end()
    return "".join(out) + txt(text[pos:])


def find_sentence(text: str, sentence: str, start: int = 0) -> tuple[int, int] | None:
    """Where `sentence` (as the support check split it) sits in `text`, markers and spacing aside; of two places
    with the same words, the one with the sentence's own [n] markers ("... wells [3]." flagged as the wrong paper
    is not "... wells [1]." before it)."""
    words = re.findall(r"\w+", strip_markers(sentence))
    if not words:
        return None
    gap = r"(?:\[\d+\]|[^\w\n])+"
    tail = r"(?:[ \t]*\[\d+\])*[.!?]?(?:[ \t]*\[\d+\])*"
    pattern = re.compile(r"(?<!\w)" + gap.join(re.escape(w) for w in words) + r"(?!\w)" + tail)
    found = list(pattern.finditer(text, start))
    own = _MARKER.findall(sentence)
    m = next((m for m in found if _MARKER.findall(m.group()) == own), found[0] if found else None)
    return (m.start(), m.end()) if m else None


def _flag_span(inner: str, label: str | None) -> str:
    """An unsupported sentence, marked with its label's symbol and meaning (✗ contradicted, ? not found, …)."""
    if label is None:
        return f'<span class="unsupported" title="{UNSUPPORTED_TIP}">⚠ {inner}</span>'
    slug = label.replace(" ", "-")  # the symbol is seen and the label's word heard (a screen reader reads no title;
    # the chat's sanitiser drops aria-* attributes, so the word is visually hidden text)
    return (f'<span class="unsupported check-{slug}" title="{esc(meaning(label))}">{symbol(label)} '
            f'<span class="sr-only">{esc(label)}: </span>{inner}</span>')  # fmt: skip


def _marked(
    text: str, pending: list[str], link: Callable[[int], str | None], labels: Mapping[str, str] | None = None
) -> str:
    """One line: cites linked, the first place of each pending unsupported sentence wrapped (and taken off)."""
    spans: list[tuple[int, int, str | None]] = []
    for sentence in list(pending):
        hit = find_sentence(text, sentence)
        if hit is not None and not any(s < hit[1] and hit[0] < e for s, e, _ in spans):
            spans.append((*hit, (labels or {}).get(sentence)))
            pending.remove(sentence)
    out, pos = [], 0
    for s, e, label in sorted(spans, key=lambda x: x[0]):
        out.append(_inline(text[pos:s], link))
        out.append(_flag_span(_inline(text[s:e], link), label))
        pos = e
    return "".join(out) + _inline(text[pos:], link)


def body(
    text: str,
    unsupported: Sequence[str],
    link: Callable[[int], str | None],
    labels: Mapping[str, str] | None = None,
) -> tuple[str, list[str]]:
    """Paragraphs and lists of the text, each line marked (with the check's label of each unsupported sentence,
    when known); also the unsupported sentences not found in it."""
    pending = list(unsupported)
    blocks = []
    for block in (b for b in re.split(r"\n\s*\n", text.strip()) if b.strip()):
        lines = [ln for ln in block.split("\n") if ln.strip()]
        for is_item, run in itertools.groupby(lines, key=lambda ln: bool(_ITEM.match(ln))):
            if is_item:
                items = "".join(f"<li>{_marked(_ITEM.sub('', ln), pending, link, labels)}</li>" for ln in run)
                blocks.append(f"<ul>{items}</ul>")
            else:
                blocks.append("<p>" + "<br>".join(_marked(ln, pending, link, labels) for ln in run) + "</p>")
    return "".join(blocks), pending


def _cut(text: str, view: View) -> tuple[str, str]:
    """(the text the page shows, a note when it was cut)."""
    if len(text) <= view.max_chars:
        return text, ""
    note = (f'<p class="truncated">⚠ Truncated: this answer is {len(text) // 1024:,} KB long; the page shows its '
            f"first {view.max_chars // 1024:,} KB.</p>")  # fmt: skip
    return text[: view.max_chars], note


# -- the pieces around it -------------------------------------------------------------------------
def searched(turn: Turn) -> str:
    """ "Searched for: …" when the follow-up was rewritten before retrieval and the rewrite adds words."""
    if not turn.standalone or not adds_words(turn.question, turn.standalone):
        return ""
    return f'<p class="searched">Searched for: <q>{txt(turn.standalone)}</q></p>'


def chip(turn: Turn, n: int, view: View) -> str:
    hit = turn.sources[n - 1]
    a = turn.answer
    tip = tip_sentence(a, n, hit.text)
    flag = f'<div class="flag-unsupported">⚠ {UNSUPPORTED_ONLY}</div>' if a and unsupported_only(a, n) else ""
    meta = " · ".join(x for x in (paper_meta(hit.paper), esc(where(hit))) if x)
    return (
        f'<details class="chip" id="{turn.aid}-src-{n}"><summary><span class="src-num">{n}</span>'
        f'<span class="chip-title">{txt(hit.paper.title)}</span></summary><div class="chip-body">{flag}'
        f'<blockquote class="chip-quote">{txt(tip)}</blockquote><div class="chip-meta">{meta}</div>'
        f'<div class="chip-actions">{paper_links(hit.paper)}<button type="button" class="show-abstract" '
        f'value="{turn.aid}|{n}">Show abstract</button>{relevance(hit, view.min_relevance)}</div></div></details>'
    )


def chips(turn: Turn, view: View) -> str:
    """The message's own sources: the cited ones, the rest folded away (all of them for an abstention)."""
    every = list(range(1, len(turn.sources) + 1))
    if not every:
        return ""
    a = turn.answer
    cited = cited_numbers(a) if a is not None and not a.abstained else []
    first = cited or every
    rest = [n for n in every if n not in first]
    head = "Sources" if cited else ("Closest papers" if a is not None and a.abstained else "Retrieved papers")
    more = ""
    if rest:
        more = (f'<details class="chip-more"><summary>Also retrieved ({len(rest)})</summary>'
                + "".join(chip(turn, n, view) for n in rest) + "</details>")  # fmt: skip
    return (f'<div class="msg-sources"><div class="msg-sources-head">{head}</div>'
            + "".join(chip(turn, n, view) for n in first) + more + "</div>")  # fmt: skip


def copy_text(answer: Answer, view: View) -> str:
    """What Copy puts on the clipboard: the answer and its reference list, as Markdown (rag.export)."""
    return _cut(answer_markdown(answer, heading=False), view)[0]


def answer_meta(turn: Turn, view: View, copy_as: str | None = None) -> str:
    a = turn.answer
    assert a is not None
    model = "" if a.model in ("", a.backend) else f" ({esc(a.model)})"
    cited = len(a.citations)
    bits = [f"answered by <b>{esc(a.backend)}</b>{model}"]
    if a.mode == "summary":
        bits.append("summary mode")
    bits.append(f"{cited} source{'s' if cited != 1 else ''} cited")
    if a.unsupported:
        bits.append(f"{len(a.unsupported)} unsupported")
    if a.checks:
        bits.append("checked " + " + ".join("LLM" if c == "llm" else c for c in a.checks))
    if turn.k_note:
        bits.append(esc(turn.k_note))
    if a.latency_s:
        bits.append(f"{a.latency_s:.1f} s" if a.latency_s >= 0.1 else f"{a.latency_s * 1000:.0f} ms")
    text = copy_text(a, view) if copy_as is None else copy_as
    copy = (f'<button type="button" class="copy-answer" value="{esc(text)}" '
            'title="Copy the answer with its references (Markdown)">Copy</button>')  # fmt: skip
    return f'<div class="answer-meta">{" · ".join(bits)} {copy}</div>'


def _notes(turn: Turn, unplaced: Sequence[str], link: Callable[[int], str | None]) -> str:
    a = turn.answer
    assert a is not None
    notes: list[str] = []
    if not a.complete:
        notes.append('<p class="incomplete">⚠ Incomplete: the model\'s answer was cut off; what arrived is shown, and '
                     "the note below says why.</p>")  # fmt: skip
    if checks := flagged(a.sentence_checks):
        titles = [h.paper.title for h in turn.sources]
        lis = []
        for c in checks:
            head, why, evidence = flag_lines(c, titles)
            extra = "".join(f'<div class="check-detail">{txt(x)}</div>' for x in (why and f"why: {why}", evidence)
                            if x)  # fmt: skip
            lis.append(f'<li class="check-{c.label.replace(" ", "-")}"><b>{esc(head)}</b>: '
                         f"{_inline(c.sentence, link)}{extra}</li>")  # fmt: skip
        notes.append(
            '<div class="sentence-checks" role="note"><p>Checked against the cited papers '
            "(✗ contradicted, ⇄ wrong paper, ? not found):</p><ul>" + "".join(lis) + "</ul></div>"
        )
    elif unplaced:
        items = "".join(f"<li>{_inline(s, link)}</li>" for s in unplaced)
        notes.append(f'<p class="unsupported" title="{UNSUPPORTED_TIP}">⚠ Not supported by the cited sources:</p>'
                     f"<ul>{items}</ul>")  # fmt: skip
    if a.notes:
        notes.append('<ul class="note-list">' + "".join(f"<li>{txt(n)}</li>" for n in a.notes) + "</ul>")
    return '<div class="answer-notes">' + "".join(notes) + "</div>" if notes else ""


# -- the message ----------------------------------------------------------------------------------
def _pending(text: str) -> str:
    return f'<p class="pending">{esc(text)}</p>'


def render_message(turn: Turn, view: View) -> str:
    """The chat message of a turn in any state: searching, streaming, stopped, failed, answered."""
    if turn.error:
        return f'<div class="answer failed" id="{turn.aid}"><p class="error">⚠ {esc(turn.error)}</p></div>'
    parts = [searched(turn)]
    link = _cite(turn)
    a = turn.answer
    no_match = turn.filters and not turn.sources and (turn.searched or a is not None)
    if no_match:
        parts.append(f'<p class="no-match">No paper matches your filters: {esc(turn.filters)}. '
                     "Widen or clear them in Settings.</p>")  # fmt: skip
    elif a is None:
        shown, cut = _cut(turn.text, view)
        if shown:
            parts.append(f'<div class="answer-body streaming">{body(shown, (), lambda n: None)[0]}</div>{cut}')
        if turn.stopped:
            parts.append('<p class="stopped">⏹ Stopped (incomplete): you stopped this answer before it was '
                         "written and checked; its citations are not verified.</p>")  # fmt: skip
            parts.append(chips(turn, view))
        elif not shown:
            n = len(turn.hits)
            parts.append(_pending(f"Reading {n} paper{'s' if n != 1 else ''}…" if turn.searched else
                                  "Searching the index…"))  # fmt: skip
    else:
        shown, cut = _cut(a.text, view)
        labels = {c.sentence: c.label for c in a.sentence_checks if not c.supported}
        html, unplaced = body(shown, a.unsupported, link, labels)
        parts += [f'<div class="answer-body">{html}</div>', cut, _notes(turn, unplaced, link), chips(turn, view)]
    if a is not None:
        parts.append(answer_meta(turn, view, f"No paper matches your filters: {turn.filters}." if no_match else None))
    return f'<div class="answer" id="{turn.aid}">' + "".join(p for p in parts if p) + "</div>"
