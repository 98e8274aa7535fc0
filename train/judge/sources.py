"""Raw training sources: locate each file listed in MANIFEST.json, fetch it from its URL when absent, verify its
sha256, and read it. Nothing here reads SciFact or the project's eval files: those are for measurement only."""

from __future__ import annotations

import hashlib
import json
import os
import urllib.request
from pathlib import Path
from typing import Any

MANIFEST = Path(__file__).resolve().parent / "MANIFEST.json"


def manifest(path: Path = MANIFEST) -> dict[str, Any]:
    """The judge's MANIFEST.json, or another training set's (train/answers/MANIFEST.json)."""
    return json.loads(path.read_text())


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def raw_path(name: str, manifest_file: Path = MANIFEST) -> Path:
    """The verified local copy of source `name`; downloads it from its URL when the file is not there."""
    entry = next(s for s in manifest(manifest_file)["sources"] if s["name"] == name)
    path = Path(os.path.expanduser(entry["path"]))
    if not path.exists():
        url = entry["url"]
        if not url.startswith("https://raw.githubusercontent.com/"):
            raise FileNotFoundError(f"{path} is missing ({entry['dataset']}; {entry['url']})")
        path.parent.mkdir(parents=True, exist_ok=True)
        urllib.request.urlretrieve(url, path)  # noqa: S310 - a fixed https URL from the manifest
    found = sha256(path)
    if found != entry["sha256"]:
        raise ValueError(f"{path}: sha256 {found} is not the manifest's {entry['sha256']}")
    return path


def data_sha(manifest_file: Path = MANIFEST) -> str:
    """One digest over every source's sha256: names the training data in the exported model's metadata."""
    joined = ",".join(f"{s['name']}={s['sha256']}" for s in manifest(manifest_file)["sources"])
    return hashlib.sha256(joined.encode()).hexdigest()


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open() as handle:
        return [json.loads(line) for line in handle if line.strip()]


def pubmedqa() -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """The abstracts, and the findings (conclusion / results sentences) by paper id."""
    corpus = read_jsonl(raw_path("pubmedqa-corpus"))
    findings = {row["paper"]: row for row in read_jsonl(raw_path("pubmedqa-findings")) if row.get("indexed")}
    return corpus, findings


def snli() -> list[dict[str, Any]]:
    rows = read_jsonl(raw_path("snli-dev-subset")) + read_jsonl(raw_path("snli-test-subset"))
    return [r for r in rows if r.get("gold_label") in ("entailment", "contradiction", "neutral")]
