"""Train the judge's top layers + head on the cached lower-layer states. Fixed seed; a checkpoint after every
epoch (resumes from the last one); the best epoch by dev macro-F1 is kept as best.pt.
Usage: python -m train.judge.train WORK_DIR [--epochs N] [--max-train N] [--init BEST_PT]"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import torch

from train.judge import net

BATCH = 32


def names_of(path: Path) -> tuple[tuple[str, ...], int]:
    """The labels and the frozen layers the cache was made with (a cache from before the fields: the judge's)."""
    data = torch.load(path)
    return tuple(data.get("names", net.LABELS)), int(data.get("frozen", net.FROZEN))


def load_cache(path: Path) -> tuple[list[torch.Tensor], list[tuple[int, int]], torch.Tensor]:
    data = torch.load(path)
    offsets = torch.cumsum(torch.cat([torch.zeros(1, dtype=torch.long), data["lengths"]]), 0)
    states = [data["states"][offsets[i]: offsets[i + 1]] for i in range(len(data["lengths"]))]
    meta = list(zip(data["lengths"].tolist(), data["claim_len"].tolist(), strict=True))
    return states, meta, data["labels"]


def batches(order: list[int], lengths: list[int], rng: random.Random) -> list[list[int]]:
    """Length buckets (sorted inside windows of 50 batches), then the batches shuffled."""
    out: list[list[int]] = []
    window = BATCH * 50
    for n in range(0, len(order), window):
        chunk = sorted(order[n: n + window], key=lambda i: lengths[i])
        out.extend(chunk[k: k + BATCH] for k in range(0, len(chunk), BATCH))
    rng.shuffle(out)
    return out


def stack(states: list[torch.Tensor], idx: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(len(states[i]) for i in idx)
    hidden = torch.zeros(len(idx), width, states[idx[0]].shape[1])
    mask = torch.zeros(len(idx), width, dtype=torch.long)
    for row, i in enumerate(idx):
        hidden[row, : len(states[i])] = states[i].float()
        mask[row, : len(states[i])] = 1
    return hidden, mask


@torch.no_grad()
def predict(model: torch.nn.Module, states: list[torch.Tensor], lengths: list[int]) -> torch.Tensor:
    model.eval()
    order = sorted(range(len(states)), key=lambda i: lengths[i])
    probs = torch.zeros(len(states), model.config.num_labels)
    for k in range(0, len(order), 64):
        idx = order[k: k + 64]
        hidden, mask = stack(states, idx)
        probs[idx] = torch.softmax(net.top_forward(model, hidden, mask), -1)
    return probs


def figures(probs: torch.Tensor, labels: torch.Tensor, names: tuple[str, ...] = net.LABELS) -> dict[str, float]:
    pred = probs.argmax(-1)
    out = {"accuracy": float((pred == labels).float().mean())}
    f1s = []
    for c, name in enumerate(names):
        tp = float(((pred == c) & (labels == c)).sum())
        prec, rec = tp / max(1.0, float((pred == c).sum())), tp / max(1.0, float((labels == c).sum()))
        out[f"recall_{name}"] = rec
        f1s.append(2 * prec * rec / max(1e-9, prec + rec))
    out["macro_f1"] = sum(f1s) / len(f1s)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("work")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--max-train", type=int, default=0, help="train on the first N pairs only (0: all)")
    ap.add_argument("--lr", type=float, default=8e-5)
    ap.add_argument("--seed", type=int, default=34)
    ap.add_argument("--init", default="", help="start from this best.pt's weights (a second stage on more data)")
    args = ap.parse_args()
    torch.set_num_threads(2)
    work = Path(args.work)
    states, meta, labels = load_cache(work / "cache-train.pt")
    dev_states, dev_meta, dev_labels = load_cache(work / "cache-dev.pt")
    n_train = min(len(states), args.max_train or len(states))
    lengths = [m[0] for m in meta]
    names, frozen = names_of(work / "cache-dev.pt")
    model = net.load(args.seed, names, frozen)
    if args.init:
        model.load_state_dict(torch.load(args.init)["model"], strict=False)
    params = net.trainable(model)
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    steps = args.epochs * -(-n_train // BATCH)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, s / (0.05 * steps)) * max(0.0, 1 - s / steps))
    start_epoch, best = 0, -1.0
    if (work / "last.pt").exists():
        ckpt = torch.load(work / "last.pt")
        model.load_state_dict(ckpt["model"], strict=False)
        opt.load_state_dict(ckpt["opt"])
        sched.load_state_dict(ckpt["sched"])
        start_epoch, best = ckpt["epoch"] + 1, ckpt["best"]
        print(f"resumed after epoch {ckpt['epoch']}")
    for epoch in range(start_epoch, args.epochs):
        model.train()
        rng = random.Random(f"{args.seed}-{epoch}")
        torch.manual_seed(args.seed + epoch)
        plan = batches(list(range(n_train)), lengths, rng)
        t0, seen, total = time.time(), 0, 0.0
        for step, idx in enumerate(plan):
            hidden, mask = stack(states, idx)
            loss = torch.nn.functional.cross_entropy(net.top_forward(model, hidden, mask), labels[idx])
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            seen, total = seen + len(idx), total + float(loss) * len(idx)
            if step % 50 == 0:
                print(f"epoch {epoch} step {step}/{len(plan)} loss {total / seen:.4f} "
                      f"{seen / (time.time() - t0):.1f} pairs/s", flush=True)
        dev = figures(predict(model, dev_states, [m[0] for m in dev_meta]), dev_labels, names)
        print(f"epoch {epoch} done in {time.time() - t0:.0f}s, train loss {total / seen:.4f}, dev {json.dumps(dev)}")
        keep = [f"layer.{i}." for i in range(frozen, model.config.num_hidden_layers)] + ["pooler", "classifier"]
        top = {k: v for k, v in model.state_dict().items() if any(p in k for p in keep)}
        if dev["macro_f1"] > best:
            best = dev["macro_f1"]
            torch.save({"model": top, "epoch": epoch, "dev": dev, "train_pairs": n_train}, work / "best.pt")
        torch.save({"model": top, "opt": opt.state_dict(), "sched": sched.state_dict(), "epoch": epoch, "best": best,
                    "dev": dev}, work / "last.pt")
        with (work / "history.jsonl").open("a") as handle:
            handle.write(json.dumps({"epoch": epoch, "seconds": round(time.time() - t0), "train_loss": total / seen,
                                     "train_pairs": n_train, "dev": dev}) + "\n")


if __name__ == "__main__":
    main()
