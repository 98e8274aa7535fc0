"""Issue 14 item 10 and the unreadable-entry half of item 5: CSV and JSON arrays are streamed (memory flat in
the file size, file:line messages kept), progress is reported from the first pass as plain lines when stderr is
no terminal, pipes and devices are refused, and directory entries that cannot be read are reported."""

from __future__ import annotations

import io
import json
import os
import re
import tracemalloc
from pathlib import Path

import pytest

from rag.cli.progress import ProgressBar
from rag.corpus import iter_papers, read_papers
from rag.errors import CorpusError

ABSTRACT = "We study the flux of a quantity in a region and report the error of the model. " * 3
LONG = ABSTRACT * 8  # rows of ~2 KB: the file's size is its text, not its ids


def _csv(path: Path, rows: int) -> Path:
    with path.open("w", encoding="utf-8") as f:
        f.write("id,title,abstract,year\n")
        for i in range(rows):
            f.write(f'p{i},"Title {i}","{LONG} Row {i}.",2020\n')
    return path


def _json_array(path: Path, rows: int) -> Path:
    with path.open("w", encoding="utf-8") as f:
        f.write("[\n")
        for i in range(rows):
            f.write(("," if i else "") + json.dumps({"id": f"p{i}", "abstract": f"{LONG} Row {i}."}) + "\n")
        f.write("]\n")
    return path


@pytest.mark.parametrize("make", [_csv, _json_array], ids=["csv", "json-array"])
def test_peak_memory_is_far_below_the_file_size(tmp_path: Path, make) -> None:
    """Reading everything whole (the old readers) held the text and every row: more than the file's size."""
    path = make(tmp_path / ("big.csv" if make is _csv else "big.json"), 5_000)
    size = path.stat().st_size
    assert size > 9_000_000
    tracemalloc.start()
    try:
        count = sum(1 for _ in iter_papers([path]))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 5_000
    assert peak < size / 4, f"peak {peak:,} bytes for a {size:,}-byte file"


def test_json_array_errors_keep_their_line_across_blocks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("rag.corpus.source_file.BLOCK_BYTES", 64)  # every value spans several blocks
    path = tmp_path / "a.json"
    records = [{"id": f"p{i}", "abstract": f"Abstract number {i} is long enough."} for i in range(40)]
    good = ",\n".join(json.dumps(r) for r in records)
    path.write_text("[\n" + good + ',\n{"id": "bad", "abstract": }\n]\n')
    with pytest.raises(CorpusError, match=r"a\.json:42: invalid JSON \(Expecting value\)"):
        read_papers([path])
    path.write_text("[\n" + good + "\n]\n")
    papers = read_papers([path])
    assert [p.id for p in papers] == [f"p{i}" for i in range(40)]
    path.write_text("[\n" + good + ",\n  12345678901234567890\n]\n")  # a number cut by a block boundary
    with pytest.raises(CorpusError, match=r"a\.json:42: expected a JSON object, found a number"):
        read_papers([path])


def test_csv_first_papers_arrive_before_the_end_is_read(tmp_path: Path) -> None:
    path = _csv(tmp_path / "s.csv", 2000)  # 4 MB
    with path.open("a") as f:
        f.write('late,"T","unclosed quote\n')
    stream = iter_papers([path])
    assert next(stream).id == "p0"  # streamed: the malformed end is not reached yet
    with pytest.raises(CorpusError, match=r"s\.csv:2002: malformed CSV"):
        list(stream)


def test_progress_is_reported_by_bytes_read(tmp_path: Path) -> None:
    path = _csv(tmp_path / "p.csv", 5000)
    seen: list[tuple[int, int, int]] = []
    files: set[str] = set()

    def progress(done: int, total: int, papers: int, current: str) -> None:
        seen.append((done, total, papers))
        files.add(current)

    list(iter_papers([path], progress=progress))
    size = path.stat().st_size
    assert len(seen) > 10 and all(total == size for _, total, _ in seen)
    assert [d for d, _, _ in seen] == sorted(d for d, _, _ in seen) and seen[-1][:2] == (size, size)
    assert seen[-1][2] == 5000 and any("p.csv" in str(f) for f in files)  # the file being read is named


