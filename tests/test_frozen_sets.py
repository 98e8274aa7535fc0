"""The held-out files are frozen: their SHA-256 must match the table in eval/README.md."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ROWS = re.findall(r"^\| `([^`]+)` \| [^|]+ \| `([0-9a-f]{64})` \|$", (ROOT / "eval" / "README.md").read_text(), re.M)


def test_the_table_lists_every_held_out_file():
    listed = {path for path, _ in ROWS}
    held_out = {str(p.relative_to(ROOT)) for p in (ROOT / "eval").rglob("test.jsonl")}
    assert held_out and held_out <= listed


@pytest.mark.parametrize(("path", "digest"), ROWS)
def test_held_out_file_is_unchanged(path: str, digest: str):
    assert hashlib.sha256((ROOT / path).read_bytes()).hexdigest() == digest, f"{path} changed: it is frozen"
