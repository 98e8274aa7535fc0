"""Recorded strong-model answers: what a capable LLM writes for each question, sentence by sentence, each
sentence labelled faithful, planted (an error put there on purpose, with its kind) or refusal.

eval.replay_server streams them through the product's openai path; `score_replay` then says, per answer and
per sentence, what the product did with them: kept, refused before the model spoke, replaced by the
extractive fallback, faithful sentences flagged, planted errors caught.

File format (JSONL): {"question_id", "question", "sentences": [{"text", "label", "kind"}]}; claims cite papers
with placeholders "[@<paper id>]" that the server turns into the prompt's [n].
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rag.errors import RagError

LABELS = ("faithful", "planted", "refusal")
PLACEHOLDER = re.compile(r"\[@([A-Za-z0-9][A-Za-z0-9._:/-]*)\]")
_MARKER = re.compile(r"\[\d+(?:\s*[,;\u2013-]\s*\d+)*\]")
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Sentence:
    text: str  # with [@id] placeholders
    label: str
    kind: str


@dataclass(frozen=True)
class Recorded:
    question_id: str
    question: str
    sentences: tuple[Sentence, ...]

    def text(self) -> str:
        """The answer with placeholders, sentences joined as a model writes them (bullets on their own line)."""
        out = ""
        for s in self.sentences:
            sep = "" if not out else ("\n" if s.text.startswith("- ") else " ")
            out += sep + s.text
        return out


def question_key(text: str) -> str:
    """How a question is matched: case and spacing do not matter."""
    return _SPACE.sub(" ", text).strip().lower()


def load_recorded(path: Path) -> list[Recorded]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise RagError(f"cannot read recorded answers {path}: {exc.strerror or exc}") from None
    out: list[Recorded] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            sentences = tuple(
                Sentence(str(s["text"]), str(s["label"]), str(s.get("kind") or s["label"])) for s in obj["sentences"]
            )
            if any(s.label not in LABELS for s in sentences):
                raise ValueError(f"label must be one of {', '.join(LABELS)}")
            out.append(Recorded(str(obj["question_id"]), str(obj["question"]), sentences))
        except (ValueError, KeyError, TypeError) as exc:
            raise RagError(f"{path}:{number}: not a recorded answer ({exc})") from None
    return out


def render(answer: str, numbers: Mapping[str, int], missing: int) -> str:
    """Placeholders -> the [n] the prompt gave each paper; a paper that was not retrieved gets `missing` (a number
    no source has, which the product must remove)."""
    return PLACEHOLDER.sub(lambda m: f"[{numbers.get(m.group(1), missing)}]", answer)


def _norm(text: str) -> str:
    text = PLACEHOLDER.sub("", _MARKER.sub("", text))
    text = re.sub(r"^\s*[-*\u2022]\s+", "", text)
    return " ".join(re.findall(r"\w+", text.lower()))


def _overlaps(a: str, b: str) -> bool:
    """The same sentence, as far as splitting and marker clean-up can tell."""
    if not a or not b:
        return False
    if a in b or b in a:
        return True
    wa, wb = set(a.split()), set(b.split())
    return len(wa & wb) / max(1, min(len(wa), len(wb))) >= 0.8


def sentence_outcome(sentence: Sentence, result: Mapping[str, Any]) -> str:
    """What became of one recorded sentence: "shown" (verified as shown), "flagged" (shown, marked unsupported),
    or "not_shown" (the answer was refused or replaced)."""
    if result.get("error") or result.get("abstained") or result.get("backend") == "extractive":
        return "not_shown"
    target = _norm(sentence.text)
    answer = _norm(str(result.get("answer") or ""))
    if not target or target not in answer and not any(
        _overlaps(target, _norm(part)) for part in re.split(r"(?<=[.!?])\s+|\n", str(result.get("answer") or ""))
    ):
        return "not_shown"
    unsupported = [_norm(u) for u in result.get("unsupported") or []]
    return "flagged" if any(_overlaps(target, u) for u in unsupported) else "shown"


def answer_outcome(result: Mapping[str, Any], requested: str) -> str:
    """kept | refused_by_model | refused_before_model | replaced_by_fallback | failed."""
    if result.get("error"):
        return "failed"
    if result.get("abstained"):
        return "refused_before_model" if result.get("abstain_reason") else "refused_by_model"
    if result.get("backend") != requested:
        return "replaced_by_fallback"
    return "kept"


def score_replay(
    results: Sequence[Mapping[str, Any]], recorded: Sequence[Recorded], requested: str = "openai"
) -> dict[str, Any]:
    """Per-run figures of the recorded answers through the product, and per-kind catch rates."""
    by_id = {r.question_id: r for r in recorded}
    outcomes: dict[str, int] = {}
    refused_answerable_before_model = 0
    answerable = 0
    faithful = flagged_faithful = 0
    planted_by_kind: dict[str, list[int]] = {}  # kind -> [planted, caught]
    rows = []
    for result in results:
        rec = by_id.get(str(result.get("id")))
        if rec is None:
            continue
        outcome = answer_outcome(result, requested)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        if result.get("gold"):
            answerable += 1
            refused_answerable_before_model += outcome == "refused_before_model"
        per_sentence = []
        for s in rec.sentences:
            fate = sentence_outcome(s, result)
            per_sentence.append({"label": s.label, "kind": s.kind, "outcome": fate})
            if s.label == "faithful" and outcome == "kept":
                faithful += 1
                flagged_faithful += fate == "flagged"
            elif s.label == "planted":
                tally = planted_by_kind.setdefault(s.kind, [0, 0])
                tally[0] += 1
                tally[1] += fate != "shown"
        rows.append({"id": result.get("id"), "outcome": outcome, "sentences": per_sentence})
    written = outcomes.get("kept", 0) + outcomes.get("refused_by_model", 0)
    planted = sum(t[0] for t in planted_by_kind.values())
    caught = sum(t[1] for t in planted_by_kind.values())
    return {
        "n": len(rows),
        "outcomes": outcomes,
        "answerable": answerable,
        "backend_share": written / len(rows) if rows else None,  # answers the requested backend wrote
        "refused_before_model": refused_answerable_before_model,
        "faithful_sentences": faithful,
        "faithful_flagged": flagged_faithful,
        "faithful_flag_rate": flagged_faithful / faithful if faithful else None,
        "planted": planted,
        "planted_caught": caught,
        "planted_catch_rate": caught / planted if planted else None,
        "by_kind": {k: {"planted": t[0], "caught": t[1]} for k, t in sorted(planted_by_kind.items())},
        "answers": rows,
    }
