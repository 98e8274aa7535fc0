"""Write an evaluation run to disk: summary.json, report.md, per-suite results and PNG plots.

One run holds several suites (dev and held-out test sets, each with its corpus), the claim-checking benchmark
and the recorded strong-model answers. summary.json keeps full-precision numbers; only report.md rounds (3
decimals). The comparison with an earlier run is eval.compare, the plots eval.plots, the worst-question tables
eval.worst, the claim and replay tables eval.report_extra.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from eval.compare import compare_runs, compare_section
from eval.fields import JUDGE_METRICS, METRICS
from eval.gates import gate_status, missing_gates
from eval.markdown import cell, fmt, table
from eval.metrics import summarize
from eval.plots import PLOTS, make_plots
from eval.report_extra import claims_section, replay_section, scifact_section
from eval.report_judge import judge_compare_section
from eval.worst import worst_sections
from rag.errors import RagError

__all__ = ["METRICS", "build_summary", "render_report", "write_outputs"]

TYPE_COLUMNS = ("n", "recall@5", "mrr", "citation_precision", "citation_recall", "citation_support",
                "fact_coverage", "hallucination_rate", "abstention_accuracy", "false_abstention_rate",
                "latency_p50")  # fmt: skip
BASELINE_COLUMNS = ("n", "recall@1", "recall@3", "recall@5", "recall@10", "mrr", "ndcg@10")
SIDE_BY_SIDE = ("n", "recall@5", "recall@10", "mrr", "ndcg@10", "citation_validity", "citation_precision",
                "citation_recall", "citation_support", "fact_coverage", "hallucination_rate", "abstention_accuracy",
                "false_abstention_rate", "abstention_precision", "leads_with_finding", "contains_finding",
                "latency_p50", "latency_p95")  # fmt: skip


def build_summary(
    results: Sequence[Mapping[str, Any]],
    *,
    suite: Mapping[str, Any] | None = None,
    baselines: Mapping[str, Any] | None = None,
    judge: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """One suite: summarize() overall and by type, the suite's description, errors, baselines/judge if run."""
    scored = summarize(results)
    summary: dict[str, Any] = {
        **dict(suite or {}),
        "overall": scored["overall"],
        "by_type": scored["by_type"],
        "errors": sum(1 for r in results if r.get("error")),
    }
    if baselines is not None:
        summary["baselines"] = dict(baselines)
    if judge is not None:
        summary["judge"] = dict(judge)
    return summary


# --------------------------------------------------------------------------- report


def _header(run: Mapping[str, Any], suites: Mapping[str, Any], summary: Mapping[str, Any]) -> list[str]:
    info = [
        ("backend / model", f"{run.get('backend', '?')} / {run.get('model', '?')}"),
        ("sources per answer (k)", run.get("k", "?")),
        ("started", run.get("timestamp", "?")),
        ("duration", f"{run['duration_s']:.1f} s" if isinstance(run.get("duration_s"), int | float) else "?"),
        ("failed questions", sum(s.get("errors", 0) for s in suites.values())),
    ]
    lines = ["# Evaluation report", ""] + [f"- **{k}**: {cell(v)}" for k, v in info] + [""]
    lines += ["## Suites", "", "Tuned on `dev` only; `test` suites are frozen held-out sets (quality gates apply "
              "to them). Figures from a dev split alone are not quality claims.", ""]  # fmt: skip
    rows = [[cell(name), cell(s.get("split")), cell(s.get("questions_file")), cell(s.get("corpus") or "configured"),
             f"`{str(s.get('sha256') or '')[:12]}`"] for name, s in suites.items()]  # fmt: skip
    lines += table(["suite", "split", "questions", "corpus", "sha256"], rows, "lllll") + [""]
    return lines


def _gates(summary: Mapping[str, Any]) -> list[str]:
    gates = summary.get("gates") or {}
    failed = gates.get("failed") or []
    lines = ["## Quality gates", ""]
    lines.append("**All gates passed.**" if not failed else f"**{len(failed)} gate(s) failed:**")
    lines += [f"- {f}" for f in failed] + [""]
    rows = [
        [cell(g["scope"]), cell(g["label"]), f"{g['op']} {g['threshold']:g}", fmt(g["value"]),
         "" if g.get("target") is None else f"{g['op']} {g['target']:g}",
         {True: "pass", False: "**FAIL**", None: "skipped (not applicable)"}[g["passed"]]]
        for g in gates.get("status") or []
    ]  # fmt: skip
    if rows:
        lines += table(["scope", "metric", "gate", "value", "target", "status"], rows, "llrrrl") + [""]
    return lines


def _side_by_side(suites: Mapping[str, Any]) -> list[str]:
    names = list(suites)
    lines = ["## Side by side", ""]
    rows = [[cell(METRICS[m])] + [fmt((suites[n].get("overall") or {}).get(m)) for n in names] for m in SIDE_BY_SIDE]
    lines += table(["metric", *[f"{n} ({suites[n].get('split')})" for n in names]], rows) + [""]
    return lines


