"""Write an evaluation run to disk: results.jsonl, summary.json, report.md and PNG plots.

summary.json keeps full-precision numbers; only report.md rounds (3 decimals). The comparison with an earlier
run is eval.compare, the plots eval.plots (matplotlib) and the worst-question tables eval.worst.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from eval.compare import compare_section, compare_summaries, load_summary
from eval.fields import JUDGE_METRICS, METRICS
from eval.gates import GATES, check_gates, gate_status
from eval.markdown import cell, fmt, table
from eval.metrics import summarize
from eval.plots import PLOTS, make_plots
from eval.worst import worst_sections
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

TYPE_COLUMNS = (
    "n",
    "recall@5",
    "mrr",
    "citation_precision",
    "citation_recall",
    "citation_support",
    "fact_coverage",
    "hallucination_rate",
    "abstention_accuracy",
    "false_abstention_rate",
    "latency_p50",
)
BASELINE_COLUMNS = ("n", "recall@1", "recall@3", "recall@5", "recall@10", "mrr", "ndcg@10")


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
    gate_rows = [
        [
            cell(g["metric"]),
            f"≥ {g['threshold']:g}",
            fmt(g["value"]),
            {True: "pass", False: "**FAIL**", None: "skipped (not applicable)"}[g["passed"]],
        ]
        for g in gates.get("status") or []
    ]
    if gate_rows:
        lines += table(["metric", "gate", "value", "status"], gate_rows, "lrrl") + [""]

    lines += ["## Overall", ""]
    lines += table(["metric", "value"], [[cell(label), fmt(overall.get(m))] for m, label in METRICS.items()]) + [""]

    by_type = summary.get("by_type") or {}
    if by_type:
        lines += ["## By question type", ""]
        rows = [[cell(t)] + [fmt(block.get(m)) for m in TYPE_COLUMNS] for t, block in by_type.items()]
        lines += table(["type"] + [METRICS[m] for m in TYPE_COLUMNS], rows) + [""]

    baselines = summary.get("baselines")
    if baselines:
        lines += [
            "## Retrieval baselines",
            "",
            "Retrieval alone (top 10 papers, no answer step) on the same answerable questions.",
            "",
        ]
        rows = [[cell(mode)] + [fmt(block.get(m)) for m in BASELINE_COLUMNS] for mode, block in baselines.items()]
        lines += table(["mode"] + [METRICS.get(m, m) for m in BASELINE_COLUMNS], rows) + [""]

    judge = summary.get("judge")
    if judge:
        lines += [
            "## LLM-as-judge (model opinion, not a deterministic metric)",
            "",
            f"Judge: {cell(judge.get('backend'))} / {cell(judge.get('model'))}, prompts "
            f"`{cell(judge.get('prompt'))}`; {judge.get('n_judged', 0)} of {judge.get('n_eligible', 0)} "
            f"answered questions judged.",
            "",
        ]
        if judge.get("stopped"):
            lines += [f"**The judge {cell(judge['stopped'])}.**", ""]
        unparsable = judge.get("unparsable") or {}
        rows = [[cell(label), fmt(judge.get(m)), fmt(unparsable.get(m, 0))] for m, label in JUDGE_METRICS.items()]
        lines += table(["metric", "value", "unparsable replies"], rows) + [""]
        jt = judge.get("by_type") or {}
        if jt:
            rows = [
                [cell(t), fmt(b.get("n")), fmt(b.get("faithfulness")), fmt(b.get("answer_relevance"))]
                for t, b in jt.items()
            ]
            lines += table(["type", "judged", "faithfulness", "answer relevance"], rows) + [""]
    if compare is not None:
        lines += compare_section(compare, compare_dir)

    if plots:
        lines += ["## Plots", ""]
        for name in plots:
            lines += [f"![{PLOTS.get(name, name)}]({name})", ""]

    lines += worst_sections(results)
    lines += [
        "---",
        "",
        "Metric definitions: see eval/README.md. Figures are rounded to 3 decimals here; "
        "summary.json holds the exact values.",
        "",
    ]
    return "\n".join(lines)


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
        summary["compare"] = {
            "with": str(compare_dir) if compare_dir else None,
            "better": comparison["better"],
            "worse": comparison["worse"],
        }
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
            render_report(
                results, summary, plots=plots, compare=comparison, compare_dir=str(compare_dir) if compare_dir else None
            ),
            encoding="utf-8",
        )
    except OSError as exc:
        raise RagError(f"cannot write the evaluation output in {out}: {exc.strerror or exc}") from None
    return report
