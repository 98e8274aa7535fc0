"""Shared helpers for the benchmarks: a deterministic synthetic corpus, percentiles, machine info, results.

The synthetic corpus recombines the sentences of the 19 bundled abstracts with varied words and numbers,
a per-paper method name and Zipf-distributed pseudo-words (so the vocabulary grows with the corpus like a
real one does). Each abstract is 200-280 cl100k tokens, so it stays one chunk at the default chunk size.
The first 19 records are the real bundled papers, so the dev questions have real answers at every size;
a corpus of N is a prefix of a corpus of M > N.
"""

from __future__ import annotations

import json
import os
import platform
import random
import re
import resource
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEV_QUESTIONS = ROOT / "eval" / "sets" / "icml2025" / "dev.jsonl"
RESULTS = ROOT / "bench" / "results"
BIN = Path(sys.executable).parent
sys.path.insert(0, str(ROOT))

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_WORD = re.compile(r"\b[a-z]{7,}\b")
_NAME = re.compile(r"\b(?:[A-Z][A-Za-z]*[A-Z][A-Za-z0-9-]*|[A-Z][a-z]+-[A-Z][A-Za-z0-9]*)\b")  # Dual-Arch, PaperBench
VENUES = ["ICML", "NeurIPS", "ICLR", "AAAI", "JMLR", "TMLR", "CVPR", "ACL", "KDD", "UAI"]
SYLLABLES = "ka lo mi nu re sa ti vo ze ha pe ri do gu fa ne xo ly qua bri".split()



