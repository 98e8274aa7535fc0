"""`rag eval --judge-compare` (issue 34): the learned judge beside the rules on every dev set. A scripted judge
stands in for the model, so the counts can be checked by hand; without the built model the option says so in one
line and the rest of the run goes on; the real model, where it is built, runs on a few pairs."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from eval import judge_compare
from eval.judge_compare import ABSENT, _claims_flagged, every_set, for_eval, side
from eval.report_judge import judge_compare_section
from rag.adapters.fakes import HashEmbedder
from rag.settings import load_settings
from rag.types import CONTRADICTED, NOT_FOUND, SUPPORTED, Hit, Paper
from rag.verify.checker import SupportChecker
from rag.verify.sentence_vectors import SentenceVectors

WELLS = Paper("w", "Alberta Wells", "The wells leak methane into the air. Abandoned wells are rarely monitored.")


def _hit(text: str) -> list[Hit]:
    return [Hit(Paper("p", "", text), "p:0", text, 1.0, 1.0)]


class ByClaim:
    """A scripted SupportJudge: each claim's probabilities (every evidence pair alike), counting the pairs."""

    def __init__(self, probs: dict[str, tuple[float, float, float]]) -> None:
        self.probs, self.asked = probs, 0

    def probabilities(self, pairs: Sequence[tuple[str, str]]) -> list[tuple[float, float, float]]:
        self.asked += len(pairs)
        return [self.probs[claim] for claim, _ in pairs]


def test_side_by_side_counts_by_hand() -> None:
    rows = [
        {"gold": "supported", "kind": "identity", "rules": SUPPORTED, "learned": SUPPORTED,
         "probs": [(0.9, 0.05, 0.05)]},
        {"gold": "supported", "kind": "merge", "rules": NOT_FOUND, "learned": NOT_FOUND, "probs": [(0.4, 0.1, 0.5)]},
        {"gold": "contradicted", "kind": "negation", "rules": SUPPORTED, "learned": CONTRADICTED,
         "probs": [(0.2, 0.7, 0.1)]},
        {"gold": "contradicted", "kind": "negation", "rules": CONTRADICTED, "learned": CONTRADICTED, "probs": None},
    ]  # fmt: skip
    out = side(rows, 0.5, 0.5, _claims_flagged)
    assert out["n"] == 4
    assert out["by label"]["supported"] == {"n": 2, "rules flagged": 1, "judge flagged": 1, "rules contradicted": 0,
                                            "judge contradicted": 0}  # fmt: skip
    assert out["by label"]["contradicted"] == {"n": 2, "rules flagged": 1, "judge flagged": 2,
                                               "rules contradicted": 1, "judge contradicted": 2}  # fmt: skip
    assert out["by kind"]["merge"] == {"gold": "supported", "n": 1, "rules": 1, "learned": 1}
    assert out["by kind"]["negation"] == {"gold": "contradicted", "n": 2, "rules": 1, "learned": 2}
    # at floors 0.3 / 0.9 the merged sentence is supported (0.4 >= 0.3) and the negation no longer contradicted
    # (0.7 < 0.9) but, not supported either, still flagged; the vetoed row keeps its label
    point = next(p for p in out["curve"] if p["supported floor"] == 0.3 and p["contradicted floor"] == 0.9)
    assert (point["supported"], point["contradicted as contradicted"]) == (0.0, 0.5)
    assert out["rules point"]["contradicted"] == 0.5 and out["rules point"]["supported"] == 0.5
    assert len(out["curve"]) == len(judge_compare.GRID) ** 2
    # at floors 0.2 / 0.2 the judge flags no supported row and both contradicted ones: it beats the rules' 0.5 / 0.5
    text = "\n".join(judge_compare_section({"floors": {"supported": 0.5, "contradicted": 0.5}, "sets": {"s": out}}))
    assert "| judge, most caught at no more false flags than the rules | 0.000 / 1.000 at 0.200 / 0.200 |" in text
    assert "| s | supported | 2 | 0.500 (1/2) | 0.500 (1/2) | 0.000 (0/2) | 0.000 (0/2) |" in text


