"""The learned judge beside the rules on the dev material (issue 34): SciFact's train pairs (its tune half chooses
the judge's floors, its report half reports), the claims benchmark's dev splits, the recorded answers' dev files and
PubMedQA as the judge's own generated pairs (its frozen test papers; a slice of its train papers beside them, as
in-training), per label and per error kind, with the curve over the judge's floors. Every pair is judged once; the
judge's probabilities are kept, so each point of the curve is the same run decided at other floors.

    rag eval --judge-compare --suite icml2025-dev --out DIR     # in the report: table + judge_compare.png
    .venv/bin/python -m eval.judge_compare eval-out/judge        # writes judge.json
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from eval.claims import load_claims
from eval.judge_sets import Items, hit, pubmedqa_items, recorded_items
from eval.scifact_pairs import half, load_pairs
from eval.suites import CLAIM_SETS, CLAIMS, EXTERNAL
from rag.errors import ConfigError
from rag.ports import SupportJudge
from rag.types import CONTRADICTED, NOT_FOUND, SUPPORTED, Hit, Paper
from rag.verify.checker import SupportChecker
from rag.verify.learned import Judge, decide
from rag.verify.verdict import Verdict

GRID = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
Row = dict[str, Any]


class Recording:
    """The judge's model, remembering the probabilities of its last call (None: the judge was not asked)."""

    def __init__(self, model: SupportJudge) -> None:
        self.model = model
        self.last: list[tuple[float, float, float]] | None = None

    def probabilities(self, pairs: Sequence[tuple[str, str]]) -> list[tuple[float, float, float]]:
        self.last = self.model.probabilities(pairs)
        return self.last


@contextmanager
def judged_by(checker: SupportChecker, judge: Judge | None) -> Iterator[SupportChecker]:
    kept = checker.judge
    checker.judge = judge
    try:
        yield checker
    finally:
        checker.judge = kept


def _judge_all(checker: SupportChecker, items: Sequence[tuple[str, list[Hit]]], model: Recording
               ) -> list[tuple[Verdict, Verdict, list[tuple[float, float, float]] | None]]:  # fmt: skip
    """(the rules' verdict, the judge's verdict, the judge's probabilities or None when a veto decided)."""
    out: list[tuple[Verdict, Verdict, list[tuple[float, float, float]] | None]] = []
    for claim, hits in items:
        with judged_by(checker, None):
            rules = checker.verdict(claim, hits)
        model.last = None
        with judged_by(checker, Judge(model)):
            learned = checker.verdict(claim, hits)
        out.append((rules, learned, model.last))
    return out


def _pair_flagged(gold: str, label: str) -> bool:
    return label in (CONTRADICTED, NOT_FOUND) if gold == "CONTRADICT" else label != SUPPORTED


def scifact(checker: SupportChecker, model: Recording, folder: Path) -> list[Row]:
    pairs, papers = load_pairs(folder)
    kept = [(p, papers[p["doc"]]) for p in pairs if p["doc"] in papers]
    judged = _judge_all(checker, [(p["claim"], [hit(paper)]) for p, paper in kept], model)
    return [{"gold": p["label"], "half": half(int(p["claim_id"])), "rules": r.label, "learned": v.label, "probs": pr}
            for (p, _), (r, v, pr) in zip(kept, judged, strict=True)]  # fmt: skip


def claims(checker: SupportChecker, model: Recording, paper: Callable[[str], Paper | None]) -> list[Row]:
    rows: list[Row] = []
    for split, file, kind in CLAIM_SETS:
        if kind == "test":  # held-out claims are never looked at here
            continue
        for claim in load_claims(CLAIMS / file):
            hits = [hit(p) for pid in claim.cites if (p := paper(pid)) is not None]
            ((r, v, pr),) = _judge_all(checker, [(claim.sentence, hits)], model)
            rows.append({"split": split, "gold": claim.label, "kind": claim.kind, "rules": r.label, "learned": v.label,
                         "probs": pr})  # fmt: skip
    return rows


