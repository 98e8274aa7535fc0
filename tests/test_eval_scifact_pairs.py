"""The SciFact checker-pairs section of `rag eval`, on a made-up folder in SciFact's format (no SciFact text)."""

from __future__ import annotations

import json
from pathlib import Path

from eval.claims import threshold_curve
from eval.plots import make_plots
from eval.report_extra import scifact_section
from eval.scifact_pairs import half, load_pairs, run_pairs, summarize_pairs
from rag.adapters.fakes import HashEmbedder
from rag.verify.checker import SupportChecker
from rag.verify.sentence_vectors import SentenceVectors

DOCS = [
    {"id": "d1", "title": "Kinase study", "abstract": "Blocking kinase K7 lowered tumour growth in 40 mice."},
    {"id": "d2", "title": "Lake survey", "abstract": "The survey counts 4,800 lakes in the Yukon basin."},
]
PAIRS = [
    {"id": "t-1", "claim_id": 1, "claim": "Blocking kinase K7 lowered tumour growth in 40 mice.", "doc": "d1",
     "label": "SUPPORT", "evidence": [0]},
    {"id": "t-2", "claim_id": 2, "claim": "Blocking kinase K7 raised tumour growth in 40 mice.", "doc": "d1",
     "label": "CONTRADICT", "evidence": [0]},
    {"id": "t-3", "claim_id": 2, "claim": "Blocking kinase K7 raised tumour growth in 40 mice.", "doc": "d2",
     "label": "WRONG_PAPER", "evidence": []},
]  # fmt: skip


def _folder(tmp_path: Path) -> Path:
    (tmp_path / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in DOCS), encoding="utf-8")
    (tmp_path / "pairs_train.jsonl").write_text("".join(json.dumps(p) + "\n" for p in PAIRS), encoding="utf-8")
    return tmp_path


def test_pairs_are_scored_per_label_and_half(tmp_path: Path):
    pairs, papers = load_pairs(_folder(tmp_path))
    checker = SupportChecker(SentenceVectors(HashEmbedder(256)), threshold=0.3)
    rows = run_pairs(pairs, papers, checker)
    assert [half(p["claim_id"]) for p in PAIRS] == ["report", "tune", "tune"]
    assert [r["check_label"] for r in rows] == ["supported", "contradicted", "not found"]
    summary = summarize_pairs(rows, checker.threshold)
    every = summary["halves"]["all"]
    assert every["SUPPORT"] == {"n": 1, "flagged": 0, "rate": 0.0, "labels": {"supported": 1}}
    assert every["CONTRADICT"]["flagged"] == 1 and every["WRONG_PAPER"]["flagged"] == 1
    assert summary["halves"]["tune"]["SUPPORT"]["n"] == 0 and len(summary["curve"]) >= 5
    text = "\n".join(scifact_section(summary))
    assert "| SUPPORT | flagged (false flags) | – | 0.000 (0/1) | 0.000 (0/1) |" in text
    assert "supported 1" in text and "**0.550**" not in text  # 0.3 is not on the curve: no row in bold
    (tmp_path / "out").mkdir()
    written = make_plots(tmp_path / "out", {}, {"suites": {}, "scifact_pairs": summary})
    assert "claims_by_label.png" in written and (tmp_path / "out" / "claims_threshold.png").exists()


def test_threshold_curve_moves_only_sentences_the_threshold_decided():
    rows = [{"label": "wrong", "flagged": True, "similarity": None},
            {"label": "wrong", "flagged": False, "similarity": 0.6},
            {"label": "faithful", "flagged": False, "similarity": 0.62},
            {"label": "faithful", "flagged": False, "similarity": None}]  # fmt: skip
    low, high = threshold_curve(rows, (0.5, 0.7))
    assert (low["catch_rate"], low["false_flag_rate"]) == (0.5, 0.0)
    assert (high["catch_rate"], high["false_flag_rate"]) == (1.0, 0.5)


def test_the_names_curve_trades_background_names_for_invented_ones(tmp_path: Path):
    from eval.report_extra import names_section
    from eval.scifact_pairs import names_curve

    docs = [{"id": "d3", "title": "Cell study", "abstract": "Loading cholesterol induces KLF4 expression in cells."}]
    pairs = [{"id": "t-4", "claim_id": 4, "claim": "Loading cholesterol induces KLF4 expression in Eomes cells.",
              "doc": "d3", "label": "SUPPORT", "evidence": [0]}]  # fmt: skip
    (tmp_path / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    (tmp_path / "pairs_train.jsonl").write_text("".join(json.dumps(p) + "\n" for p in pairs), encoding="utf-8")
    loaded, papers = load_pairs(tmp_path)
    checker = SupportChecker(SentenceVectors(HashEmbedder(256)), threshold=0.3)
    curve = names_curve(loaded, papers, checker, [None, 0.1])
    assert [c["SUPPORT"] for c in curve] == [1.0, 0.0]  # 'Eomes' is not in the abstract; a close sentence vouches
    assert checker.terms_below is None  # the checker is left as it was
    text = "\n".join(names_section(curve, None))
    assert "| **off** | 1.000 |" in text and "| 0.100 | 0.000 |" in text
    (tmp_path / "out").mkdir()
    summary = {**summarize_pairs(run_pairs(loaded, papers, checker), 0.3), "names_curve": curve}
    written = make_plots(tmp_path / "out", {}, {"suites": {}, "scifact_pairs": summary})
    assert "claims_names.png" in written
