"""Question sets, each with the corpus it is about: the bundled suites, the public benchmarks and a user's own file.

A suite with a corpus is indexed into its own collection (`eval-<corpus>`) under the data directory, so `rag eval`
measures the same thing whatever the user has indexed; re-running re-embeds nothing. A user's question file is
asked against the configured index.

Splits: `dev` is what heuristics may be tuned on; `test` is frozen held-out data (SHA-256 in eval/README.md)
that no change was shaped around. Quality gates apply to test suites only.

Public benchmarks (dev splits, eval/README.md): PubMedQA is MIT and bundled (`eval/sets/pubmedqa/`, a copy of
`../shared/external/pubmedqa`); SciFact is CC BY-NC and never copied here: its suite reads
`<repo>/../shared/external/scifact` and is left out, with a one-line note, when that folder is not there.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from rag.settings import BUNDLED_CORPUS

REPO = Path(__file__).resolve().parent.parent
SETS = Path(__file__).resolve().parent / "sets"
RECORDED = Path(__file__).resolve().parent / "recorded"
CLAIMS = Path(__file__).resolve().parent / "claims"
# beside the checkout, as in CI; RAG_EVAL_EXTERNAL points elsewhere (a git worktree is not beside the shared folder)
EXTERNAL = Path(os.environ.get("RAG_EVAL_EXTERNAL") or REPO.parent / "shared" / "external")
FINDINGS = "findings.jsonl"  # beside a question file: each question's own-paper findings ("leads with a finding")


@dataclass(frozen=True)
class Suite:
    name: str  # "icml2025-dev"
    questions: Path
    split: str  # "dev" | "test"
    corpus: Path | None = None  # None: the configured index
    recorded: Path | None = None  # recorded strong-model answers, for --replay
    corpus_name: str = ""  # "icml2025": bundled suites over one corpus share its collection
    findings: Path | None = None  # per-question findings of the own paper, for the "leads with a finding" metric
    answers: bool = True  # False: retrieval figures only (claims are not questions: nothing to answer)
    large: bool = False  # a corpus that takes minutes to embed: indexed into the --cache-home when one is given
    sentence_vectors: bool | None = None  # index setting for the suite's corpus (None: the configured one)

    @property
    def collection(self) -> str | None:
        """The collection a suite's corpus is indexed into."""
        return None if self.corpus is None else f"eval-{self.corpus_name}"

    @property
    def held_out(self) -> bool:
        return self.split == "test"


def _recorded(name: str) -> Path | None:
    path = RECORDED / f"{name}.jsonl"
    return path if path.exists() else None


# The question sets that ship with the project: (suite name, file under eval/sets, split, corpus). A `test` set is
# held out: written by someone who had not read the answer code, frozen (SHA-256 in eval/README.md) before any
# change was measured on it, and gated. A held-out set that has decided a change is retired into `dev` (a new
# file name, the commit that retired it in eval/README.md's history table) and replaced by a new one.
BUNDLED: tuple[tuple[str, str, str, str], ...] = (
    ("icml2025-dev", "icml2025/dev.jsonl", "dev", "icml2025"),
    ("icml2025-dev-extra", "icml2025/dev_extra.jsonl", "dev", "icml2025"),
    ("icml2025-dev-kinds", "icml2025/dev_kinds.jsonl", "dev", "icml2025"),
    ("icml2025-dev-library", "icml2025/dev_library.jsonl", "dev", "icml2025"),
    ("icml2025-dev-library2", "icml2025/dev_library2.jsonl", "dev", "icml2025"),
    ("icml2025-dev-library3", "icml2025/dev_library3.jsonl", "dev", "icml2025"),
    ("icml2025-dev-non-english", "icml2025/dev_non_english.jsonl", "dev", "icml2025"),
    ("icml2025-dev-lists", "icml2025/dev_lists.jsonl", "dev", "icml2025"),
    ("arxiv-dev-lists", "arxiv/dev_lists.jsonl", "dev", "arxiv"),
    ("icml2025-dev-lists2", "icml2025/dev_lists2.jsonl", "dev", "icml2025"),
    ("arxiv-dev-lists2", "arxiv/dev_lists2.jsonl", "dev", "arxiv"),
    ("icml2025-dev-offtopic-lists", "icml2025/dev_offtopic_lists.jsonl", "dev", "icml2025"),
    ("arxiv-dev-offtopic-lists", "arxiv/dev_offtopic_lists.jsonl", "dev", "arxiv"),
    ("icml2025-dev-absent", "icml2025/dev_absent.jsonl", "dev", "icml2025"),
    ("arxiv-dev-absent", "arxiv/dev_absent.jsonl", "dev", "arxiv"),
    ("icml2025-dev-absent2", "icml2025/dev_absent2.jsonl", "dev", "icml2025"),
    ("arxiv-dev-absent2", "arxiv/dev_absent2.jsonl", "dev", "arxiv"),
    ("icml2025-retired", "icml2025/retired_2026_12_03.jsonl", "dev", "icml2025"),
    ("synthetic-retired", "synthetic/retired_2026_12_03.jsonl", "dev", "synthetic"),
    ("icml2025-heldout", "icml2025/heldout_2026_12_06.jsonl", "test", "icml2025"),
    ("arxiv-heldout", "arxiv/heldout_2026_12_06.jsonl", "test", "arxiv"),
    ("icml2025-heldout-lists", "icml2025/heldout_lists_2026_12_07.jsonl", "test", "icml2025"),
    ("arxiv-heldout-lists", "arxiv/heldout_lists_2026_12_07.jsonl", "test", "arxiv"),
)
# The claim-checking benchmark's splits: (name in the report, file under eval/claims, split)
CLAIM_SETS: tuple[tuple[str, str, str], ...] = (
    ("dev", "dev.jsonl", "dev"),
    ("dev_extra", "dev_extra.jsonl", "dev"),
    ("dev_direction", "dev_direction.jsonl", "dev"),
    ("retired", "retired_2026_12_03.jsonl", "dev"),
    ("heldout", "heldout_2026_12_06.jsonl", "test"),
)
CORPORA = {"icml2025": BUNDLED_CORPUS, "synthetic": SETS / "synthetic" / "corpus.jsonl",
           "arxiv": SETS / "arxiv" / "corpus.jsonl"}  # fmt: skip


