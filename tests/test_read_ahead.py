"""A folder's PDFs read ahead in worker processes (rag.corpus.read_ahead): the same papers in the same order as
reading them in-process, a worker that dies costs only its file, and files of other formats stay in-process."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag.corpus import read_papers
from rag.corpus.formats import PDF, Format
from rag.corpus.pdf import read_pdf
from rag.corpus.read_ahead import CRASHED, ReadAhead, worker_count
from rag.corpus.source_file import ReadOptions, Source
from rag.corpus.text_io import Record
from tests.pdf_fixtures import broken, full_paper, one_column, scanned, two_column

pytest.importorskip("pypdf")


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "library"
    folder.mkdir()
    one_column(folder / "a_glacier.pdf")
    two_column(folder / "b_bus.pdf")
    full_paper(folder / "c_full.pdf")
    scanned(folder / "d_scan.pdf")
    broken(folder / "e_broken.pdf")
    (folder / "f_more.jsonl").write_text(json.dumps({"id": "x1", "title": "Extra", "abstract": "An abstract."}) + "\n")
    return folder


def _read(folder: Path, workers: int, full_text: bool = True) -> tuple[list[dict[str, object]], list[str]]:
    warned: list[str] = []
    papers = read_papers(folder, on_error="skip", warn=warned.append, full_text=full_text, workers=workers)
    return [p.__dict__ for p in papers], warned


@pytest.mark.parametrize("full_text", [True, False])
def test_workers_give_the_same_papers_in_the_same_order(tmp_path: Path, full_text: bool):
    folder = _folder(tmp_path)
    alone, alone_warned = _read(folder, 1, full_text)
    ahead, ahead_warned = _read(folder, 2, full_text)
    assert [p["id"] for p in ahead] == ["a_glacier", "b_bus", "c_full", "x1"]
    assert ahead == alone
    assert ahead_warned == alone_warned and len(ahead_warned) == 2  # the scan and the broken file, named alike


def crash_on_b(source: Source) -> Iterator[Record]:
    """A PDF reader that dies like a crash in native code on any file whose name starts with "b"."""
    if source.path.name.startswith("b"):
        os._exit(3)
    yield from read_pdf(source)


def test_a_worker_that_dies_costs_only_its_file(tmp_path: Path):
    folder = _folder(tmp_path)
    fmt = Format("PDF", crash_on_b)
    plan = [(p, fmt) for p in sorted(folder.glob("*.pdf"))]
    ahead = ReadAhead(plan, ReadOptions(), 2)
    try:
        records = {p.name: ahead.records(p) for p, _ in plan}
    finally:
        ahead.close()
    assert records["b_bus.pdf"] == [(0, CRASHED)]
    good = records["a_glacier.pdf"][0][1]
    assert isinstance(good, dict) and good["title"] and isinstance(records["c_full.pdf"][0][1], dict)
    with Source(folder / "c_full.pdf") as source:  # the files behind the crash were read again, and in full
        assert records["c_full.pdf"] == list(read_pdf(source))


def test_worker_count_and_what_goes_to_the_workers(tmp_path: Path):
    assert worker_count(4, 3) == 3 and worker_count(2, 10) == 2 and worker_count(1, 10) == 1
    assert worker_count(0, 10) >= 1  # one per core
    ahead = ReadAhead([(tmp_path / "x.pdf", PDF)], ReadOptions(), 4)
    assert not ahead.active  # one PDF: read in-process
    text = Format("JSON Lines", read_pdf)
    two = ReadAhead([(tmp_path / "x.pdf", PDF), (tmp_path / "y.pdf", PDF)], ReadOptions(), 4)
    assert two.active and two.handles(PDF) and not two.handles(text)
    ahead.close()
    two.close()


def test_a_missing_pdf_raises_the_same_one_line_error_with_workers(tmp_path: Path):
    folder = _folder(tmp_path)
    plan = [(p, PDF) for p in sorted(folder.glob("*.pdf"))]
    (folder / "b_bus.pdf").unlink()  # gone between listing the folder and reading it
    ahead = ReadAhead(plan, ReadOptions(), 2)
    try:
        ahead.records(plan[0][0])
        with pytest.raises(FileNotFoundError):
            ahead.records(plan[1][0])
        assert isinstance(ahead.records(plan[2][0])[0][1], dict)
    finally:
        ahead.close()


def test_a_script_without_a_main_guard_reads_its_pdfs_in_process(tmp_path: Path):
    """Spawned workers re-run the main script's top level: an unguarded script that indexed a folder would index
    again in every worker. Such a script gets no workers (and the same papers); a guarded one gets them."""
    import subprocess
    import sys

    folder = _folder(tmp_path)
    body = ("from rag.corpus import read_papers\nfrom rag.corpus.read_ahead import worker_count\n"
            f"print(worker_count(2, 3), len(read_papers({str(folder)!r}, on_error='skip', workers=2)))\n")  # fmt: skip
    unguarded, guarded = tmp_path / "unguarded.py", tmp_path / "guarded.py"
    unguarded.write_text(body)
    guarded.write_text("def main():\n" + "".join(f"    {line}\n" for line in body.splitlines())
                       + 'if __name__ == "__main__":\n    main()\n')  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    run = lambda script: subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,  # noqa: E731
                                        timeout=120, check=True).stdout.split()  # fmt: skip
    assert run(unguarded) == ["1", "4"]
    assert run(guarded) == ["2", "4"]