def test_every_set_runs_rules_and_the_judge_on_a_tiny_slice(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    evidence = "The wells leak methane into the air."
    pairs = {"Wells leak methane into the air.": (0.9, 0.05, 0.05),  # judged supported
             "Wells never leak methane into the air.": (0.1, 0.8, 0.1),  # judged contradicted
             "Wells leak methane into the oceans.": (0.3, 0.1, 0.6)}  # judged not found  # fmt: skip
    items = [(claim, _hit(evidence), {"gold": gold, "kind": kind}) for claim, gold, kind in (
        ("Wells leak methane into the air.", "supported", "identity"),
        ("Wells never leak methane into the air.", "contradicted", "negation"),
        ("Wells leak methane into the oceans.", "not_found", "invented_specifics"))]  # fmt: skip
    monkeypatch.setattr(judge_compare, "claims", lambda *_: [])
    monkeypatch.setattr(judge_compare, "recorded_items", lambda _paper: items[:2])
    model = ByClaim(pairs)
    checker = SupportChecker(SentenceVectors(HashEmbedder(256)))
    said: list[str] = []
    out = every_set(checker, model, lambda _id: WELLS, 0.5, 0.5, folder=tmp_path, progress=said.append,
                    pubmedqa=lambda split: items if split == "test" else items[:1])  # fmt: skip
    assert checker.judge is None  # the rules are back in charge afterwards
    assert out["notes"] == [f"SciFact train pairs skipped: {tmp_path} not found (CC BY-NC, read from there only)"]
    assert said == ["claims benchmark dev", "recorded answers dev", *judge_compare.PUBMEDQA.values()]
    test = out["sets"]["PubMedQA, judge's frozen test papers"]["by label"]
    rules = {claim: checker.verdict(claim, hits).label for claim, hits, _ in items}  # the rules alone
    assert test["supported"]["judge flagged"] == 0 and test["contradicted"]["judge contradicted"] == 1
    assert test["not_found"]["judge flagged"] == 1 and test["not_found"]["judge contradicted"] == 0
    assert [test[g]["rules flagged"] for g in ("supported", "contradicted", "not_found")] == [
        int(rules[c] != SUPPORTED) for c, _, _ in items]
    assert out["sets"]["PubMedQA, judge's train papers (in training)"]["by label"]["supported"]["n"] == 1
    assert out["sets"]["recorded answers dev"]["n"] == 2 and out["sets"]["claims benchmark dev"]["n"] == 0
    assert model.asked > 0
    text = "\n".join(judge_compare_section(out))
    assert "| PubMedQA, judge's frozen test papers | contradicted | 1 |" in text
    assert "SciFact train pairs skipped" in text


def test_without_the_built_model_one_line_says_so_and_how_to_build_it(monkeypatch: pytest.MonkeyPatch,
                                                                      tmp_path: Path) -> None:  # fmt: skip
    import rag.adapters.judge_onnx as onnx

    monkeypatch.setattr(onnx, "JUDGE_PATH", tmp_path / "judge-minilm-l6-int8.onnx")
    said: list[str] = []
    settings = load_settings(home=tmp_path, env={})
    assert for_eval(object(), settings, said.append) is None
    assert said == [ABSENT] and "make train-judge" in ABSENT and "\n" not in ABSENT


def test_the_cli_offers_the_option_and_the_report_leaves_it_out_when_absent(tmp_path: Path) -> None:
    from eval.report import render_report
    from rag.cli.main import build_parser

    args = build_parser().parse_args(["eval", "--out", str(tmp_path), "--judge-compare"])
    assert args.judge_compare is True
    summary: dict[str, Any] = {"run": {}, "suites": {}, "gates": {"status": [], "failed": []}}
    assert "learned sentence judge" not in render_report(summary, {})


@pytest.mark.skipif(not __import__("rag.adapters.judge_onnx").adapters.judge_onnx.JUDGE_PATH.exists(),
                    reason="the judge is not built here (`make train-judge`)")  # fmt: skip
def test_the_built_judge_beside_the_rules_on_a_few_pairs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from rag.adapters.judge_onnx import OnnxJudge

    evidence = "Intubation took significantly longer in flight than in the control setting."
    items = [(evidence, _hit(evidence), {"gold": "supported", "kind": "identity"}),
             (evidence.replace("took significantly", "did not take"), _hit(evidence),
              {"gold": "contradicted", "kind": "negation"})]  # fmt: skip
    monkeypatch.setattr(judge_compare, "claims", lambda *_: [])
    monkeypatch.setattr(judge_compare, "recorded_items", lambda _paper: [])
    out = every_set(SupportChecker(SentenceVectors(HashEmbedder(256))), OnnxJudge(threads=1), lambda _id: None,
                    0.5, 0.5, folder=tmp_path, pubmedqa=lambda _split: items)  # fmt: skip
    test = out["sets"]["PubMedQA, judge's frozen test papers"]["by label"]
    assert test["supported"]["judge flagged"] == 0
    assert test["contradicted"]["judge flagged"] == 1
