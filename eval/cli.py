"""`rag eval`: run a question set, optional baselines and judge, write the report, check the gates."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from rag.errors import RagError
from rag.settings import Settings

__all__ = ["cmd_eval"]

KEY_METRICS = ("recall@5", "mrr", "ndcg@10", "citation_validity", "citation_support", "citation_recall",
               "fact_coverage", "hallucination_rate", "abstention_accuracy", "false_abstention_rate",
               "latency_p50", "latency_p95")


def _f(value: Any) -> str:
    return "–" if value is None else (f"{value:.3f}" if isinstance(value, float) else str(value))


def _print_summary(summary: dict[str, Any], report: Path) -> None:
    from eval.report import METRICS

    overall = summary["overall"]
    run = summary["run"]
    errors = summary.get("errors", 0)
    print(f"{overall['n']} questions, backend {run['backend']} / {run['model']}, {run['duration_s']:.1f} s"
          + (f", {errors} failed" if errors else ""))
    width = max(len(METRICS[m]) for m in KEY_METRICS)
    for m in KEY_METRICS:
        print(f"  {METRICS[m]:<{width}}  {_f(overall.get(m))}")
    for mode, block in (summary.get("baselines") or {}).items():
        print(f"  baseline {mode:<8} recall@5 {_f(block.get('recall@5'))}  MRR {_f(block.get('mrr'))}  "
              f"nDCG@10 {_f(block.get('ndcg@10'))}")
    judge = summary.get("judge")
    if judge:
        print(f"  judge {judge.get('model')}: faithfulness {_f(judge.get('faithfulness'))}, "
              f"answer relevance {_f(judge.get('answer_relevance'))} (1-5), {judge.get('n_judged')} judged")
    compare = summary.get("compare")
    if compare:
        print(f"  vs {compare['with']}: {len(compare['better'])} better, {len(compare['worse'])} worse"
              + (f" (worse: {', '.join(compare['worse'][:6])}{', …' if len(compare['worse']) > 6 else ''})"
                 if compare["worse"] else ""))
    failed = summary["gates"]["failed"]
    print("quality gates: all passed" if not failed else f"quality gates: {len(failed)} failed")
    print(f"report: {report}")


def cmd_eval(args: argparse.Namespace, settings: Settings) -> int:
    from eval.gates import check_gates
    from eval.questions import DEFAULT_QUESTIONS, load_questions
    from eval.report import build_summary, load_summary, write_outputs
    from eval.runner import run_eval, run_retrieval_baselines
    from rag.factory import open_assistant
    from rag.progress import ProgressBar

    questions_path = Path(args.questions) if getattr(args, "questions", None) else DEFAULT_QUESTIONS
    questions = load_questions(questions_path)
    k = getattr(args, "k", None)
    if k is not None and not 1 <= k <= settings.retrieval.max_k:
        raise RagError(f"-k must be between 1 and {settings.retrieval.max_k}, got {k}")
    compare_dir = getattr(args, "compare", None)
    before = load_summary(compare_dir) if compare_dir else None  # fail before a long run, not after
    out_dir = Path(args.out)
    if out_dir.exists() and not out_dir.is_dir():
        raise RagError(f"--out {out_dir} exists and is not a directory")
    llm, model = getattr(args, "llm", None), getattr(args, "model", None)

    assistant = open_assistant(settings)
    try:
        backend = assistant.backend_for(llm)
        want_judge = bool(getattr(args, "judge", False))
        judge_chat = None
        if want_judge:
            from eval.judge import judge_model

            judge_chat = judge_model(assistant, model)  # no endpoint: a clear error before the run
        started_at = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        t0 = time.perf_counter()
        with ProgressBar("eval", unit="q") as bar:
            results = run_eval(assistant, questions, llm=llm, model=model, k=k, progress=bar.update)
        duration = time.perf_counter() - t0
        baselines = None
        if getattr(args, "baselines", False):
            with ProgressBar("baselines", unit="search") as bar:
                baselines = run_retrieval_baselines(assistant.retriever, questions, progress=bar.update)
        judge = None
        if judge_chat is not None:
            from eval.judge import run_judge

            with ProgressBar("judge", unit="q") as bar:
                judge = run_judge(assistant, results, chat=judge_chat, progress=bar.update)
    finally:
        assistant.close()

    answered_by: dict[str, int] = {}
    for r in results:
        if r.get("backend"):
            answered_by[r["backend"]] = answered_by.get(r["backend"], 0) + 1
    models = sorted({str(r["model"]) for r in results if r.get("model")})
    run = {
        "questions_file": str(questions_path),
        "n_questions": len(questions),
        "timestamp": started_at,
        "duration_s": duration,
        "backend": backend,
        "model": ", ".join(models) or (model or settings.endpoint.model or backend),
        "answered_by_backend": answered_by,
        "k": k or settings.retrieval.k,
        "settings": settings.public_dict(),
    }
    summary = build_summary(results, run=run, baselines=baselines, judge=judge)
    report = write_outputs(out_dir, results, summary, compare_dir=compare_dir, compare_with=before)
    _print_summary(summary, report)

    failures = check_gates(summary)
    if getattr(args, "check", False) and failures:
        for f in failures:
            print(f"gate failed: {f}", file=sys.stderr)
        return 1
    return 0
