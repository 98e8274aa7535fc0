"""Issue 33 item 5: the sentence check's labels and reasons on all the project's check material are what the
snapshot in tests/data/verify_labels.jsonl.gz recorded. A refactor leaves them identical; a change meant to move
labels regenerates the file in its own commit (`python -m eval.label_snapshot tests/data/verify_labels.jsonl.gz`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from eval import label_snapshot

pytestmark = pytest.mark.slow
SNAPSHOT = Path(__file__).resolve().parent / "data" / "verify_labels.jsonl.gz"


def test_every_label_and_reason_is_as_recorded(tmp_path: Path) -> None:
    fresh = tmp_path / "labels.jsonl.gz"
    assert label_snapshot.main([str(fresh)]) == 0
    before = {(r["set"], r["id"]): r for r in label_snapshot.read(SNAPSHOT)}
    after = {(r["set"], r["id"]): r for r in label_snapshot.read(fresh)}
    assert len(before) > 3000  # claims, recorded answers and drafts at least (SciFact when ../shared has it)
    if not any(s == "scifact" for s, _ in after):  # ../shared/external is not beside this checkout
        before = {key: r for key, r in before.items() if key[0] != "scifact"}

    def line(r: dict[str, str]) -> str:
        return f"{r['label']} ({r['reason']})"

    moved = [f"{key}: {line(before[key])} -> {line(after[key])}" for key in before.keys() & after.keys()
             if before[key] != after[key]]  # fmt: skip
    assert sorted(before.keys() - after.keys()) == [], "sentences no longer judged"
    assert sorted(after.keys() - before.keys()) == [], "sentences judged that were not before"
    assert moved == [], f"{len(moved)} labels moved:\n" + "\n".join(sorted(moved)[:40])
