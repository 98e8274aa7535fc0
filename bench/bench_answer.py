"""Answer latency per backend: time to the first streamed token and to the full answer.

    .venv/bin/python bench/bench_answer.py [--llm-questions 20] [--max-tokens 128] [--skip-llm]

On the bundled corpus (index built with MiniLM in a temp RAG_HOME), through Assistant.ask_stream:
  extractive  open_assistant(llm="extractive"), every dev question;
  local       open_assistant(llm="local"): rag starts the packaged SmolLM2-135M llama.cpp server itself;
  openai      the OpenAI-compatible path against a llama.cpp server started here (same GGUF, n_ctx 4096,
              2 threads, alias "local"), openai_base_url=http://127.0.0.1:PORT/v1, model="local".
The LLM backends answer the same spread-out subset of --llm-questions questions. First token = ask_stream
start -> first DeltaEvent; full = -> AnswerEvent (verification included). Start-up (index open, model/server
start, first answer) is timed separately. Medians are also given over the questions where the LLM actually
streamed (more than one delta; abstentions are decided before any model call and come as one delta).
Writes bench/results/answer.json.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common


def _time_stream(assistant, question: str, llm: str) -> dict:
    from rag.types import AnswerEvent, DeltaEvent

    t = time.perf_counter()
    first = None
    answer = None
    deltas = 0
    for event in assistant.ask_stream(question, llm=llm):
        if isinstance(event, DeltaEvent):
            deltas += 1
            first = time.perf_counter() - t if first is None else first
        elif isinstance(event, AnswerEvent):
            answer = event.answer
    full = time.perf_counter() - t
    assert answer is not None
    return {
        "first_token_s": first if first is not None else full,
        "full_s": full,
        "generated": llm != "extractive" and (deltas > 1 or answer.usage.completion_tokens > 0),
        "final_backend": answer.backend,
        "abstained": answer.abstained,
    }


def run_backend(name: str, settings, questions: list[str], llm: str) -> dict:
    from rag.factory import open_assistant

    t = time.perf_counter()
    assistant = open_assistant(settings)
    opened = time.perf_counter() - t
    try:
        warm = _time_stream(assistant, questions[0], llm)  # loads models / starts the server
        startup = time.perf_counter() - t
        per_q = [_time_stream(assistant, q, llm) for q in questions]
    finally:
        assistant.close()
    gen = [r for r in per_q if r["generated"]]
    out = {
        "backend": name,
        "questions": len(per_q),
        "open_s": opened,
        "startup_s": startup,
        "first_answer_s": warm["full_s"],
        "first_token_p50_s": common.median(r["first_token_s"] for r in per_q),
        "full_p50_s": common.median(r["full_s"] for r in per_q),
        "full_p95_s": common.pct([r["full_s"] for r in per_q], 95),
        "generated": len(gen),
        "fell_back_to_extractive": sum(r["final_backend"] == "extractive" for r in gen),
        "abstained": sum(r["abstained"] for r in per_q),
    }
    if gen and llm != "extractive":
        out["first_token_p50_generated_s"] = common.median(r["first_token_s"] for r in gen)
        out["full_p50_generated_s"] = common.median(r["full_s"] for r in gen)
    print(f"  {name}: full p50 {out['full_p50_s']:.3f}s over {len(per_q)} questions", file=sys.stderr)
    return out


def _llama_server(port: int, log: Path) -> subprocess.Popen:
    from rag.adapters.llamacpp import packaged_model_path

    cmd = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(packaged_model_path()),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "4096",
        "--n_threads",
        "2",
        "--model_alias",
        "local",
    ]
    proc = subprocess.Popen(cmd, stdout=log.open("w"), stderr=subprocess.STDOUT)
    try:
        common.wait_http(f"http://127.0.0.1:{port}/v1/models", timeout=120)
    except TimeoutError:
        common.stop(proc)
        raise
    return proc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--llm-questions", type=int, default=20, help="questions for the LLM backends")
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--skip-llm", action="store_true", help="extractive only")
    args = parser.parse_args()
    common.check_quiet()

    from rag.factory import build_index
    from rag.settings import load_settings

    rows = common.questions()
    allq = [r["question"] for r in rows]
    step = max(1, len(allq) // args.llm_questions)
    subset = allq[::step][: args.llm_questions]
    result: dict = {"machine": common.machine(), "max_tokens": args.max_tokens, "subset": subset}
    backends = []
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(env={}, home=tmp, llm="extractive", max_tokens=args.max_tokens)
        build_index(settings)
        backends.append(run_backend("extractive (all dev questions)", settings, allq, "extractive"))
        backends.append(run_backend("extractive (LLM subset)", settings, subset, "extractive"))
        if not args.skip_llm:
            local = settings.replace(llm="local")
            backends.append(run_backend("local (rag-managed llama.cpp)", local, subset, "local"))
            port = common.free_port()
            t = time.perf_counter()
            server = _llama_server(port, Path(tmp) / "llama.log")
            result["own_llama_server_ready_s"] = time.perf_counter() - t
            try:
                openai_settings = settings.replace(
                    llm="openai", openai_base_url=f"http://127.0.0.1:{port}/v1", model="local"
                )
                backends.append(run_backend("openai -> llama.cpp server", openai_settings, subset, "openai"))
            finally:
                common.stop(server)
    result["backends"] = backends
    ext = backends[0]
    result["goals_met"] = {"extractive_full_p50<=0.5s": ext["full_p50_s"] <= 0.5}
    common.save("answer", result)
    cols = [
        "backend",
        "questions",
        "startup_s",
        "first_token_p50_s",
        "full_p50_s",
        "full_p95_s",
        "generated",
        "fell_back_to_extractive",
        "abstained",
    ]
    print(common.table(cols, [[b.get(c, "") for c in cols] for b in backends]))
    for b in backends:
        if "full_p50_generated_s" in b:
            print(
                f"{b['backend']}: over the {b['generated']} generated answers, first token p50 "
                f"{b['first_token_p50_generated_s']:.3f}s, full p50 {b['full_p50_generated_s']:.3f}s"
            )
    print(f"\ngoals met: {result['goals_met']}")


if __name__ == "__main__":
    main()
