"""Shared bits of the reliability tests: running the `rag` CLI as a real subprocess, and small corpus writers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WELLS = "How many wells are in the Alberta dataset?"


def cli_env(home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a `rag` subprocess: the developer's RAG_*/OPENAI_* variables removed, RAG_HOME set."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "RAG_"))}
    env.update({"RAG_HOME": str(home), "ANONYMIZED_TELEMETRY": "False", "PYTHONUNBUFFERED": "1",
                "NO_PROXY": "127.0.0.1,localhost"})
    env.update(extra or {})
    return env


def run_rag(
    args: Sequence[str], home: Path, *, env: Mapping[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """`python -m rag.cli ARGS` with RAG_HOME=home; text output captured."""
    return subprocess.run(
        [sys.executable, "-m", "rag.cli", *args], cwd=ROOT, env=cli_env(home, env), capture_output=True, text=True,
        timeout=timeout, stdin=subprocess.DEVNULL,
    )


def assert_clean_failure(proc: subprocess.CompletedProcess[str], *, code: int = 2) -> str:
    """A user error: the given exit code, exactly one `error: ...` line on stderr, no traceback. Returns the line."""
    assert proc.returncode == code, (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, proc.stderr
    return errors[0]


def write_jsonl(path: Path, records: Sequence[Mapping[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


TOPICS = [
    ("glacier", "ice sheet melt", "radar altimetry"), ("coral", "reef bleaching", "underwater photogrammetry"),
    ("wildfire", "burn scar mapping", "thermal infrared"), ("protein", "fold stability", "molecular dynamics"),
    ("traffic", "congestion forecasting", "graph recurrent networks"), ("soil", "carbon content", "hyperspectral"),
    ("bird", "migration timing", "acoustic monitoring"), ("solar", "panel degradation", "electroluminescence"),
    ("river", "flood extent", "synthetic aperture radar"), ("wheat", "yield prediction", "phenology curves"),
]


def synthetic_papers(n: int, prefix: str = "syn", sentences: int = 6) -> list[dict[str, object]]:
    """n plausible, distinct abstracts (ids `<prefix>-NNN`) about made-up studies; each names its topic."""
    papers: list[dict[str, object]] = []
    for i in range(n):
        thing, task, method = TOPICS[i % len(TOPICS)]
        body = [
            f"We study {task} for {thing} observations in region {i} using {method}.",
            f"Our benchmark {prefix.upper()}{i:03d} contains {1000 + 37 * i:,} annotated {thing} samples.",
        ]
        for j in range(sentences - 2):
            body.append(
                f"In experiment {j + 1} the {method} model reduces error on {thing} {task} by {3 + (i + j) % 40} "
                f"percent relative to the strongest baseline, with ablations over sensors, seasons and resolutions."
            )
        papers.append({
            "id": f"{prefix}-{i:03d}",
            "title": f"{thing.title()} {task.title()} with {method.title()}: Study {i}",
            "authors": [f"Author {i} One", f"Author {i} Two"],
            "year": 2020 + i % 6,
            "venue": "Synthetic Workshop",
            "url": f"https://example.org/{prefix}-{i:03d}",
            "abstract": " ".join(body),
        })
    return papers
