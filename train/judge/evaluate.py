"""Measure the shipped int8 judge (through rag.adapters.judge_onnx, the product's path) on: the frozen test split of
generated pairs (papers training never saw), SciFact train pairs (CC BY-NC: measurement and thresholds only), and
the project's dev claims (eval/claims, never the held-out file). A sentence is flagged when P(supported) < t; a
flagged sentence is labelled contradicted when P(contradicted) >= P(not_found).
Usage: python -m train.judge.evaluate DATA_DIR [OUT_JSON [MODEL]]"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from rag.adapters.judge_onnx import JUDGE_PATH, OnnxJudge
from train.judge.encode import encode_pairs, tokenizer
from train.judge.generate import words

ROOT = Path(__file__).resolve().parents[2]
SCIFACT = ROOT.parent.parent / "shared" / "external" / "scifact"
if not SCIFACT.exists():
    SCIFACT = Path("/work/shared/external/scifact")
CLAIM_FILES = ["dev.jsonl", "dev_extra.jsonl", "retired_2026_12_03.jsonl"]  # never heldout_*
THRESHOLDS = [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]


def split_sentences(text: str) -> list[str]:
    return [p.strip() for p in re.split(r"(?<=[.!?])\s+(?=[A-Z(\[])", text.strip()) if p.strip()]


def best_evidence(claim: str, sents: list[str], k: int = 2) -> str:
    cw = words(claim)
    ranked = sorted(range(len(sents)), key=lambda i: -len(cw & words(sents[i])) / max(1, len(words(sents[i])) ** 0.5))
    return " ".join(sents[i] for i in sorted(ranked[:k]))


def decide(p: tuple[float, float, float], t: float) -> str:
    if p[0] >= t:
        return "supported"
    return "contradicted" if p[1] >= p[2] else "not_found"


def rates(probs: list[tuple[float, float, float]], t: float) -> dict[str, Any]:
    d = [decide(p, t) for p in probs]
    n = len(d)
    return {"n": n, "flagged": sum(x != "supported" for x in d), "contradicted": sum(x == "contradicted" for x in d),
            "flagged_rate": round(sum(x != "supported" for x in d) / max(1, n), 3),
            "contradicted_rate": round(sum(x == "contradicted" for x in d) / max(1, n), 3)}


def own_test(judge: OnnxJudge, data: Path) -> dict[str, Any]:
    rows = [json.loads(line) for line in (data / "test.jsonl").open()]
    probs = judge.probabilities([(r["claim"], r["evidence"]) for r in rows])
    out: dict[str, Any] = {"pairs": len(rows), "by_label": {}, "by_kind": {}}
    groups: dict[str, list[int]] = defaultdict(list)
    kinds: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        groups[r["label"]].append(i)
        kinds[f"{r['label']}/{r['kind']}"].append(i)
    for name, idx in [*groups.items()]:
        pred = [decide(probs[i], 0.5) for i in idx]
        out["by_label"][name] = {"n": len(idx), "correct": sum(p == name for p in pred),
                                 "predicted": {k: pred.count(k) for k in ("supported", "contradicted", "not_found")}}
    for name, idx in sorted(kinds.items()):
        gold = name.split("/")[0]
        pred = [decide(probs[i], 0.5) for i in idx]
        out["by_kind"][name] = {"n": len(idx), "correct": sum(p == gold for p in pred),
                                "flagged": sum(p != "supported" for p in pred)}
    out["accuracy"] = round(sum(v["correct"] for v in out["by_label"].values()) / len(rows), 3)
    return out


def scifact(judge: OnnxJudge) -> dict[str, Any]:
    docs = {}
    for line in (SCIFACT / "corpus.jsonl").open():
        d = json.loads(line)
        ends = d["sent_ends"]
        docs[d["id"]] = [d["abstract"][a:b].strip() for a, b in zip([0, *ends[:-1]], ends, strict=True)]
    rows = [json.loads(line) for line in (SCIFACT / "pairs_train.jsonl").open()]
    out: dict[str, Any] = {}
    for mode in ("gold_rationale", "best_matching"):
        pairs = []
        for r in rows:
            sents = docs[r["doc"]]
            if mode == "gold_rationale" and r["evidence"]:
                evidence = " ".join(sents[i] for i in r["evidence"] if i < len(sents))
            else:
                evidence = best_evidence(r["claim"], sents)
            pairs.append((r["claim"], evidence))
        start = time.perf_counter()
        probs = judge.probabilities(pairs)
        seconds = time.perf_counter() - start
        by: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
        for r, p in zip(rows, probs, strict=True):
            by[r["label"]].append(p)
        out[mode] = {"pairs_per_second": round(len(pairs) / seconds, 1),
                     "curve": {str(t): {label: rates(ps, t) for label, ps in sorted(by.items())} for t in THRESHOLDS}}
    return out


def claims(judge: OnnxJudge) -> dict[str, Any]:
    corpus = {}
    for line in (ROOT / "data" / "icml2025.jsonl").open():
        d = json.loads(line)
        corpus[d["id"]] = split_sentences(d["abstract"])
    rows = [json.loads(line) | {"file": f} for f in CLAIM_FILES for line in (ROOT / "eval" / "claims" / f).open()]
    pairs = []
    for r in rows:
        sents = [s for c in r["cites"] for s in corpus.get(c, [])]
        pairs.append((r["sentence"], best_evidence(r["sentence"], sents)))
    probs = judge.probabilities(pairs)
    out: dict[str, Any] = {}
    for t in THRESHOLDS:
        kinds: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
        for r, p in zip(rows, probs, strict=True):
            kinds[f"{r['label']}/{r['kind']}"].append(p)
            kinds[f"{r['label']}/ALL"].append(p)
        out[str(t)] = {k: rates(v, t) for k, v in sorted(kinds.items())}
    return {"files": CLAIM_FILES, "pairs": len(rows), "curve": out}


def load_time() -> dict[str, float]:
    """Fresh processes, median of 3: importing the runtime (onnxruntime, tokenizers, numpy; the embedder imports
    them too), and constructing the judge, with and without graph optimisation."""
    code = ("import time; t=time.perf_counter(); import onnxruntime, tokenizers, numpy; "
            "from rag.adapters.judge_onnx import OnnxJudge; u=time.perf_counter(); OnnxJudge(quick_start=%s); "
            "print(u-t, time.perf_counter()-u)")
    out: dict[str, float] = {}
    for quick in (False, True):
        runs = [subprocess.run([sys.executable, "-c", code % quick], capture_output=True, text=True, cwd=ROOT,
                               check=True).stdout.split() for _ in range(3)]
        mode = "quick_start" if quick else "optimised"
        out[f"import_seconds_{mode}"] = round(sorted(float(r[0]) for r in runs)[1], 3)
        out[f"load_seconds_{mode}"] = round(sorted(float(r[1]) for r in runs)[1], 3)
    return out


def encoding_matches(judge: OnnxJudge, data: Path) -> bool:
    rows = [json.loads(line) for line in (data / "dev.jsonl").open()][:500]
    pairs = [(r["claim"], r["evidence"]) for r in rows]
    return judge.encode(pairs) == encode_pairs(tokenizer(), pairs)


def main(data_dir: str, out_path: str, model: str = str(JUDGE_PATH)) -> None:
    data = Path(data_dir)
    judge = OnnxJudge(model, threads=2)
    result: dict[str, Any] = {"model": model, "size_bytes": Path(model).stat().st_size,
              "adapter_encoding_matches_training": encoding_matches(judge, data), "own_test": own_test(judge, data),
              "scifact": scifact(judge), "claims": claims(judge), "load": load_time()}
    Path(out_path).write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({"own_test_accuracy": result["own_test"]["accuracy"], "load": result["load"],
                      "scifact_gold_0.5": result["scifact"]["gold_rationale"]["curve"]["0.5"],
                      "claims_0.5_all": {k: v for k, v in result["claims"]["curve"]["0.5"].items() if "ALL" in k}},
                     indent=1))


if __name__ == "__main__":
    main(sys.argv[1], *(sys.argv[2:4] or ["train/judge/results.json"]))
