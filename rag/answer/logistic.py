"""A logistic regression over named features, as eval's fits store it (eval/list_fit.py, eval/absent_fit.py): each
feature standardised by its mean and scale, weighted, plus a bias; the decision threshold is stored beside it.
The list model (rag.answer.list_keep) and the absent-detail model (rag.answer.absent_model) are both one."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, Self


@dataclass(frozen=True)
class Logistic:
    FEATURES: ClassVar[tuple[str, ...]] = ()  # a subclass names its features, in the stored order

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    threshold: float

    def probability(self, row: dict[str, float]) -> float:
        z = self.bias + sum(
            w * (row[f] - m) / s for f, m, s, w in zip(self.FEATURES, self.mean, self.scale, self.weights, strict=True)
        )
        return 1.0 / (1.0 + math.exp(-max(min(z, 50.0), -50.0)))

    @classmethod
    def from_json(cls, obj: dict[str, object], name: str, remedy: str) -> Self:
        """The model a fit stored as JSON (`name`: its file, for the error; ValueError when its features are not
        FEATURES, with `remedy`)."""
        if tuple(obj["features"]) != cls.FEATURES:  # type: ignore[arg-type]
            raise ValueError(f"{name}: features {obj['features']} are not {cls.FEATURES}; {remedy}")
        floats = lambda key: tuple(float(v) for v in obj[key])  # type: ignore[attr-defined]  # noqa: E731
        return cls(floats("mean"), floats("scale"), floats("weights"), float(obj["bias"]),  # type: ignore[arg-type]
                   float(obj["threshold"]))  # type: ignore[arg-type]  # fmt: skip
