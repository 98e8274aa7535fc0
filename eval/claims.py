"""The claim-checking benchmark (eval/claims/{dev,test}.jsonl): answer sentences with the papers they cite, half
faithful and half wrong by kind, run through the product's offline support check.

Per split it reports the share of wrong sentences caught, per kind, and the share of faithful sentences falsely
flagged. The check is tuned on dev only; test is held out (split by paper: dev cites even-numbered papers, test
odd-numbered ones).

Line format: {"id", "sentence", "cites": [paper ids], "label": "faithful" | "wrong", "kind", "note"}.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rag.errors import RagError
from rag.types import Hit, Paper
from rag.verify.checker import SupportChecker


@dataclass(frozen=True)
class Claim:
    id: str
    sentence: str
    cites: tuple[str, ...]
    label: str  # faithful | wrong
    kind: str
    note: str = ""


def load_claims(path: Path) -> list[Claim]:
    out = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise RagError(f"cannot read the claims file {path}: {exc.strerror or exc}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            claim = Claim(str(obj["id"]), str(obj["sentence"]), tuple(str(c) for c in obj["cites"]),
                          str(obj["label"]), str(obj["kind"]), str(obj.get("note") or ""))  # fmt: skip
        except (ValueError, KeyError, TypeError) as exc:
            raise RagError(f"{path}:{number}: not a claim ({exc})") from None
        if claim.label not in ("faithful", "wrong"):
            raise RagError(f"{path}:{number}: label must be 'faithful' or 'wrong'")
        out.append(claim)
    return out


def run_claims(
    claims: Sequence[Claim], checker: SupportChecker, paper: Callable[[str], Paper | None]
) -> list[dict[str, Any]]:
    """Judge every claim against its cited papers' whole abstracts (as a retrieved hit would show them)."""
    cache: dict[str, Paper | None] = {}
    out = []
    for claim in claims:
        hits = []
        for pid in claim.cites:
            if pid not in cache:
                cache[pid] = paper(pid)
            found = cache[pid]
            if found is not None:
                hits.append(Hit(found, f"{pid}:0", found.abstract, 1.0, 1.0))
        verdict = checker.verdict(claim.sentence, hits)
        out.append({"id": claim.id, "label": claim.label, "kind": claim.kind, "flagged": not verdict.supported,
                    "check_label": verdict.label, "reason": verdict.reason, "sentence": claim.sentence,
                    "missing_papers": len(claim.cites) - len(hits),
                    "similarity": verdict.similarity})  # fmt: skip
    return out


def summarize_claims(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    faithful = [r for r in results if r["label"] == "faithful"]
    wrong = [r for r in results if r["label"] == "wrong"]
    by_kind: dict[str, dict[str, Any]] = {}
    for r in results:
        block = by_kind.setdefault(r["kind"], {"label": r["label"], "n": 0, "flagged": 0})
        block["n"] += 1
        block["flagged"] += bool(r["flagged"])
    for block in by_kind.values():
        block["flag_rate"] = block["flagged"] / block["n"]
    caught = sum(r["flagged"] for r in wrong)
    flagged = sum(r["flagged"] for r in faithful)
    return {
        "n": len(results),
        "wrong": len(wrong),
        "caught": caught,
        "catch_rate": caught / len(wrong) if wrong else None,
        "faithful": len(faithful),
        "faithful_flagged": flagged,
        "false_flag_rate": flagged / len(faithful) if faithful else None,
        "by_kind": dict(sorted(by_kind.items(), key=lambda kv: (kv[1]["label"], kv[0]))),
    }


def rule_ablation(
    claims: Sequence[Claim], checker: SupportChecker, paper: Callable[[str], Paper | None]
) -> dict[str, dict[str, int]]:
    """What each offline rule adds: wrong sentences it alone catches and faithful ones it alone flags (the run
    with every rule, against the run without that one). Rules are cheap; embeddings are cached."""
    rules = tuple(checker.rules)
    full = run_claims(claims, checker, paper)
    out: dict[str, dict[str, int]] = {}
    try:
        for rule in sorted(rules):
            checker.rules = frozenset(r for r in rules if r != rule)
            without = run_claims(claims, checker, paper)
            only = [f["label"] for f, w in zip(full, without, strict=True) if f["flagged"] and not w["flagged"]]
            out[rule] = {"adds_catches": only.count("wrong"), "adds_false_flags": only.count("faithful")}
    finally:
        checker.rules = frozenset(rules)
    return out


def threshold_curve(results: Sequence[dict[str, Any]], thresholds: Sequence[float]) -> list[dict[str, Any]]:
    """Catch rate and false-flag rate at other similarity thresholds, from one run: the threshold decides only the
    sentences whose verdict recorded a similarity (every rule passed and no word overlap supported them)."""
    out = []
    for t in thresholds:
        flags = [(r["label"], r["flagged"] if r.get("similarity") is None else r["similarity"] < t) for r in results]
        wrong = [f for label, f in flags if label == "wrong"]
        faithful = [f for label, f in flags if label == "faithful"]
        out.append({"threshold": t, "catch_rate": sum(wrong) / len(wrong) if wrong else None,
                    "false_flag_rate": sum(faithful) / len(faithful) if faithful else None})  # fmt: skip
    return out


def at_each_trust(checker: SupportChecker, gates: Sequence[float | None]) -> Iterator[float | None]:
    """Each trust_names_above value in turn, set on the checker while the caller measures; the checker's own value
    is put back afterwards, even when a measurement fails."""
    kept = checker.terms_below
    try:
        for gate in gates:
            checker.terms_below = gate
            yield gate
    finally:
        checker.terms_below = kept


def names_curve(
    claims: Sequence[Claim], checker: SupportChecker, paper: Callable[[str], Paper | None],
    gates: Sequence[float | None],
) -> list[dict[str, Any]]:
    """Catch rate and false-flag rate per trust_names_above value (see eval.scifact_pairs.names_curve)."""
    out = []
    for gate in at_each_trust(checker, gates):
        m = summarize_claims(run_claims(claims, checker, paper))
        out.append({"trust_names_above": gate, "catch_rate": m["catch_rate"], "false_flag_rate": m["false_flag_rate"]})
    return out
