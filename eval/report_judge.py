"""report.md section for `rag eval --judge-compare`: the learned sentence judge beside the rules on every dev set
(eval.judge_compare), per label, per error kind and along the judge's floors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eval.markdown import cell, fmt, table

GOOD = ("SUPPORT", "faithful", "supported")  # the gold label whose flags are false flags
BAD = ("CONTRADICT", "wrong", "planted", "contradicted")  # the gold label whose flags are catches (the curve's y)


def good_bad(labels: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """A set's false-flag label and its main catch label."""
    return next((g for g in GOOD if g in labels), None), next((b for b in BAD if b in labels), None)


def _of(k: int, n: int) -> str:
    return f"{fmt(k / n)} ({k}/{n})" if n else "–"


def judge_compare_section(block: Mapping[str, Any]) -> list[str]:
    sets, floors = block.get("sets") or {}, block.get("floors") or {}
    s, c = floors.get("supported"), floors.get("contradicted")
    lines = ["## The learned sentence judge beside the rules (`--judge-compare`)", "",
             f"The same check, once with the rules deciding and once with the learned judge deciding what the vetoes "
             f"leave open, at the judge's floors supported {fmt(s)} / contradicted {fmt(c)} (the settings'). "
             "*Flagged*: any label but supported (for SciFact CONTRADICT: contradicted or not found). PubMedQA is the "
             "judge's own generated pairs: its frozen test papers were never trained on; its train papers are "
             "in-training, shown to say how far that flatters. Dev material only; never gated.", ""]  # fmt: skip
    lines += [f"- {cell(n)}" for n in block.get("notes") or []]
    rows = []
    for name, b in sets.items():
        for gold, g in b["by label"].items():
            rows.append([cell(name), cell(gold), str(g["n"]), _of(g["rules flagged"], g["n"]),
                         _of(g["judge flagged"], g["n"]), _of(g["rules contradicted"], g["n"]),
                         _of(g["judge contradicted"], g["n"])])  # fmt: skip
    head = ["dev set", "gold label", "n", "rules flagged", "judge flagged", "rules: labelled contradicted",
            "judge: labelled contradicted"]  # fmt: skip
    lines += table(head, rows, "llrrrrr") + [""]
    rows = [[cell(name), cell(kind), cell(k["gold"]), _of(k["rules"], k["n"]), _of(k["learned"], k["n"])]
            for name, b in sets.items() for kind, k in (b.get("by kind") or {}).items()]  # fmt: skip
    if rows:
        lines += ["Per error kind (flagged; for a faithful or supported kind a flag is a false flag):", ""]
        lines += table(["dev set", "kind", "gold", "rules flagged", "judge flagged"], rows, "lllrr") + [""]
    lines += _curve_table(sets) + _flattery(sets)
    return lines


def _curve_table(sets: Mapping[str, Any]) -> list[str]:
    """The rules' point and the judge's at equal floors 0.2..0.9: false flags / catches, per set."""
    names = [n for n, b in sets.items() if all(good_bad(b["by label"]))]
    if not names:
        return []
    rows = [["rules"] + [_pair(sets[n]["rules point"], sets[n]["by label"]) for n in names]]
    for f in sorted({p["supported floor"] for n in names for p in sets[n]["curve"]}):
        rows.append([f"judge {fmt(f)} / {fmt(f)}"] + [
            _pair(next(p for p in sets[n]["curve"] if p["supported floor"] == f and p["contradicted floor"] == f),
                  sets[n]["by label"]) for n in names])  # fmt: skip
    rows.append(["judge, most caught at no more false flags than the rules"]
                + [_at_rules_level(sets[n]) for n in names])  # fmt: skip
    return ["The judge's floors (supported / contradicted) against the rules: *false flags / catches* (faithful or "
            "supported flagged / wrong, planted or contradicted flagged); every floor pair is in summary.json and "
            "judge_compare.png.", "", *table(["point", *map(cell, names)], rows, "l" + "r" * len(names)), ""]


def _at_rules_level(block: Mapping[str, Any]) -> str:
    """Over every pair of floors: the judge's most catches where it flags no more faithful sentences than the
    rules do (or: no floor gets there)."""
    good, bad = good_bad(block["by label"])
    limit = block["rules point"].get(good or "", 0.0)
    fits = [p for p in block["curve"] if p.get(good or "", 1.0) <= limit + 1e-9]
    if not fits:
        low = min(block["curve"], key=lambda p: (p.get(good or "", 1.0), -p.get(bad or "", 0.0)))
        return f"none (fewest: {_pair(low, block['by label'])} at {fmt(low['supported floor'])} / " \
               f"{fmt(low['contradicted floor'])})"
    best = max(fits, key=lambda p: p.get(bad or "", 0.0))
    return f"{_pair(best, block['by label'])} at {fmt(best['supported floor'])} / {fmt(best['contradicted floor'])}"


def _pair(point: Mapping[str, float], labels: Mapping[str, Any]) -> str:
    good, bad = good_bad(labels)
    return f"{fmt(point.get(good or ''))} / {fmt(point.get(bad or ''))}"


def _flattery(sets: Mapping[str, Any]) -> list[str]:
    """How far the judge's own frozen test flatters it against SciFact (report half), at the floors in force."""
    own = sets.get("PubMedQA, judge's frozen test papers")
    sci = sets.get("SciFact train pairs, report half")
    if not own or not sci:
        return []
    o, f = own["by label"].get("supported"), sci["by label"].get("SUPPORT")
    oc, fc = own["by label"].get("contradicted"), sci["by label"].get("CONTRADICT")
    if not (o and f and oc and fc):
        return []
    return [f"How far the judge's own frozen test flatters it: it flags {_of(o['judge flagged'], o['n'])} of its own "
            f"test's supported pairs against {_of(f['judge flagged'], f['n'])} of SciFact's supported claims, and "
            f"catches {_of(oc['judge flagged'], oc['n'])} of its contradicted pairs against "
            f"{_of(fc['judge flagged'], fc['n'])} of SciFact's contradicted claims.", ""]  # fmt: skip
