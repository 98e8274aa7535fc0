"""Build the answer-sentence model's (question, sentence, label) pairs from SQuAD 2.0 (train/answers/MANIFEST.json),
deterministically. Labels: "answers" (the sentence holds the answer span) and "does_not".

Per answerable question: the sentence holding its answer (positive) and the paragraph's other sentence sharing the
most words with the question (negative: close, no answer). Per unanswerable question (written to look answerable from
the paragraph): the sentence holding the plausible span the annotators marked, else the closest sentence (negative).
That is the case the product refuses: the papers are close, the detail is not there. Split BY ARTICLE (articles
ordered by sha256 of the title): the first 2 -> test (frozen, never trained on), the next 2 -> dev (epoch choice),
the rest -> train. Usage: python -m train.answers.generate OUT_DIR"""

from __future__ import annotations

import hashlib
import json
import random
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from train.judge import sources
from train.judge.generate import overlap, words

MANIFEST = Path(__file__).resolve().parent / "MANIFEST.json"
LABELS = ("answers", "does_not")
# embeddings + layer 0 frozen: with the judge's 4 frozen layers (question and sentence never attend to each other in
# a sentence embedder's lower layers) dev macro-F1 reached 0.63 after 3 epochs
FROZEN = 1
ENCODING = "[CLS] question [SEP] sentence [SEP], token_type_ids 0/1, the sentence truncated first"
_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])")


def spans(paragraph: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of the paragraph."""
    out, start = [], 0
    for m in _SPLIT.finditer(paragraph):
        out.append((start, m.start()))
        start = m.end()
    out.append((start, len(paragraph)))
    return [(a, b) for a, b in out if paragraph[a:b].strip()]


def holding(bounds: list[tuple[int, int]], at: int) -> int | None:
    return next((i for i, (a, b) in enumerate(bounds) if a <= at < b), None)


def pairs_of(paragraph: str, qa: dict[str, Any], article: str) -> list[dict[str, Any]]:
    bounds = spans(paragraph)
    sents = [paragraph[a:b].strip() for a, b in bounds]
    q = qa["question"].strip()
    qw = words(q)
    closest = sorted(range(len(sents)), key=lambda i: (-overlap(qw, words(sents[i])), i))

    def row(i: int, label: str, kind: str) -> dict[str, Any]:
        return {"claim": q, "evidence": sents[i], "label": label, "kind": kind, "article": article, "qid": qa["id"]}

    out = []
    if not qa.get("is_impossible"):
        answer = qa["answers"][0]
        i = holding(bounds, answer["answer_start"])
        if i is None:
            return []
        out.append(row(i, "answers", "answer_sentence"))
        texts = {a["text"] for a in qa["answers"]}
        near = next((j for j in closest if j != i and not any(t in sents[j] for t in texts)), None)
        if near is not None and overlap(qw, words(sents[near])) > 0:
            out.append(row(near, "does_not", "close_sentence"))
        return out
    plausible = qa.get("plausible_answers") or []
    i = holding(bounds, plausible[0]["answer_start"]) if plausible else None
    if i is not None:
        return [row(i, "does_not", "plausible_span")]
    return [row(closest[0], "does_not", "unanswerable_closest")] if closest else []


def build(seed: int) -> dict[str, list[dict[str, Any]]]:
    data = json.loads(sources.raw_path("squad-v2-dev-half", MANIFEST).read_text())["data"]
    order = sorted(data, key=lambda a: hashlib.sha256(a["title"].encode()).hexdigest())
    split_of = {a["title"]: "test" if n < 2 else "dev" if n < 4 else "train" for n, a in enumerate(order)}
    splits: dict[str, list[dict[str, Any]]] = {"train": [], "dev": [], "test": []}
    for article in data:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                splits[split_of[article["title"]]].extend(pairs_of(paragraph["context"], qa, article["title"]))
    for name in splits:
        random.Random(f"{seed}-{name}").shuffle(splits[name])
    return splits


def main(out_dir: str) -> None:
    seed = int(sources.manifest(MANIFEST)["seed"])
    splits = build(seed)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    summary: dict[str, Any] = {"seed": seed, "data_sha": sources.data_sha(MANIFEST), "labels": list(LABELS),
                               "encoding": ENCODING, "frozen": FROZEN}  # fmt: skip
    for name, rows in splits.items():
        with (out / f"{name}.jsonl").open("w") as handle:
            handle.writelines(json.dumps(r) + "\n" for r in rows)
        summary[name] = {"pairs": len(rows), "articles": sorted({r["article"] for r in rows}),
                         "by_label": dict(Counter(r["label"] for r in rows)),
                         "by_kind": dict(Counter(f"{r['label']}/{r['kind']}" for r in rows))}  # fmt: skip
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    print(json.dumps({k: v if not isinstance(v, dict) else {"pairs": v["pairs"], "by_label": v["by_label"]}
                      for k, v in summary.items()}))  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "train/answers/data")
