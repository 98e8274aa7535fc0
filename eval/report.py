"""Write an evaluation run to disk: results.jsonl, summary.json, report.md and PNG plots.

summary.json keeps full-precision numbers; only report.md rounds (3 decimals). matplotlib is imported here
only, inside the plotting function, with the Agg backend (no display needed).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from eval.gates import GATES, check_gates, gate_status
from eval.metrics import (
    abstention_outcome,
    fact_coverage,
    hallucination_hits,
    mean,
    normalize_text,
    recall_at_k,
    reciprocal_rank,
    summarize,
)
from rag.errors import RagError

__all__ = [
    "METRICS",
    "build_summary",
    "compare_summaries",
    "load_summary",
    "make_plots",
    "render_report",
    "write_outputs",
]

# Overall metrics in report order, with a label for the report.
METRICS: dict[str, str] = {
    "n": "questions",
    "recall@1": "recall@1",
    "recall@3": "recall@3",
    "recall@5": "recall@5",
    "recall@10": "recall@10",
    "mrr": "MRR",
    "ndcg@10": "nDCG@10",
    "citation_validity": "citation validity",
    "citation_precision": "citation precision",
    "citation_recall": "citation recall",
    "citation_support": "citation support",
    "fact_coverage": "fact coverage",
    "hallucination_rate": "hallucination rate",
    "abstention_accuracy": "abstention accuracy",
    "false_abstention_rate": "false abstention rate",
    "latency_p50": "latency p50 (s)",
    "latency_p95": "latency p95 (s)",
    "prompt_tokens_mean": "prompt tokens (mean)",
    "completion_tokens_mean": "completion tokens (mean)",
}
LOWER_IS_BETTER = frozenset(
    {"false_abstention_rate", "hallucination_rate", "latency_p50", "latency_p95", "prompt_tokens_mean",
     "completion_tokens_mean"}
)
NEUTRAL = frozenset({"n"})
# Timing and token changes below these tolerances are noise, not a change: (share of the old value, absolute).
TOLERANCE = {"latency_p50": (0.25, 0.05), "latency_p95": (0.25, 0.05), "prompt_tokens_mean": (0.02, 1.0),
             "completion_tokens_mean": (0.02, 1.0)}
COST_METRICS = frozenset(TOLERANCE)  # compared overall only: per type, a handful of timings is too noisy
JUDGE_METRICS = {"faithfulness": "judge faithfulness", "answer_relevance": "judge answer relevance (1-5)"}
TYPE_COLUMNS = ("n", "recall@5", "mrr", "citation_precision", "citation_recall", "citation_support", "fact_coverage",
                "hallucination_rate", "abstention_accuracy", "false_abstention_rate", "latency_p50")
BASELINE_COLUMNS = ("n", "recall@1", "recall@3", "recall@5", "recall@10", "mrr", "ndcg@10")
TYPE_PLOT_METRICS = ("recall@5", "citation_recall", "citation_support", "fact_coverage", "abstention_accuracy")
PLOTS = {
    "recall_at_k.png": "Recall@k for k = 1..10",
    "metrics_by_type.png": "Metrics by question type",
    "latency.png": "Answer latency",
}
MAX_ROWS = 15  # rows per "worst questions" table


# --------------------------------------------------------------------------- summary


def build_summary(
    results: Sequence[Mapping[str, Any]],
    *,
    run: Mapping[str, Any],
    baselines: Mapping[str, Any] | None = None,
    judge: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """summarize() overall and by type, plus run info, errors, gates, and baselines/judge when they ran."""
    scored = summarize(results)
    summary: dict[str, Any] = {
        "run": dict(run),
        "overall": scored["overall"],
        "by_type": scored["by_type"],
        "errors": sum(1 for r in results if r.get("error")),
    }
    if baselines is not None:
        summary["baselines"] = dict(baselines)
    if judge is not None:
        summary["judge"] = dict(judge)
    summary["gates"] = {"thresholds": dict(GATES), "status": gate_status(summary), "failed": check_gates(summary)}
    return summary


def load_summary(directory: str | Path) -> dict[str, Any]:
    """An earlier run's summary.json; RagError when it is missing or unreadable."""
    path = Path(directory) / "summary.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RagError(f"--compare: no summary.json in {directory}; give an earlier run's --out directory") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RagError(f"--compare: cannot read {path}: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("overall"), dict):
        raise RagError(f"--compare: {path} is not an evaluation summary (no 'overall' metrics)")
    return data


