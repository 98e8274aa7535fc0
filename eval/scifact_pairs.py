"""SciFact checker pairs: expert-written claims about real biomedical abstracts, each checked as an answer sentence
citing its abstract with the product's offline check (no index: a Hit is built from the corpus record).

`<repo>/../shared/external/scifact/pairs_train.jsonl` labels each (claim, abstract) pair SUPPORT, CONTRADICT or
WRONG_PAPER (a random other abstract). SciFact is CC BY-NC: it is read from there, never copied into the repository,
and the rows kept in an eval run hold ids and labels, not its text.

Per label, the share *flagged*: SUPPORT flagged = false flags; CONTRADICT counts when labelled `contradicted` or
`not found`; WRONG_PAPER flagged = caught. Pairs are split by claim id: even ids are the half the rules were tuned
on, odd ids the half reported as held out. The similarity threshold's trade-off is computed from one run: the
threshold only decides sentences that every rule let through and no word overlap supported; for those the verdict
records the closest similarity (Verdict.similarity).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from eval.claims import at_each_trust
from rag.errors import RagError
from rag.types import CONTRADICTED, NOT_FOUND, SUPPORTED, Hit, Paper
from rag.verify.checker import SupportChecker

LABELS = ("SUPPORT", "CONTRADICT", "WRONG_PAPER")
CURVE = (0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75)  # similarity thresholds of the trade-off curve
NAMES_CURVE = (0.8, 0.7, 0.65, 0.6)  # trust_names_above values of the names trade-off (besides the setting's own)


def half(claim_id: int) -> str:
    return "tune" if claim_id % 2 == 0 else "report"


def load_pairs(folder: Path) -> tuple[list[dict[str, Any]], dict[str, Paper]]:
    """The pairs and the abstracts they cite (only those)."""
    try:
        pairs = [json.loads(line) for line in (folder / "pairs_train.jsonl").read_text("utf-8").splitlines() if line]
        wanted = {p["doc"] for p in pairs}
        papers = {}
        with (folder / "corpus.jsonl").open(encoding="utf-8") as f:
            for line in f:
                d = json.loads(line)
                if d["id"] in wanted:
                    papers[d["id"]] = Paper(id=d["id"], title=d.get("title") or "", abstract=d["abstract"])
    except (OSError, ValueError, KeyError) as exc:
        raise RagError(f"cannot read the SciFact pairs in {folder}: {exc}") from None
    return pairs, papers


def _flagged(label: str, check_label: str) -> bool:
    if label == "CONTRADICT":
        return check_label in (CONTRADICTED, NOT_FOUND)
    return check_label != SUPPORTED


def run_pairs(
    pairs: Sequence[dict[str, Any]],
    papers: dict[str, Paper],
    checker: SupportChecker,
    progress: Callable[[int, int], None] | None = None,
) -> list[dict[str, Any]]:
    """One row per pair: its label, half, the check's label, and the closest similarity when the threshold alone
    decided it (every rule let it through and no word overlap supported it)."""
    rows = []
    for done, p in enumerate(pairs, 1):
        if progress is not None:
            progress(done, len(pairs))
        paper = papers.get(p["doc"])
        if paper is None:
            continue
        v = checker.verdict(p["claim"], [Hit(paper, f"{paper.id}:0", paper.abstract, 1.0, 1.0)])
        rows.append({"id": p["id"], "label": p["label"], "half": half(int(p["claim_id"])), "check_label": v.label,
                     "reason": v.reason, "similarity": v.similarity})  # fmt: skip
    return rows


def _at(row: dict[str, Any], threshold: float | None) -> str:
    if threshold is None or row["similarity"] is None:
        return str(row["check_label"])
    return SUPPORTED if row["similarity"] >= threshold else NOT_FOUND


def _per_label(rows: Sequence[dict[str, Any]], threshold: float | None = None) -> dict[str, dict[str, Any]]:
    out = {}
    for label in LABELS:
        mine = [r for r in rows if r["label"] == label]
        checks = [_at(r, threshold) for r in mine]
        flagged = sum(_flagged(label, c) for c in checks)
        out[label] = {"n": len(mine), "flagged": flagged, "rate": flagged / len(mine) if mine else None,
                      "labels": dict(Counter(checks).most_common())}  # fmt: skip
    return out


def summarize_pairs(rows: Sequence[dict[str, Any]], threshold: float) -> dict[str, Any]:
    """Per half (and all pairs): per label n, flagged, rate and the check labels given; and the threshold curve
    on the tuning half."""
    halves = {h: [r for r in rows if r["half"] == h] for h in ("tune", "report")}
    curve = [{"threshold": t, **{label: b["rate"] for label, b in _per_label(halves["tune"], t).items()}}
             for t in CURVE]  # fmt: skip
    return {"threshold": threshold, "halves": {h: _per_label(rs) for h, rs in {**halves, "all": rows}.items()},
            "curve": curve}  # fmt: skip


def names_curve(
    pairs: Sequence[dict[str, Any]], papers: dict[str, Paper], checker: SupportChecker, gates: Sequence[float | None]
) -> list[dict[str, Any]]:
    """Per trust_names_above value, the tuning half's rates per label: how many false flags on claims that add
    background names (SUPPORT) a trusting check saves, and what it costs. Re-runs the rules only (vectors cached)."""
    tune = [p for p in pairs if half(int(p["claim_id"])) == "tune"]
    out = []
    for gate in at_each_trust(checker, gates):
        rates = _per_label(run_pairs(tune, papers, checker))
        out.append({"trust_names_above": gate, **{label: b["rate"] for label, b in rates.items()}})
    return out
