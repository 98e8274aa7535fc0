"""The held-out files are frozen: their SHA-256 must match the table in eval/README.md."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ROWS = re.findall(r"^\| `([^`]+)` \| [^|]+ \| [^|]+ \| `([0-9a-f]{64})` \|$", (ROOT / "eval" / "README.md").read_text(),
                  re.M)  # fmt: skip


def test_the_table_lists_every_held_out_file():
    from eval.suites import BUNDLED, CLAIM_SETS, RECORDED, SETS

    listed = {path for path, _ in ROWS}
    held_out = {f"eval/sets/{file}" for name, file, split, _ in BUNDLED if split == "test"}
    held_out |= {f"eval/recorded/{name}.jsonl" for name, _, split, _ in BUNDLED
                 if split == "test" and (RECORDED / f"{name}.jsonl").exists()}  # fmt: skip
    held_out |= {f"eval/claims/{file}" for _, file, split in CLAIM_SETS if split == "test"}
    held_out |= {str(p.relative_to(ROOT)) for p in (ROOT / "eval" / "drafts").rglob("*") if p.is_file()}
    assert held_out and held_out <= listed, held_out - listed
    assert SETS.exists()


@pytest.mark.parametrize(("path", "digest"), ROWS)
def test_held_out_file_is_unchanged(path: str, digest: str):
    assert hashlib.sha256((ROOT / path).read_bytes()).hexdigest() == digest, f"{path} changed: it is frozen"