# --------------------------------------------------------------------------- comparison


def _direction(metric: str, before: Any, after: Any) -> str:
    """better, worse, same, or n/a (a side is missing, or the metric has no better direction)."""
    if not isinstance(before, (int, float)) or not isinstance(after, (int, float)):
        return "n/a"
    delta = float(after) - float(before)
    relative, absolute = TOLERANCE.get(metric, (0.0, 1e-9))
    tolerance = max(absolute, relative * abs(float(before)))
    if abs(delta) <= tolerance:
        return "same"
    if metric in NEUTRAL:
        return "changed"
    improved = delta < 0 if metric in LOWER_IS_BETTER else delta > 0
    return "better" if improved else "worse"


def _row(metric: str, label: str, before: Any, after: Any) -> dict[str, Any]:
    both = isinstance(before, (int, float)) and isinstance(after, (int, float))
    delta = float(after) - float(before) if both else None
    return {"metric": metric, "label": label, "before": before, "after": after, "delta": delta,
            "direction": _direction(metric, before, after)}


def compare_summaries(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """Metric-by-metric comparison: overall rows, per-type rows, and the better/worse lists."""
    b_all, a_all = before.get("overall") or {}, after.get("overall") or {}
    overall = [_row(m, label, b_all.get(m), a_all.get(m)) for m, label in METRICS.items()]
    b_judge, a_judge = before.get("judge") or {}, after.get("judge") or {}
    if b_judge or a_judge:
        overall += [_row(m, label, b_judge.get(m), a_judge.get(m)) for m, label in JUDGE_METRICS.items()]
    b_types, a_types = before.get("by_type") or {}, after.get("by_type") or {}
    by_type: dict[str, list[dict[str, Any]]] = {}
    for t in sorted(set(b_types) | set(a_types)):
        bt, at = b_types.get(t) or {}, a_types.get(t) or {}
        by_type[t] = [_row(m, label, bt.get(m), at.get(m)) for m, label in METRICS.items() if m not in COST_METRICS]
    better = [r["label"] for r in overall if r["direction"] == "better"]
    worse = [r["label"] for r in overall if r["direction"] == "worse"]
    better += [f"{t}: {r['label']}" for t, rows in by_type.items() for r in rows if r["direction"] == "better"]
    worse += [f"{t}: {r['label']}" for t, rows in by_type.items() for r in rows if r["direction"] == "worse"]
    return {
        "overall": overall,
        "by_type": by_type,
        "only_before": sorted(set(b_types) - set(a_types)),
        "only_after": sorted(set(a_types) - set(b_types)),
        "better": better,
        "worse": worse,
    }


# --------------------------------------------------------------------------- formatting


def fmt(value: Any) -> str:
    """A value for the report text: 3 decimals for floats, a dash for None."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "–"
        return f"{value:.3f}"
    return str(value)


def _signed(value: float | None) -> str:
    if value is None:
        return "–"
    text = f"{value:+.3f}"
    return "0.000" if text in {"+0.000", "-0.000"} else text


_ARROWS = {"better": "▲ better", "worse": "▼ worse", "same": "=", "changed": "changed", "n/a": ""}


def cell(text: Any, limit: int = 0) -> str:
    """Text safe inside a Markdown table cell (one line, pipes escaped), cut to `limit` characters."""
    s = " ".join(str(text).split())
    if limit and len(s) > limit:
        s = s[: limit - 1].rstrip() + "…"
    return s.replace("|", "\\|")


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]], align: str | None = None) -> list[str]:
    align = align or "l" + "r" * (len(header) - 1)
    sep = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "| " + " | ".join(sep) + " |"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines


# --------------------------------------------------------------------------- worst questions


def _gold(r: Mapping[str, Any]) -> list[str]:
    return list(r.get("gold") or [])


def _retrieved(r: Mapping[str, Any]) -> list[str]:
    return [str(x) for x in r.get("retrieved") or []]


def missed_retrievals(results: Sequence[Mapping[str, Any]], k: int = 5) -> list[Mapping[str, Any]]:
    """Answerable questions with a gold paper outside the top k, worst first."""
    missed = [r for r in results if _gold(r) and (recall_at_k(_retrieved(r), _gold(r), k) or 0.0) < 1.0]
    return sorted(missed, key=lambda r: (recall_at_k(_retrieved(r), _gold(r), k) or 0.0,
                                         reciprocal_rank(_retrieved(r), _gold(r)) or 0.0, r["id"]))


def wrong_abstentions(results: Sequence[Mapping[str, Any]]) -> list[tuple[str, Mapping[str, Any]]]:
    """(outcome, result) for false and missed abstentions, false ones first."""
    out: list[tuple[str, Mapping[str, Any]]] = []
    for r in results:
        if r.get("gold") is None or r.get("error"):
            continue
        outcome = abstention_outcome(bool(r.get("abstained")), r["gold"])
        if outcome in ("false_abstain", "missed_abstain"):
            out.append((outcome, r))
    return sorted(out, key=lambda pair: (pair[0] != "false_abstain", pair[1]["id"]))


def _missing_items(r: Mapping[str, Any]) -> list[str]:
    answer = normalize_text(str(r.get("answer") or ""))
    missing = []
    for item in r.get("must_include") or []:
        alts = [normalize_text(a) for a in item.split("|") if normalize_text(a)]
        if alts and not any(a in answer for a in alts):
            missing.append(item)
    return missing


def _hit_items(r: Mapping[str, Any]) -> list[str]:
    return [item for item in r.get("must_not_include") or [] if hallucination_hits(str(r.get("answer") or ""), [item])]


def _more(n: int) -> list[str]:
    return ["", f"… and {n} more (see results.jsonl)."] if n > 0 else []


def _worst_sections(results: Sequence[Mapping[str, Any]]) -> list[str]:
    lines: list[str] = ["## Worst questions", ""]

    missed = missed_retrievals(results)
    lines += [f"### Missed retrievals ({len(missed)}: a gold paper is not in the top 5)", ""]
    if missed:
        rows = []
        for r in missed[:MAX_ROWS]:
            ranked = _retrieved(r)
            ranks = ", ".join(f"{g} @{ranked.index(g) + 1}" if g in ranked else f"{g} not in top {len(ranked)}"
                              for g in _gold(r))
            rows.append([cell(r["id"]), cell(r.get("type")), fmt(recall_at_k(ranked, _gold(r), 5)), cell(ranks),
                         cell(", ".join(ranked[:3])), cell(r["question"], 100)])
        lines += _table(["id", "type", "recall@5", "gold rank", "top 3 retrieved", "question"], rows, "llrlll")
        lines += _more(len(missed) - MAX_ROWS)
    else:
        lines.append("None.")
    lines.append("")

    unsupported = sorted((r for r in results if r.get("unsupported")),
                         key=lambda r: (-len(r["unsupported"]), r["id"]))
    lines += [f"### Unsupported sentences ({len(unsupported)} answers)", ""]
    if unsupported:
        rows = [[cell(r["id"]), cell(r.get("type")), f"{len(r['unsupported'])}/{r.get('n_sentences') or 0}",
                 cell(r["unsupported"][0], 140)] for r in unsupported[:MAX_ROWS]]
        lines += _table(["id", "type", "unsupported/checked", "first unsupported sentence"], rows, "llrl")
        lines += _more(len(unsupported) - MAX_ROWS)
    else:
        lines.append("None.")
    lines.append("")

    wrong = wrong_abstentions(results)
    lines += [f"### Wrong abstentions ({len(wrong)})", ""]
    if wrong:
        rows = []
        for outcome, r in wrong[:MAX_ROWS]:
            if outcome == "false_abstain":
                what = "false abstention (answerable)"
                detail = "; ".join(r.get("notes") or []) or "refused, no reason recorded"
            else:
                what, detail = "missed abstention (unanswerable)", str(r.get("answer") or "")
            rows.append([cell(r["id"]), cell(r.get("type")), what, cell(detail, 140), cell(r["question"], 90)])
        lines += _table(["id", "type", "what", "reason / answer given", "question"], rows, "lllll")
        lines += _more(len(wrong) - MAX_ROWS)
    else:
        lines.append("None.")
    lines.append("")

    low = [(r, fact_coverage(str(r.get("answer") or ""), r.get("must_include") or [])) for r in results]
    low_cov = sorted(((r, c) for r, c in low if c is not None and c < 1.0), key=lambda rc: (rc[1], rc[0]["id"]))
    lines += [f"### Missing facts ({len(low_cov)} answers with fact coverage below 1)", ""]
    if low_cov:
        rows = [[cell(r["id"]), cell(r.get("type")), fmt(c), "yes" if r.get("abstained") else "no",
                 cell("; ".join(_missing_items(r)), 80), cell(r.get("answer") or "", 120)]
                for r, c in low_cov[:MAX_ROWS]]
        lines += _table(["id", "type", "coverage", "abstained", "missing", "answer"], rows, "llrlll")
        lines += _more(len(low_cov) - MAX_ROWS)
    else:
        lines.append("None.")
    lines.append("")

    halluc = [r for r in results if _hit_items(r)]
    lines += [f"### Hallucinations ({len(halluc)}: answer contains a must-not-include item)", ""]
    if halluc:
        rows = [[cell(r["id"]), cell(r.get("type")), cell("; ".join(_hit_items(r))), cell(r.get("answer") or "", 140)]
                for r in halluc[:MAX_ROWS]]
        lines += _table(["id", "type", "found", "answer"], rows, "llll")
        lines += _more(len(halluc) - MAX_ROWS)
    else:
        lines.append("None.")
    lines.append("")

    errors = [r for r in results if r.get("error")]
    if errors:
        lines += [f"### Failed questions ({len(errors)})", ""]
        lines += _table(["id", "type", "error"], [[cell(r["id"]), cell(r.get("type")), cell(r["error"], 200)]
                                                   for r in errors], "lll")
        lines.append("")
    return lines


# --------------------------------------------------------------------------- report


def render_report(
    results: Sequence[Mapping[str, Any]],
    summary: Mapping[str, Any],
    *,
    plots: Sequence[str] = (),
    compare: Mapping[str, Any] | None = None,
    compare_dir: str | None = None,
) -> str:
    """report.md as text."""
    run = summary.get("run") or {}
    overall = summary.get("overall") or {}
    lines: list[str] = ["# Evaluation report", ""]
    info = [
        ("questions", f"{run.get('questions_file', '?')} ({overall.get('n', len(results))} questions)"),
        ("backend / model", f"{run.get('backend', '?')} / {run.get('model', '?')}"),
        ("sources per answer (k)", run.get("k", "?")),
        ("started", run.get("timestamp", "?")),
        ("duration", f"{run['duration_s']:.1f} s" if isinstance(run.get("duration_s"), (int, float)) else "?"),
        ("failed questions", summary.get("errors", 0)),
    ]
    lines += [f"- **{k}**: {cell(v)}" for k, v in info] + [""]

    gates = summary.get("gates") or {}
    failed = gates.get("failed") or []
    lines += ["## Quality gates", ""]
    lines.append("**All gates passed.**" if not failed else f"**{len(failed)} gate(s) failed:**")
    lines += [f"- {f}" for f in failed]
    lines.append("")
    gate_rows = [[cell(g["metric"]), f"≥ {g['threshold']:g}", fmt(g["value"]),
                  {True: "pass", False: "**FAIL**", None: "skipped (not applicable)"}[g["passed"]]]
                 for g in gates.get("status") or []]
    if gate_rows:
        lines += _table(["metric", "gate", "value", "status"], gate_rows, "lrrl") + [""]

    lines += ["## Overall", ""]
    lines += _table(["metric", "value"], [[cell(label), fmt(overall.get(m))] for m, label in METRICS.items()]) + [""]

    by_type = summary.get("by_type") or {}
    if by_type:
        lines += ["## By question type", ""]
        rows = [[cell(t)] + [fmt(block.get(m)) for m in TYPE_COLUMNS] for t, block in by_type.items()]
        lines += _table(["type"] + [METRICS[m] for m in TYPE_COLUMNS], rows) + [""]

    baselines = summary.get("baselines")
    if baselines:
        lines += ["## Retrieval baselines", "",
                  "Retrieval alone (top 10 papers, no answer step) on the same answerable questions.", ""]
        rows = [[cell(mode)] + [fmt(block.get(m)) for m in BASELINE_COLUMNS] for mode, block in baselines.items()]
        lines += _table(["mode"] + [METRICS.get(m, m) for m in BASELINE_COLUMNS], rows) + [""]

    judge = summary.get("judge")
    if judge:
        lines += ["## LLM-as-judge (model opinion, not a deterministic metric)", "",
                  f"Judge: {cell(judge.get('backend'))} / {cell(judge.get('model'))}, prompts "
                  f"`{cell(judge.get('prompt'))}`; {judge.get('n_judged', 0)} of {judge.get('n_eligible', 0)} "
                  f"answered questions judged.", ""]
        if judge.get("stopped"):
            lines += [f"**The judge {cell(judge['stopped'])}.**", ""]
        unparsable = judge.get("unparsable") or {}
        rows = [[cell(label), fmt(judge.get(m)), fmt(unparsable.get(m, 0))] for m, label in JUDGE_METRICS.items()]
        lines += _table(["metric", "value", "unparsable replies"], rows) + [""]
        jt = judge.get("by_type") or {}
        if jt:
            rows = [[cell(t), fmt(b.get("n")), fmt(b.get("faithfulness")), fmt(b.get("answer_relevance"))]
                    for t, b in jt.items()]
            lines += _table(["type", "judged", "faithfulness", "answer relevance"], rows) + [""]

    if compare is not None:
        lines += _compare_section(compare, compare_dir)

    if plots:
        lines += ["## Plots", ""]
        for name in plots:
            lines += [f"![{PLOTS.get(name, name)}]({name})", ""]

    lines += _worst_sections(results)
    lines += ["---", "", "Metric definitions: see eval/README.md. Figures are rounded to 3 decimals here; "
              "summary.json holds the exact values.", ""]
    return "\n".join(lines)


def _compare_section(compare: Mapping[str, Any], compare_dir: str | None) -> list[str]:
    lines = [f"## Comparison with {cell(compare_dir or 'the earlier run')}", ""]
    better, worse = compare.get("better") or [], compare.get("worse") or []
    lines.append(f"**Better ({len(better)}):** " + (", ".join(cell(b) for b in better) if better else "nothing"))
    lines.append("")
    lines.append(f"**Worse ({len(worse)}):** " + (", ".join(cell(w) for w in worse) if worse else "nothing"))
    lines.append("")

    def rows(items: Sequence[Mapping[str, Any]]) -> list[list[str]]:
        return [[cell(r["label"]), fmt(r["before"]), fmt(r["after"]), _signed(r["delta"]), _ARROWS[r["direction"]]]
                for r in items]

    lines += ["### Overall", ""]
    lines += _table(["metric", "before", "after", "delta", ""], rows(compare.get("overall") or []), "lrrrl") + [""]
    changed_types = {t: [r for r in rs if r["direction"] in ("better", "worse", "changed")]
                     for t, rs in (compare.get("by_type") or {}).items()}
    lines += ["### By question type (changed metrics only)", ""]
    any_change = False
    for t, rs in changed_types.items():
        if not rs:
            continue
        any_change = True
        lines += [f"**{cell(t)}**", ""]
        lines += _table(["metric", "before", "after", "delta", ""], rows(rs), "lrrrl") + [""]
    if not any_change:
        lines += ["No per-type metric changed.", ""]
    for key, text in (("only_before", "only in the earlier run"), ("only_after", "only in this run")):
        if compare.get(key):
            lines += [f"Types {text}: {', '.join(cell(t) for t in compare[key])}.", ""]
    return lines


# --------------------------------------------------------------------------- plots


def _recall_curve(results: Sequence[Mapping[str, Any]], max_k: int = 10) -> list[float | None]:
    answerable = [r for r in results if _gold(r)]
    return [mean(recall_at_k(_retrieved(r), _gold(r), k) for r in answerable) for k in range(1, max_k + 1)]


def _nan(v: Any) -> float:
    return float(v) if isinstance(v, (int, float)) else float("nan")


def make_plots(out_dir: Path, results: Sequence[Mapping[str, Any]], summary: Mapping[str, Any]) -> list[str]:
    """Write the PNGs into out_dir; returns their file names (in report order)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written: list[str] = []
    ks = list(range(1, 11))

    # recall@k curves
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    baselines = summary.get("baselines") or {}
    curves = {mode: b.get("recall_curve") for mode, b in baselines.items() if b.get("recall_curve")}
    if not curves:
        curves = {"hybrid (this run)": _recall_curve(results)}
    for label, curve in curves.items():
        ax.plot(ks[: len(curve)], [_nan(v) for v in curve], marker="o", label=label)
    lowest = min((v for c in curves.values() for v in c if isinstance(v, (int, float))), default=0.0)
    ax.set(xlabel="k (papers retrieved)", ylabel="recall@k", title="Recall@k on answerable questions",
           ylim=(max(0.0, math.floor(lowest * 10) / 10 - 0.05), 1.02), xticks=ks)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(out_dir / "recall_at_k.png", dpi=110)
    plt.close(fig)
    written.append("recall_at_k.png")

    # metrics by type: grouped bars
    by_type = summary.get("by_type") or {}
    types = list(by_type)
    fig, ax = plt.subplots(figsize=(max(6.4, 1.1 * len(types) + 2), 4.4))
    width = 0.8 / len(TYPE_PLOT_METRICS)
    for i, metric in enumerate(TYPE_PLOT_METRICS):
        xs = [j + (i - (len(TYPE_PLOT_METRICS) - 1) / 2) * width for j in range(len(types))]
        values = [_nan(by_type[t].get(metric)) for t in types]
        ax.bar(xs, values, width, label=METRICS[metric])
        for x, v in zip(xs, values, strict=True):
            if v == 0.0:  # a zero bar is invisible: mark it so it is not mistaken for "not applicable"
                ax.text(x, 0.01, "0", ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(types)), types, rotation=25, ha="right")
    ax.set(ylabel="score", ylim=(0, 1.05), title="Metrics by question type (missing bar = not applicable)")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.25))
    fig.tight_layout()
    fig.savefig(out_dir / "metrics_by_type.png", dpi=110)
    plt.close(fig)
    written.append("metrics_by_type.png")

    # latency histogram
    latencies = [float(r["latency_s"]) for r in results if isinstance(r.get("latency_s"), (int, float))]
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    if latencies:
        ax.hist(latencies, bins=min(30, max(5, len(latencies) // 3)), color="tab:blue", alpha=0.8)
        overall = summary.get("overall") or {}
        for key, style in (("latency_p50", "--"), ("latency_p95", ":")):
            value = overall.get(key)
            if isinstance(value, (int, float)):
                ax.axvline(value, color="black", linestyle=style, label=f"{key[-3:]} = {value:.3f} s")
        ax.legend()
    else:
        ax.text(0.5, 0.5, "no latency recorded", ha="center", va="center", transform=ax.transAxes)
    ax.set(xlabel="seconds per answer", ylabel="questions", title="Answer latency")
    fig.tight_layout()
    fig.savefig(out_dir / "latency.png", dpi=110)
    plt.close(fig)
    written.append("latency.png")
    return written


# --------------------------------------------------------------------------- writing


def _json_default(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


def write_outputs(
    out_dir: str | Path,
    results: Sequence[Mapping[str, Any]],
    summary: dict[str, Any],
    *,
    compare_dir: str | Path | None = None,
    compare_with: Mapping[str, Any] | None = None,
) -> Path:
    """Write results.jsonl, summary.json, the PNGs and report.md into out_dir; returns report.md's path.

    With compare_dir (or an already loaded compare_with summary), the report gets a before/after section and
    summary.json a `compare` block (better/worse lists).
    """
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RagError(f"cannot create output directory {out}: {exc.strerror or exc}") from None
    comparison = None
    if compare_dir is not None or compare_with is not None:
        before = compare_with if compare_with is not None else load_summary(compare_dir)  # type: ignore[arg-type]
        comparison = compare_summaries(before, summary)
        summary["compare"] = {"with": str(compare_dir) if compare_dir else None,
                              "better": comparison["better"], "worse": comparison["worse"]}
    try:
        with (out / "results.jsonl").open("w", encoding="utf-8") as fh:
            for r in results:
                fh.write(json.dumps(r, ensure_ascii=False, default=_json_default) + "\n")
        (out / "summary.json").write_text(
            json.dumps(summary, ensure_ascii=False, indent=2, default=_json_default) + "\n", encoding="utf-8"
        )
        plots = make_plots(out, results, summary)
        report = out / "report.md"
        report.write_text(
            render_report(results, summary, plots=plots, compare=comparison,
                          compare_dir=str(compare_dir) if compare_dir else None),
            encoding="utf-8",
        )
    except OSError as exc:
        raise RagError(f"cannot write the evaluation output in {out}: {exc.strerror or exc}") from None
    return report
