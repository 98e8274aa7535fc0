"""Build the judge's (claim, evidence, label) pairs from the manifest's sources, deterministically (seed in
MANIFEST.json). Split BY PAPER on sha256(PMID): digit 0 -> test (frozen, never trained on), 1 -> dev (early
stopping), the rest -> train. Usage: python -m train.judge.generate OUT_DIR"""

from __future__ import annotations

import hashlib
import json
import random
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from train.judge import edits, sources

LABELS = ("supported", "contradicted", "not_found")
_STOP = set("the a an of and or in on at to for with by from is are was were be been this that these those as it its "
            "we our their there than which who not no".split())


def split_of(key: str) -> str:
    digit = int(hashlib.sha256(key.encode()).hexdigest(), 16) % 10
    return "test" if digit == 0 else "dev" if digit == 1 else "train"


def sentences(text: str) -> list[str]:
    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z(\[])", text.strip())
    return [p.strip() for p in parts if 6 <= len(p.split()) <= 60]


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _STOP and len(w) > 2}


def overlap(a: set[str], b: set[str]) -> float:
    return len(a & b) / max(1, min(len(a), len(b)))


def best_sentences(claim: str, pool: list[str], k: int) -> list[str]:
    cw = words(claim)
    ranked = sorted(range(len(pool)), key=lambda i: -overlap(cw, words(pool[i])))[:k]
    return [pool[i] for i in sorted(ranked)]


class PaperPairs:
    """Pairs from one abstract; `neighbour` is the nearest other abstract of the same split by word overlap."""

    def __init__(self, paper: dict[str, Any], neighbour: list[str], rng: random.Random, findings: dict[str, Any]):
        self.id = paper["id"]
        self.abstract = paper["abstract"]
        self.sents = [s for sec in paper["sections"] for s in sentences(sec["text"])]
        self.neighbour = neighbour
        self.rng = rng
        self.findings = findings
        self.numbers = edits.numbers_in(self.abstract)
        self.out: list[dict[str, Any]] = []

    def add(self, claim: str | None, evidence: list[str], label: str, kind: str) -> None:
        if claim and evidence:
            self.out.append({"claim": claim, "evidence": " ".join(evidence), "label": label, "kind": kind,
                             "source": "pubmedqa", "paper": self.id})

    def window(self, i: int) -> list[str]:
        if self.rng.random() < 0.6:
            return [self.sents[i]]
        lo, hi = max(0, i - 1), min(len(self.sents), i + 2)
        return self.sents[lo:hi]

    def contradict(self, s: str, kind: str) -> str | None:
        if kind == "number":
            return edits.change_number(s, self.rng, self.numbers)
        return edits.CONTRADICT[kind](s, self.rng)

    def build(self) -> list[dict[str, Any]]:
        rng = self.rng
        for i, s in enumerate(self.sents):
            self.supported(i, s)
            kinds = ["swap_sides", "number", "direction", "scope", "negation"]
            made = 0
            for kind in sorted(kinds, key=lambda k: (k == "negation") * 0.5 + rng.random()):
                claim = self.contradict(s, kind)
                if claim and claim != s:
                    if rng.random() < 0.25:
                        claim = edits.report_frame(claim, rng)
                    self.add(claim, self.window(i), "contradicted", kind)
                    made += 1
                    if made >= (2 if rng.random() < 0.5 else 1):
                        break
            self.not_found(i, s)
        self.conclusions()
        return self.out

    def supported(self, i: int, s: str) -> None:
        rng = self.rng
        options = [("drop_clause", edits.drop_clause(s, rng)), ("round_number", edits.round_numbers(s, rng)),
                   ("report_frame", edits.report_frame(s, rng)),
                   ("abbreviation", edits.abbreviation(s, self.abstract, rng))]
        usable = [(k, c) for k, c in options if c and c != s]
        if not usable or rng.random() < 0.15:
            usable = [("identity", s)]
        kind, claim = rng.choice(usable)
        self.add(claim, self.window(i), "supported", kind)
        if i + 1 < len(self.sents) and rng.random() < 0.2:
            a, b = self.sents[i].rstrip("."), self.sents[i + 1]
            b = b[0].lower() + b[1:] if not b[1:2].isupper() else b
            self.add(f"{a}, and {b}", self.sents[i: i + 2], "supported", "merge")

    def not_found(self, i: int, s: str) -> None:
        rng = self.rng
        roll = rng.random()
        if roll < 0.45 and self.neighbour:
            near: str = rng.choice(self.neighbour)
            self.add(near, best_sentences(near, self.sents, rng.choice([1, 2])), "not_found", "neighbour_paper")
        elif roll < 0.8:
            self.add(edits.invent_specifics(s, rng), self.window(i), "not_found", "invented_specifics")
        else:
            others = [t for j, t in enumerate(self.sents) if abs(j - i) in (1, 2)]
            evidence = [t for t in others if overlap(words(s), words(t)) < 0.4][:2]
            self.add(s, evidence, "not_found", "neighbour_sentences")

    def conclusions(self) -> None:
        """The paper's conclusion against its best-matching results sentences: real, abstractive support."""
        row = self.findings.get(self.id)
        if not row or not row.get("results"):
            return
        for c in row["conclusion"][:2]:
            if len(c.split()) < 6:
                continue
            evidence = best_sentences(c, row["results"], 2)
            self.add(c, evidence, "supported", "conclusion_vs_results")
            for kind in ("negation", "direction", "swap_sides", "scope"):
                claim = self.contradict(c, kind)
                if claim and claim != c:
                    self.add(claim, evidence, "contradicted", f"conclusion_{kind}")
                    break