def _suite_section(name: str, s: Mapping[str, Any], results: Sequence[Mapping[str, Any]]) -> list[str]:
    lines = [f"## Suite {cell(name)} ({cell(s.get('split'))})", ""]
    by_type = s.get("by_type") or {}
    if by_type:
        lines += ["### By question type", ""]
        rows = [[cell(t)] + [fmt(block.get(m)) for m in TYPE_COLUMNS] for t, block in by_type.items()]
        lines += table(["type"] + [METRICS[m] for m in TYPE_COLUMNS], rows) + [""]
    baselines = s.get("baselines")
    if baselines:
        lines += ["### Retrieval baselines", "", "Retrieval alone (top 10 papers), same answerable questions.", ""]
        rows = [[cell(mode)] + [fmt(b.get(m)) for m in BASELINE_COLUMNS] for mode, b in baselines.items()]
        lines += table(["mode"] + [METRICS.get(m, m) for m in BASELINE_COLUMNS], rows) + [""]
    judge = s.get("judge")
    if judge:
        lines += ["### LLM-as-judge (model opinion, not a deterministic metric)", "",
                  f"Judge: {cell(judge.get('backend'))} / {cell(judge.get('model'))}; {judge.get('n_judged', 0)} of "
                  f"{judge.get('n_eligible', 0)} answered questions judged.", ""]  # fmt: skip
        if judge.get("stopped"):
            lines += [f"**The judge {cell(judge['stopped'])}.**", ""]
        unparsable = judge.get("unparsable") or {}
        rows = [[cell(label), fmt(judge.get(m)), fmt(unparsable.get(m, 0))] for m, label in JUDGE_METRICS.items()]
        lines += table(["metric", "value", "unparsable replies"], rows) + [""]
    lines += [line.replace("## ", "### ", 1) if line.startswith("## ") else line.replace("### ", "#### ", 1)
              if line.startswith("### ") else line for line in worst_sections(results)]  # fmt: skip
    return lines


def render_report(
    summary: Mapping[str, Any],
    results: Mapping[str, Sequence[Mapping[str, Any]]],
    *,
    plots: Sequence[str] = (),
    compare: Mapping[str, Any] | None = None,
    compare_dir: str | None = None,
) -> str:
    """report.md as text."""
    suites = summary.get("suites") or {}
    lines = _header(summary.get("run") or {}, suites, summary)
    lines += _gates(summary)
    lines += _side_by_side(suites)
    if summary.get("claims"):
        lines += claims_section(summary["claims"])
    if summary.get("scifact_pairs"):
        lines += scifact_section(summary["scifact_pairs"], summary.get("claims"))
    replays = {n: s["replay"] for n, s in suites.items() if s.get("replay")}
    if replays:
        lines += replay_section(replays)
    if summary.get("judge_compare"):
        lines += judge_compare_section(summary["judge_compare"])
    if compare is not None:
        lines += compare_section(compare, compare_dir)
    if plots:
        lines += ["## Plots", ""]
        for name in plots:
            lines += [f"![{PLOTS.get(name, name)}]({name})", ""]
    for name, s in suites.items():
        lines += _suite_section(name, s, results.get(name) or [])
    lines += ["---", "", "Metric definitions: see eval/README.md. Figures are rounded to 3 decimals here; "
              "summary.json holds the exact values.", ""]  # fmt: skip
    return "\n".join(lines)


# --------------------------------------------------------------------------- writing


def _json_default(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


def _jsonl(path: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False, default=_json_default) + "\n")


def write_outputs(
    out_dir: str | Path,
    summary: dict[str, Any],
    results: Mapping[str, Sequence[Mapping[str, Any]]],
    *,
    details: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
    compare_dir: str | Path | None = None,
    compare_with: Mapping[str, Any] | None = None,
    expected_gates: Collection[str] | None = None,
) -> Path:
    """Write summary.json, results/<suite>.jsonl (and any `details` files: results/<name>.jsonl), the PNGs and
    report.md into out_dir; returns report.md's path. The gates are computed here, from the summary; with
    `expected_gates` (`--check`: the held-out scopes the run was asked to cover) a gate that was not evaluated, or
    a run where none was, is a failure too."""
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RagError(f"cannot create output directory {out}: {exc.strerror or exc}") from None
    status = gate_status(summary)
    failed = [g["message"] for g in status if g["passed"] is False]
    if expected_gates is not None:
        failed += missing_gates(summary, expected_gates)
    summary["gates"] = {"status": status, "failed": failed}
    comparison = None
    if compare_with is not None:
        comparison = compare_runs(compare_with, summary)
        summary["compare"] = {"with": str(compare_dir) if compare_dir else None,
                              "better": comparison["better"], "worse": comparison["worse"]}  # fmt: skip
    try:
        for name, rows in {**results, **(details or {})}.items():
            _jsonl(out / "results" / f"{name}.jsonl", rows)
        (out / "summary.json").write_text(
            json.dumps(summary, ensure_ascii=False, indent=2, default=_json_default) + "\n", encoding="utf-8"
        )
        plots = make_plots(out, results, summary)
        report = out / "report.md"
        text = render_report(summary, results, plots=plots, compare=comparison,
                             compare_dir=str(compare_dir) if compare_dir else None)  # fmt: skip
        report.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise RagError(f"cannot write the evaluation output in {out}: {exc.strerror or exc}") from None
    return report
