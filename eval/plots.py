"""The PNG plots of an evaluation run: recall@k per suite, metrics per suite and by type, the claim check by kind,
and answer latency.

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
SUITE_PLOT_METRICS = ("recall@5", "citation_precision", "fact_coverage", "abstention_accuracy", "false_abstention_rate")
PLOTS = {
    "recall_at_k.png": "Recall@k for k = 1..10, per suite",
    "metrics_by_suite.png": "Key metrics per suite (dev and held-out test)",
    "metrics_by_type.png": "Metrics by question type (held-out suite)",
    "claims_by_kind.png": "Claim check: share flagged per kind",
    "claims_by_label.png": "SciFact checker pairs: share flagged per label",
    "claims_threshold.png": "Claim check: the similarity threshold's trade-off on dev",
    "judge_compare.png": "The learned judge's floors beside the rules' point, per dev set",
    "latency.png": "Answer latency",
}


def _recall_curve(results: Sequence[Mapping[str, Any]], max_k: int = 10) -> list[float | None]:
    answerable = [r for r in results if gold_ids(r)]
    return [mean(recall_at_k(retrieved_ids(r), gold_ids(r), k) for r in answerable) for k in range(1, max_k + 1)]


def _nan(v: Any) -> float:
    return float(v) if isinstance(v, int | float) else float("nan")


def _bars(ax: Any, groups: Sequence[str], series: Mapping[str, Sequence[float]]) -> None:
    width = 0.8 / max(1, len(series))
    for i, (label, values) in enumerate(series.items()):
        xs = [j + (i - (len(series) - 1) / 2) * width for j in range(len(groups))]
        ax.bar(xs, values, width, label=label)
        for x, v in zip(xs, values, strict=True):
            if v == 0.0:  # a zero bar is invisible: mark it so it is not mistaken for "not applicable"
                ax.text(x, 0.01, "0", ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(groups)), groups, rotation=25, ha="right")
    ax.set(ylim=(0, 1.05))
    ax.grid(axis="y", alpha=0.3)


def make_plots(
    out_dir: Path, results: Mapping[str, Sequence[Mapping[str, Any]]], summary: Mapping[str, Any]
) -> list[str]:
    """Write the PNGs into out_dir; returns their file names (in report order)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    suites = summary.get("suites") or {}
    written: list[str] = []
    ks = list(range(1, 11))

    def save(fig: Any, name: str) -> None:
        fig.tight_layout()
        fig.savefig(out_dir / name, dpi=110)
        plt.close(fig)
        written.append(name)

    fig, ax = plt.subplots(figsize=(6.8, 4.4))
    lowest = 1.0
    for name, rows in results.items():
        curve = _recall_curve(rows)
        ax.plot(ks, [_nan(v) for v in curve], marker="o", label=f"{name} (hybrid)")
        lowest = min([lowest, *(v for v in curve if isinstance(v, int | float))])
        for mode, b in ((suites.get(name) or {}).get("baselines") or {}).items():
            if mode != "hybrid" and b.get("recall_curve"):
                ax.plot(ks, [_nan(v) for v in b["recall_curve"]], linestyle="--", alpha=0.7, label=f"{name} ({mode})")
                lowest = min([lowest, *(v for v in b["recall_curve"] if isinstance(v, int | float))])
    ax.set(xlabel="k (papers retrieved)", ylabel="recall@k", title="Recall@k on answerable questions",
           ylim=(max(0.0, math.floor(lowest * 10) / 10 - 0.05), 1.02), xticks=ks)  # fmt: skip
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=7)
    save(fig, "recall_at_k.png")

    names = list(suites)
    fig, ax = plt.subplots(figsize=(max(6.8, 1.3 * len(SUITE_PLOT_METRICS) + 2), 4.4))
    _bars(ax, [METRICS[m] for m in SUITE_PLOT_METRICS],
          {f"{n} ({suites[n].get('split')})": [_nan((suites[n].get("overall") or {}).get(m))
                                                for m in SUITE_PLOT_METRICS] for n in names})  # fmt: skip
    ax.set(ylabel="score", title="Per suite: dev (tuned on) beside held-out test")
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=2)
    save(fig, "metrics_by_suite.png")

    held = next((n for n in names if suites[n].get("split") == "test"), names[0] if names else None)
    by_type = (suites.get(held) or {}).get("by_type") or {} if held else {}
    if by_type:
        types = list(by_type)
        fig, ax = plt.subplots(figsize=(max(6.4, 1.1 * len(types) + 2), 4.4))
        _bars(ax, types, {METRICS[m]: [_nan(by_type[t].get(m)) for t in types] for m in TYPE_PLOT_METRICS})
        ax.set(ylabel="score", title=f"{held}: metrics by question type (missing bar = not applicable)")
        ax.legend(fontsize=8, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.3))
        save(fig, "metrics_by_type.png")

    claims = summary.get("claims") or {}
    if claims:
        kinds = sorted({k for s in claims.values() for k in s.get("by_kind") or {}})
        fig, ax = plt.subplots(figsize=(max(6.8, 0.6 * len(kinds) + 2), 4.4))
        _bars(ax, kinds, {split: [_nan(((s.get("by_kind") or {}).get(k) or {}).get("flag_rate")) for k in kinds]
                          for split, s in claims.items()})  # fmt: skip
        ax.set(ylabel="share flagged", title="Claim check: wrong kinds should be high, faithful kinds low")
        ax.legend(fontsize=8)
        save(fig, "claims_by_kind.png")

    pairs = summary.get("scifact_pairs") or {}
    if pairs:
        labels = ["SUPPORT", "CONTRADICT", "WRONG_PAPER"]
        fig, ax = plt.subplots(figsize=(6.8, 4.4))
        _bars(ax, labels, {h: [_nan(pairs["halves"][h][lb]["rate"]) for lb in labels] for h in ("tune", "report")})
        ax.set(ylabel="share flagged", title="SciFact pairs: SUPPORT should be low, the others high")
        ax.legend(fontsize=8)
        save(fig, "claims_by_label.png")
        fig, ax = plt.subplots(figsize=(6.4, 4.4))
        curve = pairs["curve"]
        ax.plot([_nan(c["SUPPORT"]) for c in curve], [_nan(c["CONTRADICT"]) for c in curve], "o-", label="SciFact tune")
        for split, block in (summary.get("claims") or {}).items():
            if block.get("curve"):
                pts = block["curve"]
                ax.plot([_nan(c["false_flag_rate"]) for c in pts], [_nan(c["catch_rate"]) for c in pts], "s--",
                        label=f"claims {split}")  # fmt: skip
        ax.set(xlabel="faithful / supported flagged", ylabel="wrong / contradicted caught",
               title=f"Similarity threshold {curve[0]['threshold']:g}..{curve[-1]['threshold']:g} (default "
               f"{pairs['threshold']:g})")  # fmt: skip
        ax.legend(fontsize=8)
        save(fig, "claims_threshold.png")
        if pairs.get("names_curve"):
            fig, ax = plt.subplots(figsize=(6.4, 4.4))
            pts = pairs["names_curve"]
            ax.plot([_nan(c["SUPPORT"]) for c in pts], [_nan(c["CONTRADICT"]) for c in pts], "o-", label="SciFact tune")
            for split, block in (summary.get("claims") or {}).items():
                if block.get("names_curve"):
                    own = block["names_curve"]
                    ax.plot([_nan(c["false_flag_rate"]) for c in own], [_nan(c["catch_rate"]) for c in own], "s--",
                            label=f"claims {split}")  # fmt: skip
            for c in pts:
                gate = "off" if c["trust_names_above"] is None else f"{c['trust_names_above']:g}"
                ax.annotate(gate, (_nan(c["SUPPORT"]), _nan(c["CONTRADICT"])), fontsize=7)
            ax.set(xlabel="faithful / supported flagged", ylabel="wrong / contradicted caught",
                   title="trust_names_above (first point: the setting in force)")
            ax.legend(fontsize=8)
            save(fig, "claims_names.png")

    judged = (summary.get("judge_compare") or {}).get("sets") or {}
    if judged:
        fig = judge_plot(plt, judged)
        save(fig, "judge_compare.png")

    latencies = [float(r["latency_s"]) for rows in results.values() for r in rows
                 if isinstance(r.get("latency_s"), int | float)]  # fmt: skip
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    if latencies:
        ax.hist(latencies, bins=min(30, max(5, len(latencies) // 3)), color="tab:blue", alpha=0.8)
        for p, style in ((50, "--"), (95, ":")):
            value = sorted(latencies)[min(len(latencies) - 1, int(round(p / 100 * (len(latencies) - 1))))]
            ax.axvline(value, color="black", linestyle=style, label=f"p{p} = {value:.3f} s")
        ax.legend()
    else:
        ax.text(0.5, 0.5, "no latency recorded", ha="center", va="center", transform=ax.transAxes)
    ax.set(xlabel="seconds per answer", ylabel="questions", title="Answer latency (all suites)")
    save(fig, "latency.png")
    return written


def judge_plot(plt: Any, sets: Mapping[str, Any]) -> Any:
    """Per dev set: the judge at every pair of floors (dots) and the rules (a star), false flags against catches."""
    from eval.report_judge import good_bad

    fig, ax = plt.subplots(figsize=(10.5, 5.0))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, (name, block) in enumerate(sets.items()):
        good, bad = good_bad(block["by label"])
        if good is None or bad is None:
            continue
        colour = colours[i % len(colours)]
        pts = block["curve"]
        ax.scatter([_nan(p.get(good)) for p in pts], [_nan(p.get(bad)) for p in pts], s=9, alpha=0.5, color=colour,
                   label=f"{name}: judge")  # fmt: skip
        rules = block["rules point"]
        ax.scatter([_nan(rules.get(good))], [_nan(rules.get(bad))], marker="*", s=160, color=colour,
                   edgecolors="black", label=f"{name}: rules")  # fmt: skip
    ax.set(xlabel="faithful / supported flagged (false flags)", ylabel="wrong / contradicted flagged (caught)",
           xlim=(-0.02, 1.02), ylim=(-0.02, 1.02), title="Learned judge (dots: its floors 0.2..0.9) vs rules (stars)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    return fig
