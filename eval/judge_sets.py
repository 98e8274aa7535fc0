"""The two dev sets of the judge comparison (eval.judge_compare) beyond SciFact and the claims benchmark: the
recorded strong-model answers' dev files, sentence by sentence against the papers each sentence cites, and
PubMedQA as the judge's own generated pairs (train.judge.generate, the same seed).

PubMedQA's abstracts are the judge's training material, split by paper on sha256(id): its frozen *test* papers
were never trained on, so they are the fair PubMedQA figure; a slice of its *train* papers (as many papers) is
reported beside them, plainly as in-training, to show how far having seen a paper flatters the judge.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from eval.recorded import PLACEHOLDER, load_recorded
from eval.suites import RECORDED
from rag.types import Hit, Paper

RECORDED_DEV = ("icml2025-dev.jsonl", "icml2025-retired.jsonl")  # dev recorded answers (never *heldout*)
Items = list[tuple[str, list[Hit], dict[str, Any]]]  # (sentence, evidence hits, the row's gold fields)


def hit(paper: Paper) -> Hit:
    return Hit(paper, f"{paper.id}:0", paper.abstract, 1.0, 1.0)


def recorded_items(paper: Callable[[str], Paper | None], files: Sequence[str] = RECORDED_DEV) -> Items:
    """Each faithful or planted sentence of the dev recorded answers that cites a paper, its placeholders
    removed, against the papers it cites. Refusals and sentences citing nothing are not support claims."""
    out: Items = []
    for file in files:
        for answer in load_recorded(RECORDED / file):
            for s in answer.sentences:
                cites = PLACEHOLDER.findall(s.text)
                hits = [hit(p) for pid in dict.fromkeys(cites) if (p := paper(pid)) is not None]
                if s.label == "refusal" or not hits:
                    continue
                text = " ".join(PLACEHOLDER.sub("", s.text).split()).replace(" .", ".")
                out.append((text, hits, {"set": file, "gold": s.label, "kind": s.kind}))
    return out


def pubmedqa_items(split: str, seed: int | None = None) -> Items:
    """The judge's generated PubMedQA pairs of one split's papers, each claim against its pair's evidence text.
    "test": the frozen papers, never trained on; "train": as many papers, the first by id, their pairs as training
    generated them (the shipped model saw a shuffled 12,000 of the 16,452 train pairs). OSError or ValueError when
    the sources are not there or not the manifest's."""
    from train.judge import generate, sources

    corpus, findings = sources.pubmedqa()
    seed = int(sources.manifest()["seed"]) if seed is None else seed
    papers = [p for p in corpus if generate.split_of(p["id"]) == split]  # neighbours are chosen within the split
    wanted = sorted(p["id"] for p in papers)[: sum(generate.split_of(p["id"]) == "test" for p in corpus)]
    pairs = [p for p in generate.split_pairs(papers, findings, seed) if p["paper"] in set(wanted)]
    return [(p["claim"], [hit(Paper(id=p["paper"], title="", abstract=p["evidence"]))],
             {"gold": p["label"], "kind": p["kind"]}) for p in pairs]  # fmt: skip