def snli_pairs() -> list[dict[str, Any]]:
    label = {"entailment": "supported", "contradiction": "contradicted", "neutral": "not_found"}
    return [{"claim": r["sentence2"], "evidence": r["sentence1"], "label": label[r["gold_label"]], "kind": "snli",
             "source": "snli", "paper": r["pairID"]} for r in sources.snli()]


def split_pairs(papers: list[dict[str, Any]], findings: dict[str, Any], seed: int) -> list[dict[str, Any]]:
    """The PubMedQA pairs of one split's papers (each paper's neighbour is chosen within the split), unshuffled.
    eval.judge_sets rebuilds the frozen test split with it."""
    out: list[dict[str, Any]] = []
    bags = [words(p["abstract"]) for p in papers]
    for n, paper in enumerate(papers):
        rng = random.Random(f"{seed}-{paper['id']}")
        near = max((m for m in range(len(papers)) if m != n), key=lambda m: overlap(bags[n], bags[m]), default=None)
        neighbour = [] if near is None else [s for sec in papers[near]["sections"] for s in sentences(sec["text"])]
        out.extend(PaperPairs(paper, neighbour, rng, findings).build())
    return out


def build(seed: int) -> dict[str, list[dict[str, Any]]]:
    corpus, findings = sources.pubmedqa()
    splits: dict[str, list[dict[str, Any]]] = {"train": [], "dev": [], "test": []}
    by_split: dict[str, list[dict[str, Any]]] = {k: [] for k in splits}
    for paper in corpus:
        by_split[split_of(paper["id"])].append(paper)
    for name, papers in by_split.items():
        splits[name].extend(split_pairs(papers, findings, seed))
    for pair in snli_pairs():  # general English: train and dev only (the frozen test is scientific text)
        splits["dev" if split_of(pair["paper"]) == "dev" else "train"].append(pair)
    for name in splits:
        random.Random(f"{seed}-{name}").shuffle(splits[name])
    return splits


def main(out_dir: str) -> None:
    seed = int(sources.manifest()["seed"])
    splits = build(seed)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    summary: dict[str, Any] = {"seed": seed, "data_sha": sources.data_sha()}
    for name, rows in splits.items():
        with (out / f"{name}.jsonl").open("w") as handle:
            handle.writelines(json.dumps(r) + "\n" for r in rows)
        summary[name] = {"pairs": len(rows), "papers": len({r["paper"] for r in rows if r["source"] == "pubmedqa"}),
                         "by_label": dict(Counter(r["label"] for r in rows)),
                         "by_source": dict(Counter(r["source"] for r in rows)),
                         "by_kind": dict(Counter(f"{r['label']}/{r['kind']}" for r in rows))}
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    print(json.dumps({k: v if k in ("seed", "data_sha") else {"pairs": v["pairs"], "by_label": v["by_label"]}
                      for k, v in summary.items()}))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "train/judge/data")
