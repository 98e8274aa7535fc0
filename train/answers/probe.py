"""Does the answer-sentence model tell the dev questions the sources cannot answer from those they can? For every
dev question eval.absent_fit decides on (eligible, not refused by the rules; its rows file), the model scores the
question's asked clause against the answer path's best sentences; reported: the median probability per label and the
AUC (the chance an unanswerable_close question scores lower than an answerable one: 0.5 is no signal). Dev files
only (eval.absent_fit.SOURCES); run with the product's venv after `make train-answers` and `python -m eval.absent_fit`.
Usage: python -m train.answers.probe MODEL_ONNX [ROWS_JSON]"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from eval import absent_fit
from eval.questions import load_questions
from eval.suites import SETS
from rag.answer.sentence_scores import score_sentences
from rag.factory import lazy_embedder, open_assistant
from rag.settings import load_settings
from train.judge.encode import TOKENIZER, encode_pairs

TOP = 3


def probabilities(session: ort.InferenceSession, tok: Tokenizer, question: str, sentences: list[str]) -> list[float]:
    encoded = encode_pairs(tok, [(question, s) for s in sentences])
    width = max(len(seq) for seq, _ in encoded)
    ids = np.zeros((len(encoded), width), dtype=np.int64)
    mask, types = np.zeros_like(ids), np.zeros_like(ids)
    for row, (seq, first) in enumerate(encoded):
        ids[row, : len(seq)], mask[row, : len(seq)], types[row, first: len(seq)] = seq, 1, 1
    logits = session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})[0]
    e = np.exp(logits - logits.max(-1, keepdims=True))
    return list((e / e.sum(-1, keepdims=True))[:, 0])


def main(model: str, rows_file: str = "/tmp/rag-absent-fit/rows.json") -> None:
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    tok = Tokenizer.from_file(str(TOKENIZER))
    tok.no_truncation()
    tok.no_padding()
    rows = {absent_fit.key(r): r for r in json.loads(Path(rows_file).read_text())}
    base = load_settings(home=str(Path(rows_file).parent), llm="extractive")
    embedder = lazy_embedder(base)
    scores: dict[bool, list[float]] = {True: [], False: []}
    for corpus in dict.fromkeys(c for c, _ in absent_fit.SOURCES):
        a = open_assistant(base.replace(collection=f"fit-{corpus}"), embedder=embedder)
        for file in (f for c, f in absent_fit.SOURCES if c == corpus):
            for q in load_questions(SETS / file):
                row = rows.get(f"{file}/{q.id}")
                if row is None or not row["eligible"] or row["refused"]:
                    continue
                route = a.route(q.question, (), llm="extractive", model=None, summary=None)
                hits = a.retrieve(route, None, None)
                best = sorted(score_sentences(route.analysed, hits, a.vectors), key=lambda c: -c.score)[:TOP]
                if best:
                    p = probabilities(session, tok, route.analysed.asked, [c.text for c in best])
                    scores[bool(row["refuse"])].append(float(max(p)))
        a.close()
    u, n = scores[True], scores[False]
    auc = statistics.mean(1.0 if x < y else 0.5 if x == y else 0.0 for x in u for y in n)
    print(json.dumps({"unanswerable_close": {"questions": len(u), "median_p_answers": round(statistics.median(u), 3)},
                      "answerable": {"questions": len(n), "median_p_answers": round(statistics.median(n), 3)},
                      f"auc (top {TOP} sentences, unanswerable lower)": round(auc, 3)}, indent=1))


if __name__ == "__main__":
    main(*sys.argv[1:3])
