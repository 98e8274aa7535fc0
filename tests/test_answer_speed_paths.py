"""What makes answers cheap: no Chroma for a small local index, stored sentence vectors, the reused query vector."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from rag.adapters.fakes import HashEmbedder
from rag.factory import build_index, layout_of, open_assistant
from rag.filters import Filters
from rag.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
WELLS = "How many wells are in the Alberta dataset?"


class CountingEmbedder(HashEmbedder):
    def __init__(self) -> None:
        super().__init__(64)
        self.texts: list[str] = []

    def embed_batch(self, texts):  # type: ignore[no-untyped-def]
        self.texts.extend(texts)
        return super().embed_batch(texts)


def test_a_search_of_a_small_local_index_never_imports_chromadb_or_bm25s(bundled_settings: Settings):
    code = (
        "import sys; from rag.settings import load_settings; from rag.factory import open_retriever; "
        f"r = open_retriever(load_settings(home={str(bundled_settings.home)!r}, env={{}})); "
        "hits = r.search('oil wells from satellites', 3); assert hits[0].paper.id == 'icml2025-00'; "
        "assert r.paper('icml2025-03').title.startswith('PaperBench'); "
        "print([m for m in ('chromadb', 'bm25s', 'tqdm') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]"  # bm25s (and the tqdm it imports) only build BM25


def test_an_extractive_answer_embeds_only_the_question_once(settings: Settings):
    emb = CountingEmbedder()
    build_index(settings, embedder=emb)
    assistant = open_assistant(settings.replace(llm="extractive"), embedder=emb)
    emb.texts.clear()
    answer = assistant.ask(WELLS)
    assert answer.citations and emb.texts == [WELLS]  # the sentences' vectors came from the docstore
    summary = assistant.ask("Summarize the continual learning papers")
    assert summary.mode == "summary" and emb.texts == [WELLS, "Summarize the continual learning papers"]


def test_a_docstore_from_before_sentence_vectors_is_filled_in_without_re_embedding_chunks(settings: Settings):
    emb = CountingEmbedder()
    build_index(settings, embedder=emb)
    docs = layout_of(settings).docs_dir
    (docs / "sentence_index.npy").unlink()
    (docs / "sentences.f16").unlink()
    emb.texts.clear()
    report = build_index(settings, embedder=emb)
    assert report.embedded == 0 and emb.texts and all("\n" not in t for t in emb.texts)  # sentences only
    emb.texts.clear()
    open_assistant(settings.replace(llm="extractive"), embedder=emb).ask(WELLS)
    assert emb.texts == [WELLS]


def test_a_filtered_search_opens_the_store_when_it_needs_it(bundled_settings: Settings, tmp_path: Path):
    home = tmp_path / "home"
    shutil.copytree(bundled_settings.index_dir, home / "index")
    assistant = open_assistant(bundled_settings.replace(home=home, llm="extractive"))
    hits = assistant.retriever.search("wells", 5, filters=Filters(year_min=2025))
    assert hits and all(h.paper.year == 2025 for h in hits)
    assert not assistant.retriever.search("wells", 5, filters=Filters(year_min=2030))


def test_a_quick_start_model_gives_the_vectors_of_the_optimised_one(minilm):
    """`rag search` and `rag ask` load MiniLM without onnxruntime's graph optimizations (a faster start, slower
    batches); what they embed must still match what the index was built with."""
    import numpy as np

    from rag.adapters.embedding import MiniLMEmbedder

    texts = ["oil wells from satellite imagery", "a longer sentence about protein structure prediction with diffusion"]
    quick = np.array(MiniLMEmbedder(quick_start=True).embed_batch(texts))
    full = np.array(minilm.embed_batch(texts))  # type: ignore[attr-defined]
    assert quick.shape == (2, 384) and float(np.abs(quick - full).max()) < 1e-4
    assert float(np.abs(quick[0] - quick[1]).max()) > 0.01  # two texts, two vectors
