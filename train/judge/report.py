"""Markdown tables (with denominators) from evaluate.py's results.json, for train/judge/RESULTS.md.
Usage: python -m train.judge.report RESULTS_JSON [THRESHOLD]"""

from __future__ import annotations

import json
import sys
from typing import Any


def frac(a: int, n: int) -> str:
    return f"{a / n:.3f} ({a}/{n})" if n else "-"


def own_test(r: dict[str, Any]) -> list[str]:
    out = ["| gold label / edit kind | n | judged right | flagged (not supported) |", "| --- | --- | --- | --- |"]
    for name, v in r["by_kind"].items():
        out.append(f"| {name} | {v['n']} | {frac(v['correct'], v['n'])} | {frac(v['flagged'], v['n'])} |")
    for name, v in r["by_label"].items():
        p = v["predicted"]
        out.append(f"| **{name}** (all) | {v['n']} | {frac(v['correct'], v['n'])} | "
                   f"{frac(v['n'] - p['supported'], v['n'])} |")
    return out


def scifact(r: dict[str, Any]) -> list[str]:
    out = ["| evidence | t | SUPPORT flagged | CONTRADICT flagged | CONTRADICT labelled contradicted | "
           "WRONG_PAPER flagged |", "| --- | --- | --- | --- | --- | --- |"]
    for mode, v in r.items():
        for t, row in v["curve"].items():
            s, c, w = row["SUPPORT"], row["CONTRADICT"], row["WRONG_PAPER"]
            out.append(f"| {mode} | {t} | {frac(s['flagged'], s['n'])} | {frac(c['flagged'], c['n'])} | "
                       f"{frac(c['contradicted'], c['n'])} | {frac(w['flagged'], w['n'])} |")
    return out


def claims(r: dict[str, Any], t: str) -> list[str]:
    out = [f"Threshold t = {t}.", "", "| label / kind | n | flagged | labelled contradicted |",
           "| --- | --- | --- | --- |"]
    for name, v in r["curve"][t].items():
        out.append(f"| {name} | {v['n']} | {frac(v['flagged'], v['n'])} | {frac(v['contradicted'], v['n'])} |")
    out += ["", "| t | faithful flagged | wrong caught |", "| --- | --- | --- |"]
    for t2, rows in r["curve"].items():
        f, w = rows["faithful/ALL"], rows["wrong/ALL"]
        out.append(f"| {t2} | {frac(f['flagged'], f['n'])} | {frac(w['flagged'], w['n'])} |")
    return out


def main(path: str, t: str = "0.5") -> None:
    with open(path) as handle:
        r = json.load(handle)
    print(f"Model {r['model']}, {r['size_bytes'] / 1e6:.1f} MB; adapter encoding = training encoding: "
          f"{r['adapter_encoding_matches_training']}; load {json.dumps(r['load'])}\n")
    print(f"### Own frozen test split (papers never trained on), t = 0.5: accuracy {r['own_test']['accuracy']}\n")
    print("\n".join(own_test(r["own_test"])))
    print("\n### SciFact train pairs (CC BY-NC: measurement only)\n")
    print("\n".join(scifact(r["scifact"])))
    print(f"\npairs/s (int8, 2 threads): {r['scifact']['gold_rationale']['pairs_per_second']}")
    print(f"\n### Dev claims ({', '.join(r['claims']['files'])}; {r['claims']['pairs']} sentences)\n")
    print("\n".join(claims(r["claims"], t)))


if __name__ == "__main__":
    main(*sys.argv[1:3])
