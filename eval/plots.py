"""The PNG plots of an evaluation run: recall@k curves, metrics by question type, and answer latency.

The only module that imports matplotlib, inside make_plots and with the Agg backend (no display needed).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from eval.fields import METRICS, gold_ids, retrieved_ids
from eval.metrics import mean, recall_at_k

TYPE_PLOT_METRICS = ("recall@5", "citation_recall", "citation_support", "fact_coverage", "abstention_accuracy")
PLOTS = {
    "recall_at_k.png": "Recall@k for k = 1..10",
    "metrics_by_type.png": "Metrics by question type",
    "latency.png": "Answer latency",
}


def _recall_curve(results: Sequence[Mapping[str, Any]], max_k: int = 10) -> list[float | None]:
    answerable = [r for r in results if gold_ids(r)]
    return [mean(recall_at_k(retrieved_ids(r), gold_ids(r), k) for r in answerable) for k in range(1, max_k + 1)]


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
    ax.set(
        xlabel="k (papers retrieved)",
        ylabel="recall@k",
        title="Recall@k on answerable questions",
        ylim=(max(0.0, math.floor(lowest * 10) / 10 - 0.05), 1.02),
        xticks=ks,
    )
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