def test_plain_progress_lines_when_stderr_is_not_a_terminal() -> None:
    out = io.StringIO()
    bar = ProgressBar("reading", unit="B", every_s=0.0, stream=out)
    assert not bar.bar  # StringIO is no terminal
    bar.note("1,200 papers")
    bar.update(250_000_000, 1_000_000_000)
    bar.update(500_000_000, 1_000_000_000)
    bar.update(1_000_000_000, 1_000_000_000)  # done: the report line follows, not a progress line
    assert out.getvalue().splitlines() == [
        "reading: 250.0 MB of 1.0 GB (25%), 1,200 papers",
        "reading: 500.0 MB of 1.0 GB (50%), 1,200 papers",
    ]
    quiet = io.StringIO()
    slow = ProgressBar("embedding", unit="paper", every_s=3600, stream=quiet)
    slow.update(5, 10)
    assert quiet.getvalue() == ""  # at most one line per interval


def test_rag_index_prints_reading_progress_lines(rag_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("rag.cli.progress.PLAIN_EVERY_S", 0.0)  # a line at every update instead of every 10 s
    path = _csv(tmp_path / "c.csv", 600)
    code, out, err = rag_cli("index", str(path), "--where", "id=p7")  # one paper to embed: the test stays fast
    assert code == 0, err
    reading = [line for line in err.splitlines() if line.startswith("reading: ")]
    line = r"reading: [\d.]+ k?B of 1\.2 MB \(\d+%\), \d+ papers, file 1/1 c\.csv"  # the file being read is named
    assert reading and all(re.fullmatch(line, r) for r in reading), reading
    assert "\r" not in err and out.startswith("indexed 1 papers")  # plain lines, no bar


def test_fifo_given_as_a_source_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(CorpusError, match=r"pipe\.jsonl: a FIFO \(named pipe\), not a file; rag reads every corpus"):
        read_papers([fifo])  # opening it would block until a writer came


def test_device_given_as_a_source_is_refused() -> None:
    with pytest.raises(CorpusError, match=r"/dev/null: a character device, not a file"):
        read_papers(["/dev/null"])


def _dir_with_problems(tmp_path: Path) -> Path:
    d = tmp_path / "lib"
    d.mkdir()
    (d / "good.jsonl").write_text(json.dumps({"id": "good", "abstract": "A good abstract."}) + "\n")
    (d / "gone.jsonl").symlink_to(tmp_path / "deleted.jsonl")
    os.mkfifo(d / "pipe.csv")
    return d


def test_broken_links_and_pipes_in_a_directory_are_reported_not_passed_over(tmp_path: Path) -> None:
    d = _dir_with_problems(tmp_path)
    with pytest.raises(CorpusError) as info:
        read_papers([d])
    assert str(info.value) == f"{d / 'gone.jsonl'}: a broken symbolic link (to {tmp_path / 'deleted.jsonl'})"
    warnings: list[str] = []
    papers = read_papers([d], on_error="skip", warn=warnings.append)
    assert [p.id for p in papers] == ["good"]
    assert warnings == [
        f"{d / 'gone.jsonl'}: a broken symbolic link (to {tmp_path / 'deleted.jsonl'})",
        f"{d / 'pipe.csv'}: a FIFO (named pipe), not a file; rag reads every corpus file twice, so save it to a "
        "file first",
    ]


def test_unreadable_file_and_unlistable_directory_are_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    d = tmp_path / "lib"
    (d / "private").mkdir(parents=True)
    (d / "good.jsonl").write_text(json.dumps({"id": "good", "abstract": "A good abstract."}) + "\n")
    (d / "secret.jsonl").write_text(json.dumps({"id": "secret", "abstract": "Hidden."}) + "\n")
    (d / "private" / "x.jsonl").write_text(json.dumps({"id": "x", "abstract": "Hidden."}) + "\n")
    if os.geteuid() == 0:  # root reads everything: make the kernel's answer the one a user would get
        real_access, real_scandir = os.access, os.scandir
        monkeypatch.setattr(os, "access", lambda p, m: not str(p).endswith("secret.jsonl") and real_access(p, m))

        def scandir(path: object = "."):
            if str(path).endswith("private"):
                raise PermissionError(13, "Permission denied", str(path))
            return real_scandir(path)  # type: ignore[arg-type]

        monkeypatch.setattr(os, "scandir", scandir)
    else:
        (d / "secret.jsonl").chmod(0)
        (d / "private").chmod(0)
    try:
        warnings: list[str] = []
        papers = read_papers([d], on_error="skip", warn=warnings.append)
        assert [p.id for p in papers] == ["good"]
        assert warnings == [f"{d / 'private'}: cannot list this directory (Permission denied)",
                            f"{d / 'secret.jsonl'}: cannot read (permission denied)"]  # fmt: skip
        with pytest.raises(CorpusError, match="cannot list this directory"):
            read_papers([d])
    finally:
        (d / "private").chmod(0o755)
