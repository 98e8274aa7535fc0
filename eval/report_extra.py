"""report.md sections for the claim-checking benchmark and the recorded strong-model answers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eval.markdown import cell, fmt, table

OUTCOMES = ("kept", "refused_by_model", "refused_before_model", "replaced_by_fallback", "failed")


def claims_section(claims: Mapping[str, Any]) -> list[str]:
    splits = list(claims)
    lines = ["## Claim-checking benchmark (offline check)", "",
             "Answer sentences labelled faithful or wrong by kind (eval/claims/); dev cites even-numbered papers, "
             "test odd-numbered ones. For a wrong kind the share is *caught*, for a faithful kind the share "
             "*falsely flagged*.", ""]  # fmt: skip
    rows = [["wrong sentences caught"] + [fmt(claims[s].get("catch_rate")) for s in splits],
            ["faithful sentences falsely flagged"] + [fmt(claims[s].get("false_flag_rate")) for s in splits],
            ["sentences"] + [fmt(claims[s].get("n")) for s in splits]]  # fmt: skip
    lines += table(["", *splits], rows) + [""]
    labels = {k: b["label"] for s in splits for k, b in (claims[s].get("by_kind") or {}).items()}
    rows = []
    for kind in sorted(labels, key=lambda k: (labels[k], k)):
        label = labels[kind]
        row = [cell(kind), "caught" if label == "wrong" else "flagged (false)"]
        for s in splits:
            b = (claims[s].get("by_kind") or {}).get(kind)
            row.append("–" if b is None else f"{fmt(b['flag_rate'])} ({b['flagged']}/{b['n']})")
        rows.append(row)
    lines += table(["kind", "share", *splits], rows, "ll" + "r" * len(splits)) + [""]
    rules = sorted({r for s in splits for r in claims[s].get("rules") or {}})
    if rules:
        lines += ["What each rule adds (wrong sentences only it catches / faithful ones only it flags):", ""]
        rows = [[cell(r)] + [f"+{b['adds_catches']} / +{b['adds_false_flags']}" if (b := (claims[s].get("rules") or {})
                             .get(r)) else "–" for s in splits] for r in rules]  # fmt: skip
        lines += table(["rule", *splits], rows) + [""]
    return lines


def replay_section(replays: Mapping[str, Any]) -> list[str]:
    names = list(replays)
    lines = ["## Recorded strong-model answers (`--replay`)", "",
             "Answers a capable model would give (eval/recorded/), streamed by an OpenAI-compatible replay server "
             "through the product's openai backend; sentences checked offline. *Caught* = a planted error is "
             "flagged, removed or never shown.", ""]  # fmt: skip
    rows = []
    for outcome in OUTCOMES:
        counts = [fmt(replays[n]["scores"]["outcomes"].get(outcome, 0)) for n in names]
        rows.append([outcome.replace("_", " "), *counts])
    for key, label in (("refused_before_model", "answerable refused before the model spoke"),
                       ("faithful_flag_rate", "faithful sentences flagged"),
                       ("planted_catch_rate", "planted errors caught")):  # fmt: skip
        rows.append([label] + [fmt(replays[n]["scores"].get(key)) for n in names])
    for key in ("fact_coverage", "citation_precision", "abstention_accuracy", "false_abstention_rate"):
        rows.append([key.replace("_", " ")] + [fmt((replays[n].get("overall") or {}).get(key)) for n in names])
    lines += table(["", *names], rows) + [""]
    kinds = sorted({k for n in names for k in replays[n]["scores"]["by_kind"]})
    if kinds:
        rows = [[cell(k)] + ["–" if (b := replays[n]["scores"]["by_kind"].get(k)) is None
                             else f"{b['caught']}/{b['planted']}" for n in names] for k in kinds]  # fmt: skip
        lines += ["Planted errors caught, by kind:", ""] + table(["kind", *names], rows) + [""]
    return lines