def cpu_seconds() -> float:
    """CPU seconds of this process and of its finished children (the PDF read-ahead workers)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def pdf_dev_folder() -> Path:
    """The dev PDFs of issue 35 (bench/pdf_dev/MANIFEST.md): $RAG_PDF_DEV, default /work/cache/pdf_dev."""
    return Path(os.environ.get("RAG_PDF_DEV", "/work/cache/pdf_dev"))


PDF_SETS = ("dev", "dev2", "dev3", "heldout")


def pdf_set(name: str) -> tuple[Path, Path]:
    """(folder of the PDFs, folder of MANIFEST.md / truth.json / questions.jsonl) of a PDF set of issue 35.

    "dev" is what the PDF reader was built against; "dev2" (bench/pdf_dev2, PDFs in $RAG_PDF_DEV2, default
    /work/cache/pdf_dev2) and "dev3" (bench/pdf_dev3, $RAG_PDF_DEV3, default /work/cache/pdf_dev3) are further dev
    sets, each written later by someone who had not read the code, to find what the reader still gets wrong; "heldout"
    (bench/pdf_heldout, PDFs in $RAG_PDF_HELDOUT, default /work/cache/pdf_heldout) was written by someone who had not
    read the code, and is only run to report.
    """
    if name == "dev2":
        return Path(os.environ.get("RAG_PDF_DEV2", "/work/cache/pdf_dev2")), ROOT / "bench" / "pdf_dev2"
    if name == "dev3":
        return Path(os.environ.get("RAG_PDF_DEV3", "/work/cache/pdf_dev3")), ROOT / "bench" / "pdf_dev3"
    if name == "heldout":
        return Path(os.environ.get("RAG_PDF_HELDOUT", "/work/cache/pdf_heldout")), ROOT / "bench" / "pdf_heldout"
    return pdf_dev_folder(), ROOT / "bench" / "pdf_dev"


def bundled() -> list[dict]:
    return [json.loads(x) for x in (ROOT / "data" / "icml2025.jsonl").read_text().splitlines() if x.strip()]


def questions(gold_only: bool = False) -> list[dict]:
    rows = [json.loads(x) for x in DEV_QUESTIONS.read_text().splitlines() if x.strip()]
    return [r for r in rows if r.get("gold")] if gold_only else rows


def query_set(n: int = 100) -> list[str]:
    """The dev questions, then keyword-style variations of them until there are n queries."""
    from rag.corpus.lexicon import tokenize

    qs = [r["question"] for r in questions()]
    out = list(qs)
    i = 0
    while len(out) < n:
        out.append(" ".join(tokenize(qs[i % len(qs)])) or qs[i % len(qs)])
        i += 1
    return out[:n]


class _Synth:
    def __init__(self, seed: int) -> None:
        from rag.index.chunking import split_sentences
        from rag.index.tokens import count_tokens

        self.count = count_tokens
        self.rng = random.Random(seed)
        self.papers = bundled()
        self.sents = [split_sentences(p["abstract"]) for p in self.papers]
        self.vocab = sorted({w for p in self.papers for w in _WORD.findall(p["abstract"])})
        self.title_words = [p["title"].split() for p in self.papers]
        names = [a.split() for p in self.papers for a in p.get("authors") or [] if len(a.split()) >= 2]
        self.first = sorted({n[0] for n in names})
        self.last = sorted({n[-1] for n in names})
        self.pseudo = ["".join(self.rng.choices(SYLLABLES, k=self.rng.randint(3, 5))) for _ in range(30000)]

    def _word(self) -> str:
        if self.rng.random() < 0.6:
            return self.rng.choice(self.vocab)
        i = int((self.rng.paretovariate(0.7) - 1) * 200)  # Zipf-like head, uniform beyond the table
        return self.pseudo[i if i < len(self.pseudo) else self.rng.randrange(len(self.pseudo))]

    def _number(self, m: re.Match[str]) -> str:
        s = m.group(0)
        digits = sum(c.isdigit() for c in s)
        n = self.rng.randint(1, 10 ** min(digits, 6) - 1)
        return f"{n:,}" if "," in s else (f"{n}.{self.rng.randint(0, 9)}" if "." in s else str(n))

    def _mutate(self, sentence: str, name: str) -> str:
        sentence = _NUMBER.sub(self._number, sentence)
        # every name becomes the generated paper's own: a synthetic paper that kept "Dual-Arch" and its facts would be
        # a second right answer, and recall of the one real paper would measure which copy ranks first (it did:
        # three modes tied at recall@5 0.566 on 2,000 papers when 30 % of the names were kept)
        sentence = _NAME.sub(lambda m: name, sentence)
        return _WORD.sub(lambda m: self._word() if self.rng.random() < 0.2 else m.group(0), sentence)

    def paper(self, i: int) -> dict:
        rng = self.rng
        name = "".join(rng.choice("ABCDEFGHIKLMNOPRSTUVXZ") for _ in range(rng.randint(3, 6)))
        a, b = rng.sample(self.title_words, 2)
        title = f"{name}: {_NAME.sub(name, ' '.join(a[: len(a) // 2] + b[len(b) // 2 :]))}"
        topics = rng.sample(range(len(self.sents)), 3)
        target = rng.randint(205, 270)
        parts = [self._mutate(self.sents[topics[0]][0], name)]
        used = self.count(parts[0])
        for _ in range(60):
            if used >= target:
                break
            t = topics[0] if rng.random() < 0.5 else rng.choice(topics)
            s = self._mutate(rng.choice(self.sents[t][1:]), name)
            n = self.count(s) + 1
            if used + n <= 280:
                parts.append(s)
                used += n
        authors = [f"{rng.choice(self.first)} {rng.choice(self.last)}" for _ in range(rng.randint(2, 6))]
        year = rng.randint(2015, 2025)
        return {
            "id": f"syn-{i:06d}",
            "title": title,
            "authors": authors,
            "year": year,
            "venue": f"{rng.choice(VENUES)} {year}",
            "url": f"https://example.org/syn/{i}",
            "abstract": " ".join(parts),
        }


def write_corpus(path: Path, n: int, seed: int = 7) -> Path:
    """A JSONL of n papers: the 19 bundled ones, then n-19 synthetic ones (prefix-stable for a seed)."""
    real = bundled()
    synth = _Synth(seed)
    with path.open("w") as f:
        for i in range(n):
            f.write(json.dumps(real[i] if i < len(real) else synth.paper(i)) + "\n")
    return path


def write_prefix(full: Path, path: Path, n: int) -> Path:
    """The first n papers of a corpus file, streamed (a corpus of N is a prefix of any larger one)."""
    with full.open() as src, path.open("w") as dst:
        dst.writelines(line for _, line in zip(range(n), src, strict=False))
    return path


def pct(values: Sequence[float], p: float) -> float:
    values = sorted(values)
    i = (len(values) - 1) * p / 100
    lo, hi = int(i), min(int(i) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (i - lo)


def median(values: Iterable[float]) -> float:
    return statistics.median(list(values))


def dir_size(path: str | Path) -> int:
    return sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file())


def machine() -> dict:
    model = ""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        model = next((x.split(":", 1)[1].strip() for x in out.splitlines() if x.startswith("Model name")), "")
    except OSError:
        pass
    mem = next((x for x in Path("/proc/meminfo").read_text().splitlines() if x.startswith("MemTotal")), "0 0")
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "ram_gib": round(int(mem.split()[1]) / 2**20, 1),
        "python": platform.python_version(),
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "load_avg_at_start": os.getloadavg()[0],
    }


def check_quiet(limit: float = 1.5) -> None:
    load = os.getloadavg()[0]
    if load >= limit:
        print(f"warning: load average {load:.2f} >= {limit}: timings will be noisy", file=sys.stderr)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_http(url: str, timeout: float = 60.0) -> None:
    import urllib.request

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.25)
    raise TimeoutError(f"{url} did not answer within {timeout:.0f}s")


def stop(proc: subprocess.Popen) -> None:
    """SIGTERM, wait up to 10 s, then kill (only the process we started)."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def peak_rss_of(pid: int) -> int:
    """VmHWM of another live process, in bytes (0 when unknown)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def save(name: str, result: dict) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    return path


def table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    cells = [[str(h) for h in headers]] + [[f"{c:.3g}" if isinstance(c, float) else str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = [" | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in cells]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(lines)


def main() -> None:
    """`python bench/common.py --help`; with --write N PATH, write the synthetic corpus (to inspect or reuse)."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", nargs=2, metavar=("N", "PATH"), help="write N synthetic abstracts as JSONL")
    args = parser.parse_args()
    if args.write:
        path = write_corpus(Path(args.write[1]), int(args.write[0]))
        print(f"wrote {args.write[0]} abstracts to {path}")
    else:
        parser.print_help()


if __name__ == "__main__":
    main()
