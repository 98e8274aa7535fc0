"""The calibration of rag.answer.language's threshold: the foreign share of every English dev question against
sentences in other languages written for it (eval/language/non_english.jsonl). Prints both distributions and how
many of each side a threshold puts on the wrong side; `python -m eval.language_calibration [THRESHOLD]`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from rag.answer.language import THRESHOLD, foreign_share

ROOT = Path(__file__).resolve().parent
ENGLISH_SKIP = {"non_english"}  # a dev question written in another language on purpose is not an English one


def english_questions() -> list[str]:
    """Every dev question over the bundled corpus that is written in English (held-out sets are never read)."""
    found = []
    for path in sorted((ROOT / "sets").glob("*/dev*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line) if line.strip() else None
            if row and row.get("type") not in ENGLISH_SKIP:
                found.append(row["question"])
    return found


def other_languages() -> list[tuple[str, str]]:
    rows = (json.loads(line) for line in (ROOT / "language" / "non_english.jsonl").read_text("utf-8").splitlines())
    return [(row["lang"], row["text"]) for row in rows]


def report(threshold: float) -> str:
    english = sorted((foreign_share(q), q) for q in english_questions())
    other = sorted((foreign_share(t), lang, t) for lang, t in other_languages())
    wrong_en = [q for s, q in english if s >= threshold]
    wrong_other = [(lang, t) for s, lang, t in other if s < threshold]
    lines = [
        f"English dev questions: n={len(english)}, foreign share max {english[-1][0]:.2f}, "
        f"{len(wrong_en)} at or above {threshold}",
        f"other languages: n={len(other)}, foreign share min {other[0][0]:.2f}, {len(wrong_other)} below {threshold}",
        "highest English: " + "; ".join(f"{s:.2f} {q}" for s, q in english[-5:]),
        "lowest other: " + "; ".join(f"{s:.2f} [{lang}] {t}" for s, lang, t in other[:5]),
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(float(sys.argv[1]) if len(sys.argv) > 1 else THRESHOLD))