def _rates(rows: Sequence[Row], labels: Sequence[str], flagged: Callable[[str, str], bool]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for gold in sorted({r["gold"] for r in rows}):
        mine = [r for r in rows if r["gold"] == gold]
        for name, got in zip(("rules", "learned"), labels, strict=True):
            given = [r[got] for r in mine]
            out.setdefault(gold, {"n": len(mine)})[name] = {
                "flagged": sum(flagged(gold, g) for g in given) / len(mine),
                "contradicted": given.count(CONTRADICTED) / len(mine), "labels": dict(Counter(given))}  # fmt: skip
    return out


def _claims_flagged(gold: str, label: str) -> bool:
    return label != SUPPORTED


def at_floors(rows: Sequence[Row], s: float, c: float) -> list[Row]:
    """The rows with the judge's label decided at these floors."""
    return [{**r, "at": _label_at_row(r, s, c)} for r in rows]


def _label_at_row(r: Row, s: float, c: float) -> str:
    return str(r["learned"]) if r["probs"] is None else decide(r["probs"], s, c)[0]


def _shares(decided: Sequence[Row], flagged: Callable[[str, str], bool]) -> dict[str, float]:
    """Per gold label: the share flagged and the share labelled contradicted, by the decided label "at"."""
    point: dict[str, float] = {}
    for gold in sorted({r["gold"] for r in decided}):
        mine = [r for r in decided if r["gold"] == gold]
        point[gold] = sum(flagged(gold, r["at"]) for r in mine) / len(mine)
        point[f"{gold} as contradicted"] = sum(r["at"] == CONTRADICTED for r in mine) / len(mine)
    return point


def curve(rows: Sequence[Row], flagged: Callable[[str, str], bool]) -> list[dict[str, Any]]:
    out = []
    for s in GRID:
        for c in GRID:
            out.append({"supported floor": s, "contradicted floor": c} | _shares(at_floors(rows, s, c), flagged))
    return out


def overruled(rows: Sequence[Row], c: float) -> list[Row]:
    """The rows labelled by the rules, with the judge allowed one thing: to call a sentence contradicted when one
    pair's contradicted probability reaches `c` and beats every pair's supported one (the "contradiction veto")."""
    out = []
    for r in rows:
        probs = r["probs"]
        veto = probs is not None and r["rules"] != CONTRADICTED and (
            max(p[1] for p in probs) >= c and max(p[1] for p in probs) > max(p[0] for p in probs))
        out.append({**r, "at": CONTRADICTED if veto else r["rules"]})
    return out


def veto_curve(rows: Sequence[Row], flagged: Callable[[str, str], bool]) -> list[dict[str, Any]]:
    out = []
    for c in (*GRID, 0.95, 0.98):
        out.append({"contradicted floor": c} | _shares(overruled(rows, c), flagged))
    return out


def _kinds(rows: Sequence[Row]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for r in rows:
        block = out.setdefault(r["kind"], {"gold": r["gold"], "n": 0, "rules": 0, "veto": 0})
        block["n"] += 1
        block["rules"] += r["rules"] != SUPPORTED
        block["veto"] += r["at"] != SUPPORTED
    return out


def by_kind(rows: Sequence[Row], s: float, c: float) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for r in at_floors(rows, s, c):
        block = out.setdefault(r["kind"], {"gold": r["gold"], "n": 0, "rules": 0, "learned": 0})
        block["n"] += 1
        block["rules"] += r["rules"] != SUPPORTED
        block["learned"] += r["at"] != SUPPORTED
    return dict(sorted(out.items(), key=lambda kv: (kv[1]["gold"], kv[0])))


def rows_of(checker: SupportChecker, model: Recording, items: Items) -> list[Row]:
    """Each item's gold fields with the rules' label, the judge's label and the judge's probabilities."""
    judged = _judge_all(checker, [(text, hits) for text, hits, _ in items], model)
    return [{**gold, "rules": r.label, "learned": v.label, "probs": pr}
            for (_, _, gold), (r, v, pr) in zip(items, judged, strict=True)]  # fmt: skip


def side(rows: Sequence[Row], s: float, c: float, flagged: Callable[[str, str], bool]) -> dict[str, Any]:
    """One dev set, rules beside the judge at floors (s, c): per gold label the counts flagged and labelled
    contradicted (each of n), per error kind the counts flagged, the judge's curve over its floors and the rules'
    own point (the shares the curve is drawn in)."""
    decided = at_floors(rows, s, c)
    labels: dict[str, dict[str, int]] = {}
    for gold in sorted({r["gold"] for r in decided}):
        mine = [r for r in decided if r["gold"] == gold]
        labels[gold] = {"n": len(mine), "rules flagged": sum(flagged(gold, r["rules"]) for r in mine),
                        "judge flagged": sum(flagged(gold, r["at"]) for r in mine),
                        "rules contradicted": sum(r["rules"] == CONTRADICTED for r in mine),
                        "judge contradicted": sum(r["at"] == CONTRADICTED for r in mine)}  # fmt: skip
    out: dict[str, Any] = {"n": len(rows), "by label": labels}
    if rows and all("kind" in r for r in rows):
        out["by kind"] = by_kind(rows, s, c)
    out["curve"] = curve(rows, flagged)
    out["rules point"] = _shares([{**r, "at": r["rules"]} for r in rows], flagged)
    return out


PUBMEDQA = {"test": "PubMedQA, judge's frozen test papers", "train": "PubMedQA, judge's train papers (in training)"}


def every_set(checker: SupportChecker, model: SupportJudge, paper: Callable[[str], Paper | None], s: float,
              c: float, folder: Path = EXTERNAL / "scifact", progress: Callable[[str], None] | None = None,
              pubmedqa: Callable[[str], Items] = pubmedqa_items) -> dict[str, Any]:  # fmt: skip
    """Rules beside the judge on every dev set (`side` each), and a one-line note for each set left out."""
    recording, note = Recording(model), progress or (lambda _: None)
    out: dict[str, Any] = {"floors": {"supported": s, "contradicted": c}, "sets": {}, "notes": []}
    sets = out["sets"]
    if (folder / "pairs_train.jsonl").exists():
        note("SciFact train pairs")
        rows = scifact(checker, recording, folder)
        for h in ("tune", "report"):
            sets[f"SciFact train pairs, {h} half"] = side([r for r in rows if r["half"] == h], s, c, _pair_flagged)
    else:
        out["notes"].append(f"SciFact train pairs skipped: {folder} not found (CC BY-NC, read from there only)")
    note("claims benchmark dev")
    sets["claims benchmark dev"] = side(claims(checker, recording, paper), s, c, _claims_flagged)
    note("recorded answers dev")
    sets["recorded answers dev"] = side(rows_of(checker, recording, recorded_items(paper)), s, c, _claims_flagged)
    for split, name in PUBMEDQA.items():
        try:
            items = pubmedqa(split)
        except (OSError, ValueError, KeyError) as exc:
            out["notes"].append(f"PubMedQA judge pairs skipped: {exc}")
            break
        note(name)
        sets[name] = side(rows_of(checker, recording, items), s, c, _claims_flagged)
    return out


ABSENT = ("learned judge beside the rules skipped: rag/models/judge-minilm-l6-int8.onnx is not built here "
          "(`make train-judge` builds it)")  # fmt: skip


def for_eval(assistant: Any, settings: Any, say: Callable[[str], None]) -> dict[str, Any] | None:
    """`rag eval --judge-compare`: every_set with the built judge over an icml2025 assistant (its checker and paper
    lookup), at the settings' floors; None, after one line saying so, when the model is not built."""
    from rag.factory import judge_model

    try:
        model = judge_model(settings.replace(judge="learned"))
    except ConfigError:
        say(ABSENT)
        return None
    assert model is not None
    result = every_set(assistant.checker, model, assistant.retriever.paper, settings.answer.judge_supported,
                       settings.answer.judge_contradicted, progress=lambda name: say(f"judge beside rules: {name}"))
    for line in result["notes"]:
        say(line)
    return result


def compare(checker: SupportChecker, model: SupportJudge, paper: Callable[[str], Paper | None], s: float, c: float,
            folder: Path = EXTERNAL / "scifact") -> dict[str, Any]:  # fmt: skip
    recording = Recording(model)
    out: dict[str, Any] = {"floors": {"supported": s, "contradicted": c}}
    if (folder / "pairs_train.jsonl").exists():
        rows = scifact(checker, recording, folder)
        for h in ("tune", "report"):
            mine = at_floors([r for r in rows if r["half"] == h], s, c)
            out.setdefault("scifact", {})[h] = _rates(mine, ("rules", "at"), _pair_flagged)
        out["scifact"]["curve (tune half)"] = curve([r for r in rows if r["half"] == "tune"], _pair_flagged)
        for h in ("tune", "report"):
            out["scifact"][f"veto curve ({h} half)"] = veto_curve([r for r in rows if r["half"] == h], _pair_flagged)
    rows = claims(checker, recording, paper)
    out["claims dev"] = {"overall": _rates(at_floors(rows, s, c), ("rules", "at"), _claims_flagged),
                         "by kind": by_kind(rows, s, c), "curve": curve(rows, _claims_flagged),
                         "veto curve": veto_curve(rows, _claims_flagged),
                         "veto by kind (0.9)": _kinds(overruled(rows, 0.9))}  # fmt: skip
    return out


def main(argv: Sequence[str]) -> int:
    import tempfile

    from rag.factory import build_index, open_assistant
    from rag.settings import load_settings

    out = Path(argv[0] if argv else "eval-out/judge")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as home:
        settings = load_settings(home=Path(home), env={}, llm="extractive", judge="learned")
        build_index(settings)
        assistant = open_assistant(settings)
        judge = assistant.checker.judge
        assert judge is not None
        try:
            result = compare(assistant.checker, judge.model, assistant.retriever.paper,
                             settings.answer.judge_supported, settings.answer.judge_contradicted)  # fmt: skip
        finally:
            assistant.close()
    (out / "judge.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k != "claims dev"} | {
        "claims dev": {"overall": result["claims dev"]["overall"], "by kind": result["claims dev"]["by kind"]}},
        indent=1, default=str)[:20000])  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
