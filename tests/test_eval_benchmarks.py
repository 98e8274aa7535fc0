"""The public benchmarks in `rag eval`: suites read from a path, picked by name, the "leads with a finding" metric
(../shared/external/README.md) and retrieval-only suites."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.findings import finding_scores, load_findings, states, words
from eval.metrics import summarize
from eval.suites import all_suites, benchmark_suites, pick
from rag.errors import RagError

CONCLUSION = "Oral endotracheal intubation in the in-flight setting takes approximately twice as long as on the ground."


def test_a_first_sentence_holding_most_of_a_finding_leads_with_it():
    answer = f"{CONCLUSION} [1] The study was conducted in a helicopter. [1]"
    assert finding_scores(answer, [CONCLUSION]) == {"leads_with_finding": True, "contains_finding": True}
    later = f"The study was conducted in a helicopter. [1] {CONCLUSION} [1]"
    assert finding_scores(later, [CONCLUSION]) == {"leads_with_finding": False, "contains_finding": True}


def test_the_run_must_be_contiguous_and_sixty_percent_of_the_finding():
    said = words(CONCLUSION)  # 17 words ("in-flight" is two): a run of 11 (>= 10.2) is needed
    assert len(said) == 17
    assert states(f"Indeed, {' '.join(said[:11])}, as they say.", [CONCLUSION])
    assert not states(f"Indeed, {' '.join(said[:10])}, as they say.", [CONCLUSION])
    assert not states(f"{' '.join(said[:9])} and {' '.join(said[9:])}", [CONCLUSION])  # runs of 9 and 8, not 11
    assert not states("Intubation in flight: approximately twice as long.", [CONCLUSION])


def test_short_findings_do_not_count_and_markers_are_ignored():
    assert finding_scores("It worked. [1]", ["It worked well."]) is None  # 3 words < 6: nothing to lead with
    assert states("Oral endotracheal intubation in the in-flight [1] setting takes approximately twice as long",
                  [CONCLUSION])  # fmt: skip


def test_findings_file_skips_papers_not_in_the_library(tmp_path: Path):
    path = tmp_path / "findings.jsonl"
    rows = [{"id": "q1", "indexed": True, "conclusion": [CONCLUSION], "results": ["r one two three four five."]},
            {"id": "q2", "indexed": False, "conclusion": ["Not indexed at all, so no finding here."]}]  # fmt: skip
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert load_findings(path) == {"q1": [CONCLUSION, "r one two three four five."]}
    path.write_text("{not json\n")
    with pytest.raises(RagError, match="findings.jsonl:1"):
        load_findings(path)


def test_summary_counts_findings_of_answered_questions_only():
    lead, later = ({"leads_with_finding": first, "contains_finding": True} for first in (True, False))
    rows = [
        {"id": "a", "gold": ["p"], "abstained": False, "finding": lead},
        {"id": "b", "gold": ["p"], "abstained": False, "finding": later},
        {"id": "c", "gold": ["p"], "abstained": True, "finding": None},
        {"id": "d", "gold": [], "abstained": True},
        {"id": "e", "gold": [], "abstained": False},
    ]  # fmt: skip
    overall = summarize(rows)["overall"]
    assert overall["leads_with_finding"] == 0.5 and overall["contains_finding"] == 1.0
    assert overall["abstention_precision"] == 0.5  # c (answerable) and d (unanswerable) abstained
    assert overall["false_abstention_rate"] == pytest.approx(1 / 3)


def test_retrieval_only_rows_get_retrieval_figures_and_no_answer_figures():
    rows = [{"id": "c1", "gold": ["p1"], "retrieved": ["p2", "p1"], "search_only": True},
            {"id": "c2", "gold": ["p3"], "retrieved": ["p3"], "search_only": True}]  # fmt: skip
    overall = summarize(rows)["overall"]
    assert overall["recall@1"] == 0.5 and overall["recall@5"] == 1.0 and overall["ndcg@10"] is not None
    assert "false_abstention_rate" not in overall and "citation_precision" not in overall


def test_scifact_is_read_from_beside_the_checkout_or_skipped_with_a_note(tmp_path: Path):
    suites, notes = benchmark_suites(tmp_path)  # no scifact folder there
    assert [s.name for s in suites] == ["pubmedqa-dev"] and len(notes) == 1 and "scifact" in notes[0]
    (tmp_path / "scifact").mkdir()
    for name in ("queries_train.jsonl", "corpus.jsonl"):
        (tmp_path / "scifact" / name).write_text("")
    suites, notes = benchmark_suites(tmp_path)
    scifact = suites[-1]
    assert notes == [] and scifact.name == "scifact-train" and scifact.split == "dev"
    assert not scifact.answers and scifact.large and scifact.corpus == tmp_path / "scifact" / "corpus.jsonl"


def test_pubmedqa_dev_is_bundled_with_its_findings_and_licence():
    suite = next(s for s in benchmark_suites()[0] if s.name == "pubmedqa-dev")
    assert suite.split == "dev" and suite.answers and suite.findings is not None and suite.findings.exists()
    assert (suite.questions.parent / "LICENSE").read_text().startswith("MIT License")
    assert suite.collection == "eval-pubmedqa"


def test_suites_are_picked_by_name_or_corpus():
    suites, _ = all_suites()
    assert [s.name for s in pick(suites, ["pubmedqa"])] == ["pubmedqa-dev"]
    assert {s.name for s in pick(suites, ["icml2025"])} >= {"icml2025-dev", "icml2025-heldout"}
    assert [s.name for s in pick(suites, ["icml2025-heldout", "icml2025-heldout"])] == ["icml2025-heldout"]
    assert pick(suites, []) == suites
    with pytest.raises(ValueError, match="no suite named 'nope'"):
        pick(suites, ["nope"])


def test_the_bundled_pubmedqa_copy_is_the_shared_one():
    shared = Path(__file__).resolve().parent.parent.parent / "shared" / "external" / "pubmedqa"
    if not shared.is_dir():
        pytest.skip(f"{shared} not found")
    suite = next(s for s in benchmark_suites()[0] if s.name == "pubmedqa-dev")
    for name in ("corpus.jsonl", "questions.jsonl", "findings.jsonl"):
        assert (suite.questions.parent / name).read_bytes() == (shared / name).read_bytes(), name


def test_a_retrieval_only_suite_runs_end_to_end_from_the_external_folder(
    rag_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    external = tmp_path / "external" / "scifact"
    external.mkdir(parents=True)
    papers = [{"id": f"doc-{i}", "title": title, "abstract": text} for i, (title, text) in enumerate([
        ("Vitamin D and bone density", "Vitamin D supplements raised bone density in older women over two years."),
        ("Statins and memory", "Statin use was not associated with memory decline in a cohort of 4,000 adults."),
        ("Sleep and blood pressure", "Short sleep increased blood pressure in shift workers."),
    ])]  # fmt: skip
    (external / "corpus.jsonl").write_text("\n".join(json.dumps(p) for p in papers) + "\n")
    claims = [{"id": "c1", "question": "Vitamin D increases bone density.", "type": "claim", "gold": ["doc-0"]},
              {"id": "c2", "question": "Statins cause memory loss.", "type": "claim", "gold": ["doc-1"]}]  # fmt: skip
    (external / "queries_train.jsonl").write_text("\n".join(json.dumps(c) for c in claims) + "\n")
    monkeypatch.setattr("eval.suites.EXTERNAL", tmp_path / "external")
    out = tmp_path / "out"
    code, _, err = rag_cli("eval", "--suite", "scifact", "--out", str(out), "--no-claims", "--baselines",
                           "--cache-home", str(tmp_path / "cache"))  # fmt: skip
    assert code == 0, err
    suite = json.loads((out / "summary.json").read_text())["suites"]["scifact-train"]
    assert suite["split"] == "dev" and suite["overall"]["n"] == 2 and suite["overall"]["ndcg@10"] is not None
    assert "false_abstention_rate" not in suite["overall"] and set(suite["baselines"]) == {"hybrid", "dense", "lexical"}
    assert (tmp_path / "cache" / "index").is_dir()  # the large corpus went to the cache home, not --home
    assert "scifact-train (dev)" in (out / "report.md").read_text()
