"""The Gradio chat UI: `build_app(index, settings)`; ui.serve runs it (`serve(settings, host, port, auth, ...)`).

The only module that imports gradio: layout and event wiring. What the events do lives in gradio-free modules:
ui.chat_flow (answers as they stream), ui.session (start, retry, undo, exports), ui.form_inputs (what a visitor
may pick), ui.message / ui.cards / ui.page (HTML), ui.auth, ui.origin and ui.hosts (login, cross-site requests,
the host names answered), ui.live_index (the index as it is now), ui.saved (the conversation in the browser's
storage), ui/static/page.js (keyboard, screen readers, the [n] preview, Clear's confirmation). No conversation
is kept on the server outside the per-session gr.State and chat history; the visitor's browser keeps a copy
(gr.BrowserState) for reloads.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"  # before gradio is imported

import gradio as gr  # noqa: E402

from rag.answer.assistant import Assistant  # noqa: E402
from rag.errors import RagError  # noqa: E402
from rag.settings import Settings  # noqa: E402
from ui import auth as access  # noqa: E402
from ui import session  # noqa: E402
from ui.cards import render_empty, render_panel  # noqa: E402
from ui.chat_flow import GENERIC_ERROR, api_updates, chat_updates, stop_turn  # noqa: E402, F401
from ui.draft_view import DraftChecks, model_option, report_file  # noqa: E402
from ui.draft_view import render_empty as render_draft_empty  # noqa: E402
from ui.feedback import record_feedback  # noqa: E402
from ui.form_inputs import capped_k, describe_filters, offered, read_options  # noqa: E402
from ui.live_index import LiveIndex, sample_count  # noqa: E402
from ui.page import render_filter_chip, render_header, render_library  # noqa: E402
from ui.saved import dump, load  # noqa: E402
from ui.turns import turns_of  # noqa: E402

EXAMPLES = [
    "How many wells are in the Alberta dataset?",
    "Summarize the continual learning papers",
    "Which paper evaluates AI agents replicating ICML papers?",
]
THEME = gr.themes.Default(  # system fonts only: the page makes no outside request
    primary_hue="indigo",
    neutral_hue="slate",
    font=["Inter", "ui-sans-serif", "system-ui", "-apple-system", "Segoe UI", "Roboto", "sans-serif"],
    font_mono=["ui-monospace", "SFMono-Regular", "Menlo", "Consolas", "monospace"],
)
# gradio's status tracker announces the key "common.complete" to screen readers (its English text is missing)
I18N = gr.I18n(en={"common.complete": "Done", "common.error": "Failed"})
_STATIC = Path(__file__).parent / "static"
CSS, SOURCES_JS, PAPER_JS, LIBRARY_JS, CHIP_JS, COPY_JS, PAGE_JS = (
    (_STATIC / name).read_text(encoding="utf-8")
    for name in ("app.css", "sources.js", "paper.js", "library.js", "chip.js", "copy.js", "page.js")
)
PRIVATE: dict[str, Any] = {"api_visibility": "private"}


def browser_store(settings: Settings) -> tuple[str, str]:
    """(storage key, secret): where the visitor's browser keeps the conversation, a key per collection, and the
    secret it is encrypted with, which outlives a restart of the UI (ui.auth.browser_secret)."""
    return f"rag-papers-{settings.collection}", access.browser_secret(settings.home)


def _live(index: Assistant | LiveIndex, settings: Settings) -> LiveIndex:
    return index if isinstance(index, LiveIndex) else LiveIndex(settings, assistant=index)


def make_respond(index: Assistant | LiveIndex, settings: Settings) -> Any:
    """The `/respond` API (gradio_client): streams the message HTML; returns (message, sources panel)."""
    live = _live(index, settings)
    choices = offered(settings, live.chats.unavailable)

    def respond(
        message: str, history: list[Any], backend: str, model: str, k: float, year_min: Any, year_max: Any,
        venue: str, author: str, summary: bool, state: dict[str, Any] | None,
    ) -> Iterator[tuple[str, list[Any], str, dict[str, Any]]]:  # fmt: skip
        form = (backend, model, k, year_min, year_max, venue, author, summary)
        options = lambda: read_options(choices, settings.retrieval.k, *form)  # noqa: E731
        current, view = live.current(), live.view()
        for html, hist, st, turn in api_updates(current, view, message, history, state, options, live.missing):
            yield html, hist, render_panel([turn], view.min_relevance), st

    return respond


def build_app(index: Assistant | LiveIndex, settings: Settings) -> gr.Blocks:
    live = _live(index, settings)
    choices = offered(settings, live.chats.unavailable)
    snap, sample = live.snapshot(), sample_count()

    def panel(state: dict[str, Any] | None) -> str:
        return render_panel(turns_of(state), live.view().min_relevance)

    def chat_turn(history: list[Any], state: dict[str, Any], *form: Any) -> Iterator[tuple[Any, str, Any]]:
        options = lambda: read_options(choices, settings.retrieval.k, *form)  # noqa: E731
        for hist, st in chat_updates(live.current(), live.view(), history, state, options, live.missing):
            yield hist, panel(st), st

    def begin(message: str, history: list[Any], state: dict[str, Any] | None) -> tuple[Any, Any, Any]:
        history, state = session.start(message, history, state)
        box = gr.Textbox(value="", interactive=False, submit_btn=False, stop_btn=True) if state["ask"] else message
        return box, history, state

    def example(evt: gr.SelectData, history: list[Any], state: dict[str, Any] | None) -> tuple[Any, Any, Any]:
        value = evt.value.get("text") if isinstance(evt.value, dict) else evt.value
        return begin(str(value or ""), history, state)

    def retry(history: list[Any], state: dict[str, Any] | None) -> tuple[Any, ...]:
        history, state = session.retry(history, state)
        box = gr.Textbox(interactive=False, submit_btn=False, stop_btn=True)
        return box, history, panel(state), state, gr.update(value="", visible=False)

    def undo(history: list[Any], state: dict[str, Any] | None) -> tuple[Any, ...]:
        history, state, question = session.undo(history, state)
        return question, history, panel(state), state, gr.update(value="", visible=False), gr.update(visible=False)

    def stop(history: list[Any], state: dict[str, Any]) -> tuple[Any, ...]:
        history, state = stop_turn(history, state, live.view())
        return history, panel(state), state, gr.Textbox(interactive=True, submit_btn=True, stop_btn=False)

    def show_paper(evt: gr.EventData, state: dict[str, Any] | None = None) -> str:
        return session.paper_dialog(live.paper, state, getattr(evt, "_data", None) or {})

    def on_like(data: gr.LikeData, state: dict[str, Any] | None) -> None:
        turn = session.liked_turn(state, data.value)
        if turn is None or turn.answer is None or data.liked is None or data.liked == "":
            return
        liked = data.liked is True or (isinstance(data.liked, str) and data.liked.lower() == "like")
        a = turn.answer
        record_feedback(settings.home, turn.question, a.text, liked, a.backend, [c.paper_id for c in a.citations])
        gr.Info("Thanks: your feedback was saved.", duration=3)

    def export(state: dict[str, Any] | None) -> tuple[Any, Any]:
        text = session.export_markdown(state)
        path = Path(tempfile.mkdtemp(prefix="export-", dir=os.environ.get("GRADIO_TEMP_DIR"))) / "conversation.md"
        path.touch(mode=0o600)
        path.write_text(text, encoding="utf-8")
        box = gr.update(value=text, visible=True, label="Conversation as Markdown")
        return box, gr.update(value=str(path), visible=True)

    def chip(*values: Any) -> str:
        return render_filter_chip(*describe_filters(*values))

    def counts(stamp: str | None) -> tuple[Any, ...]:
        """Header, library, its tab, the sample button and the stamp: unchanged (skipped) unless re-indexed."""
        now = live.snapshot()
        if now.stamp == stamp and stamp is not None:
            return gr.skip(), gr.skip(), gr.skip(), gr.skip(), gr.skip()
        total = now.info.papers
        return (render_header(now.info, sample), render_library(now.papers, total),
                gr.Tab(label=f"Library ({total if total is not None else '?'})"),
                gr.update(visible=bool(now.info.missing) and live.operator, interactive=True), now.stamp)  # fmt: skip

    def index_sample() -> tuple[Any, ...]:
        try:
            gr.Info(live.index_sample(), duration=6)
        except RagError as exc:
            gr.Warning(f"Indexing the sample papers failed: {exc}", duration=None)
        return counts(None)

    def restore(saved: Any, history: list[Any], state: dict[str, Any] | None) -> tuple[Any, ...]:
        kept = None if history else load(saved, live.view())  # a page that already shows a conversation keeps it
        if kept is None:
            return gr.skip(), gr.skip(), gr.skip()
        return kept[0], render_panel(turns_of(kept[1]), live.view().min_relevance), kept[1]

    def checked(*draft: Any) -> tuple[Any, ...]:  # the result, and its report (Markdown) to copy or download
        html, text = drafts.report(*draft)
        return html, report_file(text) if text else None, gr.Row(visible=bool(text)), gr.Textbox(text, visible=False)

    drafts = DraftChecks(live, settings, choices.models)
    now = "openai" if live.chats.configured() else "extractive"
    backend_labels = [(f"auto (now {now})" if b == "auto" else b, b) for b in choices.backends]
    with gr.Blocks(title="Paper QA: cited answers from research abstracts") as demo:
        state, api_history = gr.State({}), gr.State([])
        with gr.Sidebar(label="Settings", open=False, elem_id="settings", width=340):
            gr.HTML('<h2 class="drawer-title">Settings</h2>', apply_default_css=False)
            hidden = f"Not offered here: {choices.hidden_line()}." if choices.hidden else None
            backend = gr.Dropdown(backend_labels, value=choices.backends[0], label="Answer backend", info=hidden,
                                  interactive=len(choices.backends) > 1, elem_id="backend")  # fmt: skip
            model = gr.Dropdown([(m or "the endpoint's default", m) for m in choices.models], value=choices.models[0],
                                label="Model (openai backend)", interactive=len(choices.models) > 1, elem_id="model")
            k_info = f"1 to {choices.max_k}; at the default ({settings.retrieval.k}) summaries use twice as many"
            k = gr.Number(choices.default_k, label="Number of sources", precision=0, info=k_info, elem_id="k")
            with gr.Row():
                year_min = gr.Textbox("", label="Year from", placeholder="any, e.g. 2023", min_width=120)
                year_max = gr.Textbox("", label="Year to", placeholder="any", min_width=120)
            with gr.Row():
                venue = gr.Textbox("", label="Venue contains", placeholder="e.g. ICML", min_width=120)
                author = gr.Textbox("", label="Author contains", placeholder="e.g. Rolnick", min_width=120)
            summary = gr.Checkbox(False, label="Summarize (one line per paper)",
                                  info="Off: summary mode only when the question asks for one")  # fmt: skip
        header = gr.HTML(render_header(snap.info, sample), elem_id="header", apply_default_css=False)
        sample_btn = gr.Button(f"Index the {sample} sample papers here", variant="primary", size="sm",
                               visible=bool(snap.info.missing) and live.operator, elem_id="index-sample")  # fmt: skip
        key, secret = browser_store(settings)
        counted, saved = gr.State(snap.stamp), gr.BrowserState(None, storage_key=key, secret=secret)
        form: list[Any] = [backend, model, k, year_min, year_max, venue, author, summary]
        with gr.Row(equal_height=False, elem_id="main-row"):
            with gr.Column(scale=3, min_width=340, elem_id="chat-col"):
                chatbot = gr.Chatbot(
                    elem_id="chat", label="Conversation", show_label=False, height="calc(100dvh - 310px)",
                    min_height=360, render_markdown=False, latex_delimiters=[], buttons=[],
                    examples=[{"text": q} for q in EXAMPLES], autoscroll=True,
                    placeholder="<b>Ask a question about the indexed papers.</b><br>Answers cite their sources as [n].",
                )  # fmt: skip
                filter_chip = gr.HTML("", elem_id="filter-chip", js_on_load=CHIP_JS, apply_default_css=False)
                textbox = gr.Textbox(
                    label="Ask a question about the papers", show_label=False, elem_id="question",
                    autofocus=not snap.info.missing,  # on a phone the focus would scroll the offer to index away
                    placeholder="Ask about the papers, e.g. which datasets are introduced?", lines=1, max_lines=6,
                    submit_btn=True, stop_btn=True,
                )  # fmt: skip
                textbox.stop_btn = False  # shown while an answer streams (the stop button cancels it)
                with gr.Row(elem_id="answer-tools"):
                    copy_btn = gr.Button("Copy answer with references", size="sm", variant="secondary", scale=0)
                    export_btn = gr.Button("Export conversation", size="sm", variant="secondary", scale=0)
                    bib_btn = gr.Button("Copy BibTeX of cited papers", size="sm", variant="secondary", scale=0)
                out_box = gr.Textbox(label="Answer with references", lines=8, max_lines=20, visible=False,
                                     interactive=False, buttons=["copy"], elem_id="copy-box")  # fmt: skip
                out_file = gr.File(label="Download", visible=False, interactive=False, elem_id="export-file")
            with gr.Column(scale=2, min_width=320, elem_id="side-col"), \
                    gr.Tabs(elem_id="side-tabs", overflow_behavior="wrap"):  # on a phone: no unnamed "⋯" menu
                with gr.Tab("Sources", id="sources-tab", elem_id="sources-tab"):
                    sources = gr.HTML(render_empty(), elem_id="sources", js_on_load=SOURCES_JS, apply_default_css=False)
                total = snap.info.papers
                with gr.Tab(f"Library ({total if total is not None else '?'})", elem_id="library-tab") as lib_tab:
                    library = gr.HTML(render_library(snap.papers, total), elem_id="library", js_on_load=LIBRARY_JS,
                                      apply_default_css=False)  # fmt: skip
                with gr.Tab("Check a draft", elem_id="draft-tab"):  # ui.draft_view: `rag check` in the page
                    draft_text = gr.Textbox(
                        label="Your draft (Markdown or LaTeX)", lines=8, max_lines=18, elem_id="draft-text",
                        placeholder="Paste a paragraph or more; cite as [@key], \\cite{key}, or [1] with a "
                        "References list at the end",
                    )  # fmt: skip
                    draft_file = gr.File(label="…or upload a .md or .tex file (a LaTeX project: all its .tex files)",
                                         file_count="multiple", type="filepath", elem_id="draft-file", height=120,
                                         file_types=[".md", ".markdown", ".txt", ".tex", ".latex"])  # fmt: skip
                    draft_bib = gr.File(label="…and its .bib files (bibliography: refs.bib, \\bibliography{refs})",
                                        file_count="multiple", file_types=[".bib"], type="filepath", height=120,
                                        elem_id="draft-bib")  # fmt: skip  # ui.draft_bib reads them
                    can_ask, ask_info = model_option(live.chats.configured())
                    draft_ask = gr.Checkbox(False, label="Also ask the model", info=ask_info, interactive=can_ask,
                                            elem_id="draft-ask-model")  # fmt: skip
                    draft_btn = gr.Button("Check the draft", variant="primary", elem_id="draft-check")
                    draft_out = gr.HTML(render_draft_empty(), elem_id="draft-results", apply_default_css=False)
                    with gr.Row(elem_id="draft-tools", visible=False) as draft_tools:  # once there is a report
                        draft_copy = gr.Button("Copy report", size="sm", variant="secondary", scale=0)
                        draft_dl = gr.DownloadButton("Download report", size="sm", variant="secondary", scale=0)
                    draft_box = gr.Textbox(label="Report (Markdown)", lines=8, max_lines=20, visible=False,
                                           interactive=False, buttons=["copy"], elem_id="draft-copy-box")  # fmt: skip
        paper = gr.HTML("", elem_id="paper", js_on_load=PAPER_JS, apply_default_css=False)
        gr.HTML("", elem_id="page-script", js_on_load=PAGE_JS, apply_default_css=False)
        api_message, api_answer, api_sources = gr.Textbox(visible=False), gr.HTML(visible=False), gr.HTML(visible=False)
        api_button = gr.Button(visible=False)

        def answering(trigger: Any) -> Any:
            run = trigger.then(chat_turn, [chatbot, state, *form], [chatbot, sources, state], show_progress="hidden",
                               **PRIVATE)  # fmt: skip
            run.then(dump, state, saved, **PRIVATE).then(  # the browser's copy (for a reload), then the box again
                lambda: gr.Textbox(interactive=True, submit_btn=True, stop_btn=False), None, textbox, **PRIVATE)
            return run

        asked = answering(textbox.submit(begin, [textbox, chatbot, state], [textbox, chatbot, state], queue=False,
                                         **PRIVATE))  # fmt: skip
        picked = answering(chatbot.example_select(example, [chatbot, state], [textbox, chatbot, state], **PRIVATE))
        retried = answering(chatbot.retry(retry, [chatbot, state], [textbox, chatbot, sources, state, out_box],
                                          queue=False, **PRIVATE))  # fmt: skip
        textbox.stop(None, None, None, cancels=[asked, picked, retried], queue=False, **PRIVATE).then(
            stop, [chatbot, state], [chatbot, sources, state, textbox], queue=False, **PRIVATE  # after the cancel
        ).then(dump, state, saved, **PRIVATE)  # fmt: skip
        chatbot.undo(undo, [chatbot, state], [textbox, chatbot, sources, state, out_box, out_file], queue=False,
                     **PRIVATE).then(dump, state, saved, **PRIVATE)  # fmt: skip
        chatbot.clear(lambda: ([], render_empty(), {}, gr.update(value="", visible=False), gr.update(visible=False),
                               dump({})), None, [chatbot, sources, state, out_box, out_file, saved], queue=False,
                      **PRIVATE)  # fmt: skip  # asked to confirm first (page.js)
        demo.load(restore, [saved, chatbot, state], [chatbot, sources, state], **PRIVATE).then(
            None, js="() => { document.body.dataset.restored = 'yes'; }", **PRIVATE  # the restore ran: a page
        )  # fmt: skip  # ready for scripts and tests, which wait for it rather than for a fixed time
        counted_outputs = [header, library, lib_tab, sample_btn, counted]
        demo.load(counts, counted, counted_outputs, show_progress="hidden", **PRIVATE)
        gr.Timer(settings.ui.ui_refresh_s).tick(counts, counted, counted_outputs, show_progress="hidden", **PRIVATE)
        sample_btn.click(lambda: gr.Button(value="Indexing the sample papers…", interactive=False), None, sample_btn,
                         queue=False, **PRIVATE).then(index_sample, None, counted_outputs, **PRIVATE)  # fmt: skip
        chatbot.like(on_like, inputs=state, **PRIVATE)
        sources.click(show_paper, inputs=state, outputs=paper, **PRIVATE)
        library.click(show_paper, inputs=state, outputs=paper, **PRIVATE)
        paper.click(lambda: "", outputs=paper, **PRIVATE)
        for typed in (k.blur, k.submit):  # a number beyond the limit is shown capped, not silently changed
            typed(lambda v: gr.Number(value=capped_k(v, choices)[0], info=capped_k(v, choices)[1] or k_info), k, k,
                  queue=False, **PRIVATE)  # fmt: skip
        filters = [year_min, year_max, venue, author]
        gr.on([f.change for f in filters], chip, filters, filter_chip, queue=False, **PRIVATE)
        filter_chip.click(lambda: ("", "", "", ""), None, filters, queue=False, **PRIVATE)
        copy_btn.click(lambda s: gr.update(value=session.latest_copy(s, live.view()), visible=True,
                                           label="Answer with references (Markdown)"), state, out_box, **PRIVATE
                       ).then(None, out_box, None, js=COPY_JS, **PRIVATE)  # fmt: skip
        bib_btn.click(lambda s: gr.update(value=session.cited_bibtex(s, live.paper), visible=True,
                                          label="BibTeX of the cited papers"), state, out_box, **PRIVATE
                      ).then(None, out_box, None, js=COPY_JS, **PRIVATE)  # fmt: skip
        export_btn.click(export, state, [out_box, out_file], **PRIVATE)
        draft_btn.click(checked, [draft_text, draft_file, draft_ask, model, draft_bib],
                        [draft_out, draft_dl, draft_tools, draft_box], show_progress="minimal", **PRIVATE)  # fmt: skip
        draft_copy.click(lambda: gr.update(visible=True), None, draft_box, **PRIVATE).then(
            None, draft_box, None, js=COPY_JS, **PRIVATE)  # fmt: skip
        api_button.click(make_respond(live, settings), [api_message, api_history, *form, state],
                         [api_answer, api_history, api_sources, state], api_name="respond")  # fmt: skip
    return demo