def bundled_suites() -> list[Suite]:
    """The suites that ship with the project, in BUNDLED's order (dev first). A registered file that is missing is
    still listed: running it fails with a clear error, and `--check` does not pass without it."""
    return [
        Suite(name, SETS / file, split, CORPORA[corpus], _recorded(name), corpus)
        for name, file, split, corpus in BUNDLED
    ]


def held_out_names() -> list[str]:
    """The bundled held-out suites: what `rag eval --check` gates."""
    return [name for name, _, split, _ in BUNDLED if split == "test"]


def benchmark_suites(external: Path | None = None) -> tuple[list[Suite], list[str]]:
    """The public benchmarks' dev splits, and a one-line note for each one left out (its data is not there)."""
    external = EXTERNAL if external is None else external
    suites, notes = [], []
    pubmedqa = SETS / "pubmedqa"
    if (pubmedqa / "questions.jsonl").exists() and (pubmedqa / "corpus.jsonl").exists():
        questions = pubmedqa / "questions.jsonl"  # 422 abstracts: a few minutes to embed, so kept in --cache-home
        suites.append(Suite("pubmedqa-dev", questions, "dev", pubmedqa / "corpus.jsonl", corpus_name="pubmedqa",
                            findings=_findings(questions), large=True))  # fmt: skip
    scifact = external / "scifact"
    if (scifact / "queries_train.jsonl").exists() and (scifact / "corpus.jsonl").exists():
        # 5,183 abstracts: retrieval figures only, so the sentence vectors an answer reuses are not embedded
        suites.append(Suite("scifact-train", scifact / "queries_train.jsonl", "dev", scifact / "corpus.jsonl",
                            corpus_name="scifact", answers=False, large=True, sentence_vectors=False))  # fmt: skip
    else:
        notes.append(f"suite scifact-train skipped: {scifact} not found (SciFact is CC BY-NC, read from there only)")
    return suites, notes


def all_suites(external: Path | None = None) -> tuple[list[Suite], list[str]]:
    """Every suite `rag eval` knows, and the notes on those left out."""
    benchmarks, notes = benchmark_suites(external)
    return bundled_suites() + benchmarks, notes


def pick(suites: list[Suite], wanted: list[str]) -> list[Suite]:
    """The suites named (exactly, or else by prefix: "pubmedqa", "icml2025"; "icml2025-heldout" is that suite, not
    also icml2025-heldout-lists); all when nothing is named. ValueError names a word that matches none."""
    if not wanted:
        return suites
    out: list[Suite] = []
    for word in wanted:
        found = [s for s in suites if s.name == word] or [
            s for s in suites if s.name.startswith(f"{word}-") or s.corpus_name == word]  # fmt: skip
        if not found:
            raise ValueError(f"no suite named {word!r}; known: {', '.join(s.name for s in suites)}")
        out += [s for s in found if s not in out]
    return out


def _findings(questions: Path) -> Path | None:
    path = questions.with_name(FINDINGS)
    return path if path.exists() else None


def file_suite(path: Path, split: str = "test") -> Suite:
    """A user's question file, asked against the configured index (with the findings.jsonl beside it, if any)."""
    return Suite(path.stem, path, split, findings=_findings(path))


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
