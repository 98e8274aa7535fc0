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


_HOW = {"SUPPORT": "flagged (false flags)", "CONTRADICT": "labelled contradicted or not found",
        "WRONG_PAPER": "flagged (caught)"}  # fmt: skip


def scifact_section(pairs: Mapping[str, Any], claims: Mapping[str, Any] | None = None) -> list[str]:
    """SciFact checker pairs per label and half, the label distribution, and the threshold trade-off on dev."""
    halves = pairs["halves"]
    lines = ["## SciFact checker pairs (offline check on real abstracts)", "",
             "Expert claims checked as an answer sentence citing one SciFact abstract (train claims; CC BY-NC, read "
             "from ../shared/external/scifact). Pairs split by claim id: *tune* (even ids) is what the rules were "
             "tuned on, *report* (odd ids) was only measured. Targets: SUPPORT flagged <= 0.10, CONTRADICT >= 0.50, "
             "WRONG_PAPER >= 0.98.", ""]  # fmt: skip
    rows = []
    for label, how in _HOW.items():
        rows.append([label, how] + [f"{fmt(b['rate'])} ({b['flagged']}/{b['n']})" if (b := halves[h][label])["n"]
                                    else "–" for h in ("tune", "report", "all")])  # fmt: skip
    lines += table(["pairs", "share", "tune", "report", "all"], rows, "llrrr") + [""]
    rows = [[label, ", ".join(f"{k} {v}" for k, v in halves["all"][label]["labels"].items())] for label in _HOW]
    lines += ["Labels the check gave (all pairs):", ""] + table(["pairs", "check labels"], rows) + [""]
    head = ["similarity threshold", "SUPPORT flagged", "CONTRADICT caught", "WRONG_PAPER flagged"]
    rows = [[("**" + fmt(c["threshold"]) + "**") if abs(c["threshold"] - pairs["threshold"]) < 1e-9
             else fmt(c["threshold"]), *(fmt(c[label]) for label in _HOW)] for c in pairs["curve"]]  # fmt: skip
    lines += ["Trade-off of the similarity threshold on the tuning half (the default in bold):", ""]
    lines += table(head, rows) + [""]
    for split, block in (claims or {}).items():
        if block.get("curve"):
            rows = [[fmt(c["threshold"]), fmt(c["catch_rate"]), fmt(c["false_flag_rate"])] for c in block["curve"]]
            lines += [f"The same trade-off on the own claims benchmark, {split}:", ""]
            lines += table(["similarity threshold", "wrong caught", "faithful flagged"], rows) + [""]
    if pairs.get("names_curve"):
        lines += names_section(pairs["names_curve"], claims)
    return lines


def names_section(curve: list[Mapping[str, Any]], claims: Mapping[str, Any] | None) -> list[str]:
    """The names trade-off: `trust_names_above` against SciFact (tuning half) and the own claims' dev splits."""
    splits = [s for s, b in (claims or {}).items() if b.get("names_curve")]
    head = ["trust_names_above", "SciFact SUPPORT flagged", "SciFact CONTRADICT caught",
            *(f"claims {s}: caught / flagged" for s in splits)]  # fmt: skip
    rows = []
    for i, c in enumerate(curve):
        gate = "off" if c["trust_names_above"] is None else fmt(c["trust_names_above"])
        own = [(claims or {})[s]["names_curve"][i] for s in splits]
        rows.append([f"**{gate}**" if i == 0 else gate, fmt(c["SUPPORT"]), fmt(c["CONTRADICT"]),
                     *(f"{fmt(o['catch_rate'])} / {fmt(o['false_flag_rate'])}" for o in own)])  # fmt: skip
    return ["The names trade-off (the setting in force in bold): real claims add background names the abstract does "
            "not print (SciFact), fluent wrong answers invent them (own claims). A cited sentence at least "
            "`trust_names_above` similar vouches for the names of the sentence it backs.", "",
            *table(head, rows), ""]


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
