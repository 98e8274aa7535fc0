"""Issue 23: could one encoder pass over the *sentences* serve both vectors? Dense retrieval on a SciFact subset
with the paper vector from a joint encoding (title + abstract, what the index embeds) against the token-weighted
mean of the title and each sentence encoded on their own (the sentence vectors the check needs, pooled), and the
plain mean of those sentence vectors. nDCG@10 / recall@10 over 200 random train claims whose cited abstracts are
among 1,200 abstracts (the rest random). Encoder: the packaged MiniLM, no index, dense only.

    .venv/bin/python bench/bench_sentence_pooling.py   # ~10-15 min on 2 cores; bench/results/sentence_pooling.json
"""

import json
import math
import os
import random
import time
from pathlib import Path

import common
import numpy as np

from rag.adapters.embedding import MiniLMEmbedder
from rag.text import split_sentences

random.seed(3)
corpus = {}
EXT = Path(os.environ.get("RAG_EVAL_EXTERNAL") or common.ROOT.parent / "shared" / "external") / "scifact"
for line in (EXT / "corpus.jsonl").read_text("utf-8").splitlines():
    d = json.loads(line)
    corpus[d["id"]] = d
qs = [json.loads(line) for line in (EXT / "queries_train.jsonl").read_text("utf-8").splitlines()]
qs = [q for q in qs if q["gold"] and all(g in corpus for g in q["gold"])]
random.shuffle(qs)
qs = qs[:200]
gold = {g for q in qs for g in q["gold"]}
others = [d for d in corpus if d not in gold]
random.shuffle(others)
ids = sorted(gold) + others[: 1200 - len(gold)]
m = MiniLMEmbedder()


def enc_raw(texts):
    enc, hidden, pooled = m._encode(texts)
    mask = np.array([e.attention_mask for e in enc], dtype=np.float32)[:, :, None]
    raw = (hidden * mask).sum(axis=1)
    n = mask.sum(axis=1)
    return pooled, raw, n


def batches(texts, bs=16):
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    P = [None] * len(texts)
    R = [None] * len(texts)
    N = [None] * len(texts)
    for s in range(0, len(order), bs):
        idx = order[s : s + bs]
        p, r, n = enc_raw([texts[i] for i in idx])
        for k, i in enumerate(idx):
            P[i], R[i], N[i] = p[k], r[k], n[k]
    return np.array(P), np.array(R), np.array(N)


t = time.time()
joint, _, _ = batches([corpus[i]["title"] + "\n" + corpus[i]["abstract"] for i in ids])
tj = time.time() - t
units = []
owner = []
for k, i in enumerate(ids):
    for s in [corpus[i]["title"]] + split_sentences(corpus[i]["abstract"]):
        units.append(s)
        owner.append(k)
t = time.time()
_, R, N = batches(units)
ts = time.time() - t
owner = np.array(owner)
pooled = np.zeros_like(joint)
for k in range(len(ids)):
    sel = owner == k
    v = R[sel].sum(axis=0) / N[sel].sum()
    pooled[k] = v / np.linalg.norm(v)
# mean of normalized sentence vectors (alternative)
Pn = R / N
Pn /= np.linalg.norm(Pn, axis=1, keepdims=True)
meanvec = np.zeros_like(joint)
for k in range(len(ids)):
    v = Pn[owner == k].mean(axis=0)
    meanvec[k] = v / np.linalg.norm(v)
Q, _, _ = batches([q["question"] for q in qs])


def score(D):
    nd, rc = [], []
    for qi, q in enumerate(qs):
        top = np.argsort(-(D @ Q[qi]))[:10]
        g = set(q["gold"])
        rel = [1 if ids[j] in g else 0 for j in top]
        dcg = sum(r / math.log2(i + 2) for i, r in enumerate(rel))
        idcg = sum(1 / math.log2(i + 2) for i in range(min(len(g), 10)))
        nd.append(dcg / idcg)
        rc.append(sum(rel) / len(g))
    return round(float(np.mean(nd)), 4), round(float(np.mean(rc)), 4)


result = {
    "docs": len(ids),
    "sentences_and_titles": len(units),
    "claims": len(qs),
    "machine": common.machine(),
    "joint": {"ndcg10_recall10": score(joint), "encode_s": round(tj, 1)},
    "pooled_token_weighted": {"ndcg10_recall10": score(pooled), "encode_s": round(ts, 1)},
    "mean_of_sentence_vectors": {"ndcg10_recall10": score(meanvec)},
}
print(json.dumps(result, indent=1))
common.save("sentence_pooling", result)
