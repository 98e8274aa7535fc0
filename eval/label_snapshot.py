"""Every label and reason the sentence check gives on the project's check material, as one comparable snapshot:
the claims benchmark (every split), SciFact's train pairs (when ../shared/external has them), the recorded answers
of every suite (each answer judged against the papers it cites) and the held-out drafts through `rag check`'s path.

A change meant to leave the check's behaviour alone (a refactor) must leave the snapshot identical;
tests/test_verify_labels.py compares a fresh one with tests/data/verify_labels.jsonl.gz. A change meant to alter
labels regenerates the file in its own commit, which says what moved and why:

    .venv/bin/python -m eval.label_snapshot tests/data/verify_labels.jsonl.gz

Evidence sentences are stored as a short hash, so no SciFact text (CC BY-NC) lands in the repository.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from eval.claims import load_claims
from eval.recorded import PLACEHOLDER, load_recorded
from eval.scifact_pairs import load_pairs
from eval.suites import CLAIM_SETS, CLAIMS, CORPORA, EXTERNAL, bundled_suites
from rag.answer.checked import judge_answer
from rag.corpus import read_papers
from rag.types import Hit, Paper

DRAFTS = Path(__file__).resolve().parent / "drafts"


def _digest(text: str | None) -> str | None:
    return None if text is None else hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def _hit(paper: Paper) -> Hit:
    return Hit(paper, f"{paper.id}:0", paper.abstract, 1.0, 1.0)


def _row(kind: str, key: str, label: str, reason: str | None, evidence: str | None) -> dict[str, Any]:
    return {"set": kind, "id": key, "label": label, "reason": reason, "evidence": _digest(evidence)}


def claim_rows(checker: Any, paper: Any) -> Iterator[dict[str, Any]]:
    for split, file, _ in CLAIM_SETS:
        for claim in load_claims(CLAIMS / file):
            hits = [_hit(p) for pid in claim.cites if (p := paper(pid)) is not None]
            v = checker.verdict(claim.sentence, hits)
            yield _row(f"claims/{split}", claim.id, v.label, v.reason, v.evidence[0][1] if v.evidence else None)


def scifact_rows(checker: Any) -> Iterator[dict[str, Any]]:
    folder = EXTERNAL / "scifact"
    if not (folder / "pairs_train.jsonl").exists():
        return
    pairs, papers = load_pairs(folder)
    for p in pairs:
        if (paper := papers.get(p["doc"])) is not None:
            v = checker.verdict(p["claim"], [_hit(paper)])
            yield _row("scifact", str(p["id"]), v.label, v.reason, v.evidence[0][1] if v.evidence else None)


def _numbered(text: str, number: dict[str, int]) -> str:
    return PLACEHOLDER.sub(lambda m: f"[{number.get(m.group(1), 99)}]", text)


def recorded_rows(checker: Any) -> Iterator[dict[str, Any]]:
    """Each recorded answer, its placeholders numbered by first citation, judged against those papers."""
    for suite in bundled_suites():
        if suite.recorded is None:
            continue
        papers = {p.id: p for p in read_papers([CORPORA[suite.corpus_name]])}
        for answer in load_recorded(suite.recorded):
            text = answer.text()
            ids = [i for i in dict.fromkeys(m.group(1) for m in PLACEHOLDER.finditer(text)) if i in papers]
            rendered = _numbered(text, {pid: n for n, pid in enumerate(ids, 1)})
            for j, c in enumerate(judge_answer(checker, rendered, [_hit(papers[i]) for i in ids])):
                evidence = c.evidence[0][1] if c.evidence else None
                yield _row(f"recorded/{suite.name}", f"{answer.question_id}#{j}", c.label, c.reason, evidence)


def draft_rows(draft_checker: Any) -> Iterator[dict[str, Any]]:
    from rag.check.draft import parse_draft

    for path in sorted(DRAFTS.rglob("*.md")):
        draft = parse_draft(path.read_text(encoding="utf-8"), path.name)
        report = draft_checker.check(draft, name=path.name, collection="snapshot")
        for s in report.sentences:
            yield _row(f"drafts/{path.parent.name}", f"{path.name}:{s.line}", s.label, s.reason, s.evidence)


def snapshot(assistant: Any, draft_checker: Any) -> list[dict[str, Any]]:
    checker, paper = assistant.checker, assistant.retriever.paper
    return [*claim_rows(checker, paper), *scifact_rows(checker), *recorded_rows(checker), *draft_rows(draft_checker)]


def write(path: Path, rows: list[dict[str, Any]]) -> None:
    with gzip.open(path, "wt", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")


def read(path: Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def main(argv: list[str]) -> int:
    import tempfile

    from rag.factory import build_index, open_assistant, open_draft_checker
    from rag.settings import load_settings

    with tempfile.TemporaryDirectory() as home:
        settings = load_settings(home=Path(home), env={}, llm="extractive")
        build_index(settings)
        assistant = open_assistant(settings)
        try:
            rows = snapshot(assistant, open_draft_checker(settings, assistant.retriever))
        finally:
            assistant.close()
    write(Path(argv[0]), rows)
    print(f"{len(rows)} labels written to {argv[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
