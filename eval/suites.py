"""Question sets, each with the corpus it is about: the bundled suites and a user's own question file.

A bundled suite carries its corpus and is indexed into its own collection (`eval-<corpus>`) under the data
directory, so `rag eval` measures the same thing whatever the user has indexed; re-running re-embeds nothing.
A user's question file is asked against the configured index.

Splits: `dev` is what heuristics may be tuned on; `test` is frozen held-out data (SHA-256 in eval/README.md)
that no change was shaped around. Quality gates apply to test suites only.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from rag.settings import BUNDLED_CORPUS

SETS = Path(__file__).resolve().parent / "sets"
RECORDED = Path(__file__).resolve().parent / "recorded"
CLAIMS = Path(__file__).resolve().parent / "claims"


@dataclass(frozen=True)
class Suite:
    name: str  # "icml2025-dev"
    questions: Path
    split: str  # "dev" | "test"
    corpus: Path | None = None  # None: the configured index
    recorded: Path | None = None  # recorded strong-model answers, for --replay
    corpus_name: str = ""  # "icml2025": bundled suites over one corpus share its collection

    @property
    def collection(self) -> str | None:
        """The collection a bundled suite's corpus is indexed into."""
        return None if self.corpus is None else f"eval-{self.corpus_name}"

    @property
    def held_out(self) -> bool:
        return self.split == "test"


def _recorded(name: str) -> Path | None:
    path = RECORDED / f"{name}.jsonl"
    return path if path.exists() else None


def bundled_suites() -> list[Suite]:
    """The suites `rag eval` runs when no question file is given, dev first."""
    out = []
    for corpus_name, corpus in (("icml2025", BUNDLED_CORPUS), ("synthetic", SETS / "synthetic" / "corpus.jsonl")):
        for stem, split in (("dev", "dev"), ("dev_extra", "dev"), ("test", "test")):  # dev_extra: more tuning data
            questions = SETS / corpus_name / f"{stem}.jsonl"
            if questions.exists() and corpus.exists():
                name = f"{corpus_name}-{stem.replace('_', '-')}"
                out.append(Suite(name, questions, split, corpus, _recorded(name), corpus_name))
    return out


def file_suite(path: Path, split: str = "test") -> Suite:
    """A user's question file, asked against the configured index."""
    return Suite(path.stem, path, split)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
