"""`rag eval`: run the suites (dev and held-out test question sets, each with its corpus), the claim-checking
benchmark and, with --replay, the recorded strong-model answers; write the report; check the gates."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from eval.suites import CLAIM_SETS, CLAIMS, EXTERNAL, Suite, all_suites, file_suite, held_out_names, pick, sha256
from rag.cli.output import say
from rag.errors import RagError
from rag.settings import Settings

__all__ = ["cmd_eval"]

KEY_METRICS = ("recall@5", "ndcg@10", "citation_validity", "citation_precision", "citation_support", "fact_coverage",
               "hallucination_rate", "abstention_accuracy", "false_abstention_rate", "leads_with_finding",
               "latency_p50")  # fmt: skip


def _f(value: Any) -> str:
    return "–" if value is None else (f"{value:.3f}" if isinstance(value, float) else str(value))


def _print_summary(summary: dict[str, Any], report: Path) -> None:
    from eval.fields import METRICS

    run, suites = summary["run"], summary["suites"]
    say(f"backend {run['backend']} / {run['model']}, {run['duration_s']:.1f} s")
    names = list(suites)
    width = max(len(METRICS[m]) for m in KEY_METRICS)
    say(f"  {'':<{width}}  " + "  ".join(f"{n:>16}" for n in names))
    for m in KEY_METRICS:
        say(f"  {METRICS[m]:<{width}}  " + "  ".join(f"{_f(suites[n]['overall'].get(m)):>16}" for n in names))
    for split, block in (summary.get("claims") or {}).items():
        say(f"  claims {split}: {_f(block.get('catch_rate'))} of wrong sentences caught, "
              f"{_f(block.get('false_flag_rate'))} of faithful ones flagged")  # fmt: skip
    for half, labels in ((summary.get("scifact_pairs") or {}).get("halves") or {}).items():
        say(f"  SciFact pairs {half}: " + ", ".join(f"{label} flagged {b['flagged']}/{b['n']}"
                                                    for label, b in labels.items()))  # fmt: skip
    for name, s in suites.items():
        if s.get("replay"):
            sc = s["replay"]["scores"]
            say(f"  replay {name}: {sc['outcomes']}; faithful flagged {_f(sc['faithful_flag_rate'])}, "
                  f"planted caught {_f(sc['planted_catch_rate'])}")  # fmt: skip
    failed = summary["gates"]["failed"]
    say("quality gates (held-out suites): all passed" if not failed else f"quality gates: {len(failed)} failed")
    say(f"report: {report}")


def _suites(args: argparse.Namespace) -> list[Suite]:
    files = getattr(args, "questions", None) or []
    if files:
        suites = [file_suite(Path(q)) for q in files]
    else:
        suites, notes = all_suites()
        for note in notes:
            say(note, err=True)
        try:
            suites = pick(suites, getattr(args, "suite", None) or [])
        except ValueError as exc:
            raise RagError(str(exc)) from None
    split = getattr(args, "split", None)
    if split and split != "all":
        suites = [s for s in suites if s.split == split]
    if not suites:
        raise RagError(f"no question set to run (split {split})")
    return suites


class _Run:
    """One `rag eval`: the shared embedder, an assistant per suite, the results."""

    def __init__(self, args: argparse.Namespace, settings: Settings) -> None:
        from rag.factory import lazy_embedder

        self.args, self.settings = args, settings
        self.embedder = lazy_embedder(settings)  # one model for every suite
        self.k = getattr(args, "k", None)
        self.llm, self.model = getattr(args, "llm", None), getattr(args, "model", None)

    def suite_settings(self, suite: Suite) -> Settings:
        if suite.corpus is None:
            return self.settings
        from rag.cli.progress import ProgressBar
        from rag.factory import build_index

        s = self.settings.replace(collection=suite.collection)
        cache = getattr(self.args, "cache_home", None)
        if suite.large and cache:  # kept between runs: a fresh --home does not embed 5,000 abstracts again
            s = s.replace(home=cache)
        if suite.sentence_vectors is not None:
            s = s.replace(sentence_vectors=suite.sentence_vectors)
        with ProgressBar(f"indexing {suite.corpus_name}", unit="paper") as bar:  # unchanged: nothing is re-embedded
            build_index(s, [suite.corpus], embedder=self.embedder, progress=bar.update)
        return s

    def questions(self, suite: Suite) -> Any:
        from eval.questions import load_questions

        return load_questions(suite.questions)

    def run_suite(self, suite: Suite, settings: Settings, bar_label: str, **overrides: Any) -> tuple[Any, list]:
        from eval.findings import load_findings
        from eval.runner import run_eval, run_searches
        from rag.cli.progress import ProgressBar
        from rag.factory import open_assistant

        assistant = open_assistant(settings.replace(**overrides) if overrides else settings, embedder=self.embedder)
        llm = "openai" if overrides else self.llm
        findings = load_findings(suite.findings) if suite.findings else None
        with ProgressBar(bar_label, unit="q") as bar:
            if not suite.answers:
                return assistant, run_searches(assistant.retriever, self.questions(suite), progress=bar.update)
            results = run_eval(assistant, self.questions(suite), llm=llm, model=self.model, k=self.k,
                               progress=bar.update, findings=findings)  # fmt: skip
        return assistant, results


def _backend_share(results: list[dict[str, Any]], backend: str) -> float | None:
    """Share of answers the requested backend actually wrote (not refused before it spoke, not replaced)."""
    if not results:
        return None
    written = [r for r in results if r.get("backend") == backend and not r.get("abstain_reason") and not r.get("error")]
    return len(written) / len(results)


def cmd_eval(args: argparse.Namespace, settings: Settings) -> int:
    from eval.compare import load_summary
    from eval.report import build_summary, write_outputs

    suites = _suites(args)
    k = getattr(args, "k", None)
    if k is not None and not 1 <= k <= settings.retrieval.max_k:
        raise RagError(f"-k must be between 1 and {settings.retrieval.max_k}, got {k}")
    compare_dir = getattr(args, "compare", None)
    before = load_summary(compare_dir) if compare_dir else None  # fail before a long run, not after
    out_dir = Path(args.out)
    if out_dir.exists() and not out_dir.is_dir():
        raise RagError(f"--out {out_dir} exists and is not a directory")

    run = _Run(args, settings)
    started_at, t0 = time.strftime("%Y-%m-%dT%H:%M:%S%z"), time.perf_counter()
    summaries: dict[str, Any] = {}
    results: dict[str, list[dict[str, Any]]] = {}
    details: dict[str, list[dict[str, Any]]] = {}
    backend = "?"
    claims_checker: Any = None
    for suite in suites:
        s = run.suite_settings(suite)
        assistant, rows = run.run_suite(suite, s, suite.name)
        try:
            backend = assistant.backend_for(run.llm)
            summary = build_summary(rows, suite=_describe(suite), baselines=_baselines(args, assistant, suite, run),
                                    judge=_judge(args, assistant, rows, run))  # fmt: skip
            if backend != "extractive":
                summary["overall"]["backend_share"] = _backend_share(rows, backend)
            if claims_checker is None and suite.corpus is not None and suite.name.startswith("icml2025"):
                claims_checker = assistant
            else:
                assistant.close()
        except BaseException:
            assistant.close()
            raise
        if getattr(args, "replay", False) and suite.recorded is not None:
            summary["replay"], details[f"{suite.name}-replay"] = _replay(run, suite, s)
        summaries[suite.name], results[suite.name] = summary, rows

    claims: dict[str, Any] = {}
    scifact: dict[str, Any] = {}
    if claims_checker is not None and not getattr(args, "no_claims", False):
        claims, claim_rows = _claims(claims_checker)
        details.update({f"claims-{split}": r for split, r in claim_rows.items()})
        scifact, details["scifact-pairs"] = _scifact_pairs(claims_checker)
    judged = None
    if claims_checker is not None and getattr(args, "judge_compare", False):
        from eval.judge_compare import for_eval

        judged = for_eval(claims_checker, settings, lambda line: say(line, err=True))
    elif getattr(args, "judge_compare", False):
        say("learned judge beside the rules skipped: it needs an icml2025 suite in the run", err=True)
    if claims_checker is not None:
        claims_checker.close()

    models = sorted({str(r["model"]) for rows in results.values() for r in rows if r.get("model")})
    summary_all: dict[str, Any] = {
        "run": {"timestamp": started_at, "duration_s": time.perf_counter() - t0, "backend": backend,
                "model": ", ".join(models) or (run.model or settings.endpoint.model or backend),
                "k": k or settings.retrieval.k, "settings": settings.public_dict()},  # fmt: skip
        "suites": summaries,
    }
    if claims:
        summary_all["claims"] = claims
    if scifact:
        summary_all["scifact_pairs"] = scifact
    if judged:
        summary_all["judge_compare"] = judged
    expected = _expected_gates(args, suites) if getattr(args, "check", False) else None
    report = write_outputs(out_dir, summary_all, results, details=details, compare_dir=compare_dir,
                           compare_with=before, expected_gates=expected)  # fmt: skip
    _print_summary(summary_all, report)
    failures = summary_all["gates"]["failed"]
    if getattr(args, "check", False) and failures:
        for f in failures:
            say(f"gate failed: {f}", err=True)
        return 1
    return 0


def _expected_gates(args: argparse.Namespace, suites: list[Suite]) -> set[str]:
    """The gate scopes this run was asked to cover: each bundled held-out suite it runs, that suite's recorded
    answers with --replay, and the claims' held-out split when the claims benchmark runs (an icml2025 suite,
    no --no-claims)."""
    held_out = set(held_out_names())
    expected = {s.name for s in suites if s.name in held_out}
    if getattr(args, "replay", False):
        expected |= {f"{s.name} replay" for s in suites if s.name in held_out and s.recorded is not None}
    if not getattr(args, "no_claims", False) and any(s.corpus_name == "icml2025" for s in suites):
        expected |= {f"claims {name}" for name, _, split in CLAIM_SETS if split == "test"}
    return expected


def _describe(suite: Suite) -> dict[str, Any]:
    return {"split": suite.split, "questions_file": str(suite.questions), "sha256": sha256(suite.questions),
            "corpus": str(suite.corpus) if suite.corpus else None}  # fmt: skip


def _baselines(args: argparse.Namespace, assistant: Any, suite: Suite, run: _Run) -> Any:
    if not getattr(args, "baselines", False):
        return None
    from eval.runner import run_retrieval_baselines
    from rag.cli.progress import ProgressBar

    with ProgressBar(f"{suite.name} baselines", unit="search") as bar:
        return run_retrieval_baselines(assistant.retriever, run.questions(suite), progress=bar.update)


def _judge(args: argparse.Namespace, assistant: Any, rows: list[dict[str, Any]], run: _Run) -> Any:
    if not getattr(args, "judge", False):
        return None
    from eval.judge import judge_model, run_judge
    from rag.cli.progress import ProgressBar

    chat = judge_model(assistant, run.model)  # no endpoint: a clear error
    with ProgressBar("judge", unit="q") as bar:
        return run_judge(assistant, rows, chat=chat, progress=bar.update)


def _replay(run: _Run, suite: Suite, settings: Settings) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The suite answered by the replay server's recorded strong-model answers, checked offline."""
    from eval.metrics import summarize
    from eval.recorded import load_recorded, score_replay
    from eval.replay_server import ReplayServer
    from rag.corpus import read_papers

    assert suite.recorded is not None and suite.corpus is not None
    recorded = load_recorded(suite.recorded)
    titles = {p.id: p.title for p in read_papers([suite.corpus])}
    with ReplayServer(recorded, titles) as server:
        overrides = {"llm": "openai", "openai_base_url": server.base_url, "openai_api_key": None,
                     "model": "recorded", "verify": "offline"}  # fmt: skip
        assistant, rows = run.run_suite(suite, settings, f"{suite.name} replay", **overrides)
        assistant.close()
    scores = score_replay(rows, recorded)
    answers = {a["id"]: a for a in scores.pop("answers")}
    return {"overall": summarize(rows)["overall"], "scores": scores}, [
        {**r, "replay": answers.get(r["id"])} for r in rows
    ]


