"""The "Check a draft" tab: a pasted or uploaded draft (Markdown or LaTeX) checked against the library the way
`rag check` does (rag.check), and the result as HTML. No gradio here (ui/app.py wires the tab).

Each sentence is one list item: its label as an icon and a word (never colour alone; dark text on a light badge,
over 7:1), the sentence, what each citation resolved to, the evidence sentence and its paper's link. Everything
from the draft, a paper or the library goes through `esc`; links are http(s) only and open in a new tab.

The draft's .bib files are uploaded beside it and read as `rag check` reads them (ui.draft_bib, rag.check.bibfiles);
when citation keys do not resolve, a line under the list of them says why (its bibliography was not uploaded ...).

A pasted or single uploaded LaTeX draft has no folder: its \\input{...} files are not read, and a note says so (and
how to have them read). Several uploaded .tex files are a project, read with its inputs (ui.draft_project).

"Also ask the model" is `rag check --verify llm` (rag.factory.draft_second_opinion): the configured
OpenAI-compatible model judges the sentences the offline check passed, and each shows its judgement ("LLM check:
supported / unsupported"). Without an endpoint the box cannot be ticked and says why; a request that asks anyway
is checked offline with a note saying the model was not asked.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
import traceback
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from rag.check.draft import parse_draft
from rag.check.includes import pasted_note
from rag.check.render import located, markdown_report, shown_key, summary_line
from rag.check.report import CheckReport, PaperRef, SentenceResult
from rag.errors import ConfigError, RagError
from rag.factory import draft_second_opinion, open_draft_checker
from rag.settings import Settings
from rag.types import WRONG_PAPER
from rag.verify.labels import MEANINGS, SYMBOLS
from ui.draft_bib import read_uploads, why_unresolved
from ui.draft_project import read_project
from ui.html import esc, ext_link

MAX_DRAFT_BYTES = 2_000_000
GENERIC_ERROR = "The draft could not be checked; the server log has the details."
NO_ENDPOINT = "no OpenAI-compatible endpoint is configured (start the UI with OPENAI_BASE_URL or RAG_PRESET set)"
MODEL_INFO = ("The configured model also judges each sentence the offline check passed (as rag check --verify llm); "
              "it only adds flags")  # fmt: skip


def model_option(configured: bool) -> tuple[bool, str]:
    """(whether "Also ask the model" can be ticked, the line under it saying what it does or why it cannot)."""
    return (True, MODEL_INFO) if configured else (False, f"Not available: {NO_ENDPOINT}.")


def _slug(label: str) -> str:
    return label.replace(" ", "-")


class DraftChecks:
    """Checks drafts for every visitor over the index as it is now: the library is read again when the index
    changes (its fingerprint), not for every draft."""

    def __init__(self, live: Any, settings: Settings, models: Sequence[str] = ()) -> None:
        self.live, self.settings = live, settings
        self.models = tuple(models)  # the model names offered (ui.form_inputs.Choices.models); () takes any
        self._lock = threading.Lock()
        self._checker: Any = None
        self._stamp: str | None = None

    def checker(self) -> Any:
        assistant = self.live.current()
        if assistant is None:
            return None
        stamp = str(getattr(assistant.retriever.lexical, "fingerprint", "") or "")
        with self._lock:
            if self._checker is None or self._stamp != stamp or self._checker.retriever is not assistant.retriever:
                self._checker, self._stamp = open_draft_checker(self.settings, assistant.retriever), stamp
            return self._checker

    def check(self, text: str | None, upload: str | Sequence[str] | None, ask_model: bool | None = False,
              model: str | None = None, bibs: str | Sequence[str] | None = None) -> str:  # fmt: skip
        """The result as HTML (`report`: with the report as Markdown)."""
        return self.report(text, upload, ask_model, model, bibs)[0]

    def report(self, text: str | None, upload: str | Sequence[str] | None, ask_model: bool | None = False,
               model: str | None = None, bibs: str | Sequence[str] | None = None) -> tuple[str, str]:  # fmt: skip
        """(the result as HTML for the pasted `text`, or the uploaded file at path `upload` (it wins; several: a LaTeX
        project's .tex files, ui.draft_project); `ask_model`: also ask the configured model (`model`, one of those
        offered; empty: the first); `bibs`: the paths of the uploaded .bib files (ui.draft_bib); and the report as the
        Markdown `rag check --format markdown` writes ("" when there is no report, only a message)."""
        files = [upload] if isinstance(upload, str) else list(upload or [])
        name: str | None
        try:
            bib = read_uploads(bibs)
            if len(files) > 1:  # a LaTeX project: its \input's read from the files (ui.draft_project)
                name, draft = read_project(files)
                inputs = None
            else:
                name, body = read_input(text, files[0] if files else None)
                draft = parse_draft(body, name)
                inputs = pasted_note(body) if draft.format == "latex" else None  # no folder: \input not followed
        except ValueError as exc:
            return render_message(str(exc)), ""
        chosen = (model or "").strip() or (self.models[0] if self.models else "")
        if ask_model and self.models and chosen not in self.models:
            return render_message(f"The model '{chosen}' is not offered here."), ""
        inputs = f"{inputs}, or upload the main .tex file together with the files it includes" if inputs else None
        if not draft.sentences:
            return render_message("There is no sentence to check: paste a paragraph or more of your draft."
                                  + (f" {inputs}." if inputs else "")
                                  + (f" {draft.notes[0]}." if draft.notes and not inputs else "")), ""  # fmt: skip
        draft = replace(draft, notes=(*draft.notes, *([inputs] if inputs else []), *bib.notes))
        checker = self.checker()
        if checker is None:
            return render_message(f"There is no index to check against: {self.live.missing or 'it is empty'}."), ""
        judge, note = None, None
        if ask_model:
            try:
                judge = draft_second_opinion(self.settings, self.live.chats, chosen or None)
            except ConfigError:
                note = f"The model was not asked: {NO_ENDPOINT}. The sentences were checked offline only."
        try:
            report = checker.check(draft, name=name or "draft", collection=self.settings.collection,
                                   references=bib.references, second_opinion=judge, bibliography=bib.names)
        except RagError as exc:
            return render_message(f"The draft could not be checked: {exc}"), ""
        except Exception:  # a bug: its traceback to the server log, a plain sentence to the visitor
            traceback.print_exc(file=sys.stderr)
            return render_message(GENERIC_ERROR), ""
        why = why_unresolved(draft.bibliography_files, bib, report.unknown_keys)
        report = replace(report, notes=(*report.notes, note)) if note else report
        return render_report(report, why), markdown_report(report)


def read_input(text: str | None, upload: str | None) -> tuple[str | None, str]:
    """(file name or None, draft text); ValueError with a sentence for the visitor when it cannot be read."""
    if upload:
        path = Path(upload)
        try:
            data = path.read_bytes()[: MAX_DRAFT_BYTES + 1]
        except OSError:
            raise ValueError("The uploaded file could not be read.") from None
        if len(data) > MAX_DRAFT_BYTES:
            raise ValueError(f"The file is larger than {MAX_DRAFT_BYTES // 1_000_000} MB: check it in parts.")
        try:
            return path.name, data.decode("utf-8").removeprefix("\ufeff")
        except UnicodeDecodeError:
            raise ValueError("The file is not UTF-8 text: save it as UTF-8 (a .md or .tex file).") from None
    body = (text or "").strip()
    if not body:
        raise ValueError("Paste your draft (Markdown or LaTeX) or upload a .md or .tex file, then press Check.")
    if len(body.encode("utf-8")) > MAX_DRAFT_BYTES:
        raise ValueError(f"The draft is larger than {MAX_DRAFT_BYTES // 1_000_000} MB: check it in parts.")
    return None, body


def report_file(text: str) -> str:
    """The path of a new file `draft-check.md` (only its owner may read it) holding the report `text`."""
    path = Path(tempfile.mkdtemp(prefix="draft-check-", dir=os.environ.get("GRADIO_TEMP_DIR"))) / "draft-check.md"
    path.touch(mode=0o600)
    path.write_text(text, encoding="utf-8")
    return str(path)


def render_message(message: str) -> str:
    return f'<div class="draft-check"><p class="dc-message" role="status">{esc(message)}</p></div>'


def render_empty() -> str:
    legend = "".join(f'<li><span class="dc-badge dc-{_slug(k)}">{esc(SYMBOLS[k])} {esc(k)}</span> {esc(v)}</li>'
                     for k, v in MEANINGS.items())  # fmt: skip
    return ('<div class="draft-check"><p class="dc-message">Paste a draft or upload a .md or .tex file: each '
            "sentence is checked against the papers it cites ([@key], \\cite{key} or [1] with a reference list). Keys "
            "that the draft's .bib file maps to papers need that file uploaded too."
            f'</p><ul class="dc-legend">{legend}</ul></div>')


def _paper(p: PaperRef | None) -> str:
    if p is None:
        return ""
    link = ext_link(p.url, "Paper ↗", more=f": {p.title} (opens in a new tab)")
    return f'<span class="dc-paper">{esc(p.title)} <code>{esc(p.id)}</code></span> {link}'


def _item(s: SentenceResult) -> str:
    slug = _slug(s.label)
    parts = [f'<div class="dc-head"><span class="dc-badge dc-{slug}">{esc(SYMBOLS[s.label])} {esc(s.label)}</span>'
             f'<span class="dc-line">{esc(located(s))}</span></div>', f'<p class="dc-text">{esc(s.text)}</p>']
    for c in s.cites:
        where = _paper(c.paper) + f' <span class="dc-how">by {esc(c.matched_by)}</span>' if c.paper else \
            '<span class="dc-missing">not in the library</span>'  # fmt: skip
        parts.append(f'<p class="dc-cite">cites <code>{esc(shown_key(c.key))}</code>: {where}</p>')
    if s.reason and s.cites:
        parts.append(f'<p class="dc-reason">Why: {esc(s.reason)}</p>')
    if s.evidence:
        parts.append(f'<blockquote class="dc-evidence">{esc(s.evidence)}</blockquote>'
                     f'<p class="dc-source">— {_paper(s.evidence_paper)}</p>')  # fmt: skip
    if s.supported_by:
        kind = "Said by" if s.label == WRONG_PAPER else "Suggested citation"
        parts.append(f'<p class="dc-related">{kind}: ' + "; ".join(_paper(p) for p in s.supported_by) + "</p>")
    if s.llm:
        parts.append(f'<p class="dc-reason">LLM check: {esc(s.llm)}</p>')
    return f'<li class="dc-item dc-{slug}" data-label="{esc(s.label)}">{"".join(parts)}</li>'


def render_report(report: CheckReport, why: str | None = None) -> str:
    """`why`: why keys did not resolve (ui.draft_bib.why_unresolved), under the list of them."""
    unknown = report.unknown_keys
    listed = ", ".join(map(shown_key, unknown))
    missing = f'<p class="dc-unknown">Not in the library: {esc(listed)}.</p>' if unknown else ""
    missing += f'<p class="dc-why" role="note">{esc(why)}</p>' if why else ""
    flagged = report.flagged
    head = (f'<p class="dc-summary" role="status"><b>{flagged} sentence{"s" if flagged != 1 else ""} flagged</b> of '
            f"{len(report.sentences)} ({esc(report.format)}, {report.library_papers} papers in the library, checked "
            f"{esc(' + '.join(report.checks))}): {esc(summary_line(report))}.</p>{missing}")  # fmt: skip
    if report.notes:  # the model was not asked, or its check failed: said, never dropped
        head += '<ul class="dc-notes" role="note">' + "".join(f"<li>{esc(n)}</li>" for n in report.notes) + "</ul>"
    items = "".join(_item(s) for s in report.sentences)
    title = '<h3 class="dc-title" tabindex="-1">Results of the check</h3>'  # page.js: scrolled to, focused
    return f'<div class="draft-check">{title}{head}<ol class="dc-list">{items}</ol></div>'
