"""What an interrupted `--rebuild` leaves (issue 14 item 8): a `<collection>-rebuild` left by a `rag index
--rebuild` killed with SIGKILL is removed by the next run, or swapped in when it was complete and only the swap
was missing."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from rag.factory import open_store
from rag.settings import load_settings
from tests.reliability_helpers import ROOT, WELLS, cli_env, run_rag, synthetic_papers, write_jsonl


def test_a_half_filled_rebuild_collection_is_removed_by_the_next_run(indexed_cli) -> None:
    settings = load_settings(home=indexed_cli.home, env={})
    orphan = open_store(settings).sibling("papers-rebuild").create("all-MiniLM-L6-v2-int8", 384)
    orphan.upsert(["x:0"], [[1.0] + [0.0] * 383], ["half a rebuild"], [{"paper_id": "x"}])
    code, out, err = indexed_cli("index")
    assert code == 0, err
    assert "warning: removed 'papers-rebuild' (1 chunks), left by a --rebuild that did not finish" in err
    assert not open_store(settings).sibling("papers-rebuild").exists()
    assert "0 embedded, 19 unchanged" in out


def test_a_complete_rebuild_whose_swap_was_cut_short_is_swapped_in(indexed_cli) -> None:
    """Killed between dropping the live collection and renaming the rebuild: the new index is complete but under
    the wrong name; searches still answer from this machine's checked copies of the same index; the next run
    finishes the swap instead of embedding everything."""
    settings = load_settings(home=indexed_cli.home, env={})
    open_store(settings).open().rename("papers-rebuild")
    code, out, err = indexed_cli("search", WELLS, "-k", "1")
    assert code == 0 and "icml2025-00" in out, err
    code, out, err = indexed_cli("index")
    assert code == 0, err
    assert "finished an interrupted --rebuild: its complete collection 'papers-rebuild' is now 'papers'" in err
    assert "0 embedded, 19 unchanged" in out
    assert indexed_cli.ask_json(WELLS)["citations"][0]["paper_id"] == "icml2025-00"


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_rebuild_killed_with_sigkill_leaves_nothing_behind_after_the_next_run(tmp_path: Path) -> None:
    home = tmp_path / "home"
    settings = load_settings(home=home, env={})
    assert run_rag(["index"], home).returncode == 0
    corpus = write_jsonl(tmp_path / "papers.jsonl", synthetic_papers(60, sentences=4))
    env = cli_env(home, {"RAG_EMBED_BATCH_SIZE": "4", "RAG_PROGRESS": "1"})
    proc = subprocess.Popen([sys.executable, "-m", "rag.cli", "index", str(corpus), "--rebuild"], cwd=ROOT, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    assert proc.stderr is not None
    seen = b""
    while not re.search(rb"embedding:.*?\b([1-9]\d*)/60", seen):  # some papers are written to the rebuild
        chunk = proc.stderr.read1(4096)  # type: ignore[attr-defined]
        assert chunk, seen[-2000:]
        seen += chunk
    proc.send_signal(signal.SIGKILL)
    proc.wait(60)
    assert open_store(settings).sibling("papers-rebuild").exists()  # the orphan the issue found
    assert run_rag(["search", WELLS, "-k", "1"], home).returncode == 0  # the old index still answers
    rerun = run_rag(["index", str(corpus)], home, timeout=500)
    assert rerun.returncode == 0, rerun.stderr
    assert "left by a --rebuild that did not finish" in rerun.stderr
    assert not open_store(settings).sibling("papers-rebuild").exists()
    assert json.loads(run_rag(["search", "coral reef bleaching", "--json"], home).stdout)["hits"]
