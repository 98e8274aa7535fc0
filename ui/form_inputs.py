"""Chat-form values -> Assistant arguments: the backend and model a visitor may pick, the number of sources, and
the search filters.

What a visitor may pick is the operator's choice (settings `ui_backends`, `ui_models`; default: the configured
backend and model only), less the backends that cannot answer on this machine. The same check runs on every
request, so an API client cannot ask for more than the page offers. A value typed wrong raises QuestionError,
which the UI shows as a ⚠ message. No gradio here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rag.errors import QuestionError
from rag.filters import Filters
from rag.settings import Settings


def _split(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


@dataclass(frozen=True)
class Choices:
    backends: tuple[str, ...]  # offered; the first is the default
    hidden: tuple[tuple[str, str], ...]  # (backend, why it is not offered)
    models: tuple[str, ...]  # offered model names ("" = the endpoint's default); the first is the default
    max_k: int
    default_k: int

    def hidden_line(self) -> str:
        """ "local: llama-cpp-python is not installed" for the backends the operator allowed but cannot answer."""
        return "; ".join(f"{name}: {why}" for name, why in self.hidden)


def offered(settings: Settings, unavailable: Callable[[str], str | None]) -> Choices:
    backends, hidden = [], []
    for name in dict.fromkeys(_split(settings.ui.ui_backends) or [settings.answer.llm]):
        why = unavailable(name) if name != "auto" else None
        if why:
            hidden.append((name, why))
        else:
            backends.append(name)
    models = list(dict.fromkeys(_split(settings.ui.ui_models) or [settings.endpoint.model]))
    if settings.endpoint.model in models:  # the configured model is the default
        models.remove(settings.endpoint.model)
        models.insert(0, settings.endpoint.model)
    max_k = min(settings.ui.ui_max_k, settings.retrieval.max_k)
    return Choices(tuple(backends or ["extractive"]), tuple(hidden), tuple(models), max_k,
                   min(settings.retrieval.k, max_k))  # fmt: skip


@dataclass(frozen=True)
class Options:
    """Arguments for Assistant.ask_stream, and what the reader should be told about them."""

    llm: str
    model: str | None
    k: int | None  # None: the configured default (twice as many for summaries)
    filters: Filters | None
    summary: bool | None
    k_note: str = ""  # "20 sources, the most allowed here (asked for 99)"


def capped_k(value: Any, choices: Choices) -> tuple[int, str]:
    """The number of sources the form should show, and why it differs from what was typed."""
    try:
        asked = int(float(value))
    except (TypeError, ValueError, OverflowError):
        return choices.default_k, "not a number: back to the default"
    k = max(1, min(asked, choices.max_k))
    return k, "" if k == asked else f"{asked} is out of range: capped at {k} (1 to {choices.max_k})"


def _k(value: Any, choices: Choices, configured_k: int) -> tuple[int | None, str]:
    if value is None or value == "":
        asked = choices.default_k
    else:
        try:
            asked = int(float(value))
        except (TypeError, ValueError, OverflowError):
            raise QuestionError("the number of sources must be a whole number, like 5") from None
    k = max(1, min(asked, choices.max_k))
    note = ""
    if asked > choices.max_k:
        note = f"{k} sources, the most allowed here (asked for {asked})"
    elif asked < 1:
        note = f"1 source, the fewest possible (asked for {asked})"
    return (None if k == configured_k else k), note


def read_options(
    choices: Choices, configured_k: int, backend: str | None, model: str | None, k: Any,
    year_min: Any, year_max: Any, venue: str | None, author: str | None, summary: bool | None,
) -> Options:  # fmt: skip
    llm = (backend or "").strip() or choices.backends[0]
    if llm not in choices.backends:
        raise QuestionError(f"the answer backend '{llm}' is not offered here; choose {' or '.join(choices.backends)}")
    name = (model or "").strip() or choices.models[0]
    if name not in choices.models:
        shown = " or ".join(m or "the endpoint's default" for m in choices.models)
        raise QuestionError(f"the model '{name}' is not offered here; choose {shown}")
    kk, note = _k(k, choices, configured_k)
    filters = search_filters(year_min, year_max, venue, author)
    return Options(llm, name or None, kk, filters, True if summary else None, note)


def _year(value: Any, label: str) -> int | None:
    if value is None or value == "":
        return None
    try:
        year = int(float(value))
    except (TypeError, ValueError, OverflowError):
        raise QuestionError(f"{label} must be a year, like 2024") from None
    if not 0 < year < 10000:
        raise QuestionError(f"{label} must be a year, like 2024")
    return year


def search_filters(year_min: Any, year_max: Any, venue: str | None, author: str | None) -> Filters | None:
    lo, hi = _year(year_min, "'Year from'"), _year(year_max, "'Year to'")
    if lo is not None and hi is not None and lo > hi:
        raise QuestionError(f"the year range {lo}-{hi} is empty")
    f = Filters(lo, hi, (venue or "").strip() or None, (author or "").strip() or None)
    return f if f.active else None


def describe_filters(year_min: Any, year_max: Any, venue: str | None, author: str | None) -> tuple[str, str]:
    """(the active filters described, the problem with them) for the filter chip."""
    try:
        f = search_filters(year_min, year_max, venue, author)
    except QuestionError as exc:
        return "", str(exc)
    return (f.describe() if f else ""), ""
