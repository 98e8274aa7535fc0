"""Run the frozen lower layers once over every pair of a split and keep their outputs (fp16, one row per token,
pairs concatenated) with the labels. Resumable: a split's cache is reused while its .sha256 stamp matches the
split file.
Usage: python -m train.judge.cache DATA_DIR WORK_DIR"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import torch

from train.judge import net, sources
from train.judge.encode import encode_pairs, tokenizer

BATCH = 32


def cache_split(model: torch.nn.Module, rows: list[dict], out: Path, names: tuple[str, ...] = net.LABELS) -> None:
    enc = encode_pairs(tokenizer(), [(r["claim"], r["evidence"]) for r in rows])
    order = sorted(range(len(enc)), key=lambda i: len(enc[i][0]))  # length buckets: little padding
    states: list[torch.Tensor] = [torch.empty(0)] * len(enc)
    start = time.time()
    for n in range(0, len(order), BATCH):
        chunk = order[n: n + BATCH]
        ids, mask, types = net.collate([enc[i] for i in chunk])
        hidden = net.frozen_forward(model, ids, mask, types).to(torch.float16)
        for row, i in enumerate(chunk):
            states[i] = hidden[row, : len(enc[i][0])].clone()
        if n % (BATCH * 50) == 0:
            print(f"  {out.name}: {n}/{len(order)} pairs, {n / max(1e-9, time.time() - start):.1f} pairs/s", flush=True)
    lengths = torch.tensor([len(e[0]) for e in enc])
    labels = torch.tensor([names.index(r["label"]) for r in rows])
    types_at = torch.tensor([e[1] for e in enc])
    torch.save({"states": torch.cat(states), "lengths": lengths, "labels": labels, "claim_len": types_at,
                "names": list(names), "frozen": model.config.frozen_layers}, out)


def main(data_dir: str, work_dir: str) -> None:
    torch.set_num_threads(2)
    summary = json.loads((Path(data_dir) / "summary.json").read_text())
    seed, names = summary["seed"], net.labels_of(summary)
    model = net.load(seed, names, net.frozen_of(summary)).eval()
    Path(work_dir).mkdir(parents=True, exist_ok=True)
    for split in ("dev", "test", "train"):
        out = Path(work_dir) / f"cache-{split}.pt"
        source = Path(data_dir) / f"{split}.jsonl"
        stamp, digest = out.with_suffix(".sha256"), sources.sha256(source)
        if out.exists() and stamp.exists() and stamp.read_text().strip() == digest:
            print(f"{out} is the cache of this {split}.jsonl: reused")
            continue
        rows = [json.loads(line) for line in source.open()]
        print(f"caching {split}: {len(rows)} pairs", flush=True)
        tmp = out.with_suffix(".tmp")
        cache_split(model, rows, tmp, names)  # the stamp names the split file; a new "frozen" needs rm -rf WORK_DIR
        tmp.rename(out)
        stamp.write_text(digest + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