def _scifact_pairs(assistant: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The SciFact checker pairs (eval.scifact_pairs), when ../shared/external/scifact is there."""
    from eval.scifact_pairs import load_pairs, names_curve, run_pairs, summarize_pairs
    from rag.cli.progress import ProgressBar

    folder = EXTERNAL / "scifact"
    if not (folder / "pairs_train.jsonl").exists():
        say(f"SciFact checker pairs skipped: {folder} not found (CC BY-NC, read from there only)", err=True)
        return {}, []
    pairs, papers = load_pairs(folder)
    checker = assistant.checker
    with ProgressBar("SciFact checker pairs", unit="pair") as bar:
        rows = run_pairs(pairs, papers, checker, progress=bar.update)
    summary = {"file": str(folder / "pairs_train.jsonl"), **summarize_pairs(rows, checker.threshold)}
    summary["names_curve"] = names_curve(pairs, papers, checker, _names_gates(checker))
    return summary, rows


def _names_gates(checker: Any) -> list[float | None]:
    """The setting in force first, then the curve's other values."""
    from eval.scifact_pairs import NAMES_CURVE

    return [checker.terms_below, *(g for g in NAMES_CURVE if g != checker.terms_below)]


def _claims(assistant: Any) -> tuple[dict[str, Any], dict[str, list[dict[str, Any]]]]:
    from eval.claims import load_claims, rule_ablation, run_claims, summarize_claims, threshold_curve
    from eval.claims import names_curve as claim_names_curve
    from eval.scifact_pairs import CURVE

    summaries, rows = {}, {}
    for split, file, kind in CLAIM_SETS:
        path = CLAIMS / file
        claims = load_claims(path)
        checker, paper = assistant.checker, assistant.retriever.paper
        rows[split] = run_claims(claims, checker, paper)
        summaries[split] = {"file": str(path), "sha256": sha256(path), "split": kind, **summarize_claims(rows[split]),
                            "rules": rule_ablation(claims, checker, paper)}  # fmt: skip
        if kind != "test":  # the trade-offs are shown where they may be tuned
            summaries[split]["curve"] = threshold_curve(rows[split], CURVE)
            summaries[split]["names_curve"] = claim_names_curve(claims, checker, paper, _names_gates(checker))
    return summaries, rows
