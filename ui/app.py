"""The Gradio chat UI: `build_app(assistant, settings)` and `serve(settings, host, port, auth)`.

The only module that imports gradio. It calls the Assistant (opened by ui.startup) with the form values read by
ui.form_inputs and renders with ui.render; it holds no retrieval or prompt logic, and no conversation outside the
per-session gr.State / chat history.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import traceback
from collections.abc import Iterator
from typing import Any

os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"  # before gradio is imported

import gradio as gr  # noqa: E402

from rag.answer.assistant import Assistant  # noqa: E402
from rag.errors import ConfigError, RagError  # noqa: E402
from rag.settings import LLM_CHOICES, Settings  # noqa: E402
from rag.types import AnswerEvent, DeltaEvent, SourcesEvent  # noqa: E402
from ui import render  # noqa: E402
from ui.feedback import record_feedback  # noqa: E402
from ui.form_inputs import chat_history, search_filters  # noqa: E402
from ui.render import CSS, PAPER_JS, SOURCES_JS  # noqa: E402
from ui.startup import open_ui_assistant  # noqa: E402

EXAMPLES = [
    "How many wells are in the Alberta dataset?",
    "Summarize the continual learning papers",
    "Which paper evaluates AI agents replicating ICML papers?",
]
GENERIC_ERROR = "Something went wrong while answering; the details are in the server log."
THEME = gr.themes.Default(  # system fonts only: the page makes no outside request
    primary_hue="indigo",
    neutral_hue="slate",
    font=["Inter", "ui-sans-serif", "system-ui", "-apple-system", "Segoe UI", "Roboto", "sans-serif"],
    font_mono=["ui-monospace", "SFMono-Regular", "Menlo", "Consolas", "monospace"],
)
_KEPT_ANSWERS = 50  # per session, for feedback and copying


def _paper_count(assistant: Assistant) -> int | None:
    try:
        return len({str(m.get("paper_id")) for _, m in assistant.retriever.store.iter_metadata()})
    except Exception:  # the header is cosmetic; never fail start-up on it
        return None


def _liked_record(state: dict[str, Any] | None, data: gr.LikeData) -> dict[str, Any] | None:
    answers: dict[str, dict[str, Any]] = (state or {}).get("answers") or {}
    index = data.index[0] if isinstance(data.index, (list, tuple)) else data.index
    value = data.value
    if isinstance(value, dict):
        value = value.get("value") or value.get("content") or value.get("text")
    rec = answers.get(str(index))
    if rec is not None and (not isinstance(value, str) or value == rec["html"]):
        return rec
    return next((r for r in answers.values() if r["html"] == value), rec)


def make_respond(assistant: Assistant, settings: Settings) -> Any:
    """The chat function (named `respond`, hence the API endpoint /respond): streams raw deltas, then the
    verified answer; yields (message HTML, sources HTML, session state). Errors become one ⚠ message."""
    max_k = min(settings.ui.ui_max_k, settings.retrieval.max_k)
    default_k = min(settings.retrieval.k, max_k)

    def respond(
        message: str,
        history: list[dict[str, Any]],
        backend: str,
        model: str,
        k: float,
        year_min: Any,
        year_max: Any,
        venue: str,
        author: str,
        summary: bool,
        state: dict[str, Any] | None,
    ) -> Iterator[tuple[str, str, dict[str, Any]]]:
        state = dict(state or {})
        sources_html = render.render_sources_empty("Searching the index…")
        text = ""
        try:
            kk = max(1, min(int(k or default_k), max_k))
            events = assistant.ask_stream(
                message,
                chat_history(history),
                llm=backend or None,
                model=(model or "").strip() or None,
                k=None if kk == settings.retrieval.k else kk,
                filters=search_filters(year_min, year_max, venue, author),
                summary=True if summary else None,
            )
            for event in events:
                if isinstance(event, SourcesEvent):
                    sources_html = render.render_retrieved(event.hits)
                    pending = f"Reading {len(event.hits)} paper{'s' if len(event.hits) != 1 else ''}…"
                    yield f'<span class="pending">{pending}</span>', sources_html, state
                elif isinstance(event, DeltaEvent):
                    text += event.text
                    yield render.render_stream(text), sources_html, state
                elif isinstance(event, AnswerEvent):
                    a = event.answer
                    html = render.render_answer(a)
                    answers = dict(state.get("answers") or {})
                    answers[str(len(history or []) + 1)] = {
                        "question": message,
                        "text": a.text,
                        "backend": a.backend,
                        "html": html,
                        "cited_ids": [c.paper_id for c in a.citations],
                        "copy": render.answer_with_references(a),
                    }
                    state["answers"] = dict(list(answers.items())[-_KEPT_ANSWERS:])
                    yield html, render.render_sources(a), state
        except RagError as exc:
            yield render.render_error(str(exc)), render.render_sources_empty("No sources for this message."), state
        except Exception:
            traceback.print_exc(file=sys.stderr)
            yield render.render_error(GENERIC_ERROR), render.render_sources_empty("No sources for this message."), state

    return respond


def build_app(assistant: Assistant, settings: Settings) -> gr.Blocks:
    def show_paper(evt: gr.EventData) -> str:
        paper_id = str((getattr(evt, "_data", None) or {}).get("paper_id") or "")[:256]
        if not paper_id:
            return ""
        try:
            return render.render_paper(assistant.retriever.paper(paper_id), paper_id)
        except RagError as exc:
            return render.render_paper(None, f"{paper_id} ({exc})")

    def on_like(data: gr.LikeData, state: dict[str, Any] | None) -> None:
        rec = _liked_record(state, data)
        if rec is None or data.liked is None or data.liked == "":
            return
        liked = data.liked is True or (isinstance(data.liked, str) and data.liked.lower() == "like")
        record_feedback(settings.home, rec["question"], rec["text"], liked, rec["backend"], rec["cited_ids"])
        gr.Info("Thanks: your feedback was saved.", duration=3)

    def copy_answer(state: dict[str, Any] | None) -> Any:
        answers: dict[str, dict[str, Any]] = (state or {}).get("answers") or {}
        if not answers:
            return gr.update(value="Ask a question first: there is no answer to copy yet.", visible=True)
        return gr.update(value=answers[max(answers, key=int)]["copy"], visible=True)

    papers = _paper_count(assistant)
    auto = f"auto = an OpenAI-compatible endpoint if configured, else extractive (now: {assistant.backend_for('auto')})"
    with gr.Blocks(title="Paper QA: cited answers from research abstracts") as demo:
        state = gr.State({})
        gr.HTML(render.render_header(papers, assistant.retriever.stale), elem_id="header")
        sources = gr.HTML(
            render.render_sources_empty(),
            elem_id="sources",
            render=False,
            js_on_load=SOURCES_JS,
            apply_default_css=False,
        )
        with gr.Accordion("Settings", open=False, render=False, elem_id="settings") as settings_box:
            with gr.Row():
                backend = gr.Dropdown(list(LLM_CHOICES), value=settings.answer.llm, label="Answer backend", info=auto)
                model = gr.Textbox(
                    settings.endpoint.model,
                    label="Model name",
                    placeholder="the endpoint's default",
                    info="for the openai backend",
                )
            max_k = min(settings.ui.ui_max_k, settings.retrieval.max_k)
            k = gr.Slider(
                1,
                max_k,
                value=min(settings.retrieval.k, max_k),
                step=1,
                label="Number of sources",
                info=f"at the default ({settings.retrieval.k}) summaries use twice as many",
            )
            with gr.Row():
                year_min = gr.Textbox("", label="Year from", placeholder="any, e.g. 2023", min_width=120)
                year_max = gr.Textbox("", label="Year to", placeholder="any", min_width=120)
                venue = gr.Textbox("", label="Venue contains", placeholder="e.g. ICML", min_width=120)
                author = gr.Textbox("", label="Author contains", placeholder="e.g. Rolnick", min_width=120)
            summary = gr.Checkbox(
                False,
                label="Summarize (one line per paper)",
                info="Off: summary mode only when the question asks for one",
            )
        inputs: list[Any] = [backend, model, k, year_min, year_max, venue, author, summary, state]
        with gr.Row(equal_height=False, elem_id="main-row"):
            with gr.Column(scale=3, min_width=420):
                chatbot = gr.Chatbot(
                    elem_id="chat",
                    height=580,
                    show_label=False,
                    render=False,
                    buttons=["copy", "copy_all"],
                    placeholder="**Ask a question about the indexed papers.**<br>Answers cite their sources as [n].",
                )
                gr.ChatInterface(
                    make_respond(assistant, settings),
                    chatbot=chatbot,
                    additional_inputs=inputs,
                    additional_outputs=[sources, state],
                    examples=[[q] for q in EXAMPLES],
                    textbox=gr.Textbox(
                        placeholder="Ask about the papers, e.g. which datasets are introduced?",
                        show_label=False,
                        scale=7,
                        autofocus=True,
                        submit_btn=True,
                        stop_btn=True,
                        elem_id="question",
                    ),
                    flagging_mode="never",
                    fill_height=False,
                    autofocus=True,
                    api_name="respond",
                )
                settings_box.render()
                with gr.Row(elem_id="answer-tools"):
                    copy_btn = gr.Button(
                        "Copy answer with references", size="sm", variant="secondary", scale=0, min_width=240
                    )
                copy_box = gr.Textbox(
                    label="Answer with references",
                    lines=8,
                    max_lines=20,
                    visible=False,
                    interactive=False,
                    buttons=["copy"],
                    elem_id="copy-box",
                )
            with gr.Column(scale=2, min_width=340, elem_id="sources-col"):
                sources.render()
        paper = gr.HTML("", elem_id="paper", js_on_load=PAPER_JS, apply_default_css=False)

        sources.click(show_paper, outputs=paper, api_visibility="private")
        paper.click(lambda: "", outputs=paper, api_visibility="private")
        chatbot.like(on_like, inputs=state, api_visibility="private")
        chatbot.clear(lambda: (render.render_sources_empty(), {}), outputs=[sources, state], api_visibility="private")
        copy_btn.click(copy_answer, inputs=state, outputs=copy_box, api_visibility="private").then(
            None, inputs=copy_box, js="(t) => { try { navigator.clipboard.writeText(t); } catch (e) {} return []; }"
        )
    return demo


# -- serve --------------------------------------------------------------------------------------
def parse_auth(auth: str | None) -> tuple[str, str] | None:
    if not auth:
        return None
    user, sep, password = auth.partition(":")
    if not sep or not user or not password:
        raise ConfigError("--auth / RAG_UI_AUTH expects USER:PASSWORD")
    return user, password


def _raise_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def serve(settings: Settings, host: str = "127.0.0.1", port: int = 7860, auth: str | None = None) -> int:
    """Open (or first build) the index, then serve the UI until interrupted. Returns the exit code."""
    credentials = parse_auth(auth or os.environ.get("RAG_UI_AUTH"))
    assistant = open_ui_assistant(settings)
    try:
        demo = build_app(assistant, settings)
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, _raise_interrupt)  # terminate = Ctrl-C: close the local LLM too
        demo.queue(default_concurrency_limit=settings.ui.ui_concurrency).launch(
            server_name=host,
            server_port=port,
            auth=credentials,
            auth_message="Paper QA: please log in.",
            theme=THEME,
            css=CSS,
            footer_links=["api", "settings"],
            show_error=False,
        )
    except OSError as exc:
        print(f"error: cannot serve on {host}:{port}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        pass
    finally:
        assistant.close()
    return 0
