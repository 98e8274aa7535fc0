"""BM25's word recipe: differently written forms of one word meet, and an index built with an older recipe is
rebuilt from the docstore instead of being searched with mismatched words."""

import json
import logging
from pathlib import Path

import pytest

from rag.index.bm25_terms import terms, whole_terms
from rag.index.lexical import RECIPE, LexicalIndex


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("grandmultiparous", "grandmultiparity"),  # the stemmer
        ("HIV1/2", "HIV-1/2"),  # hyphens and letter-digit runs
        ("HIV-1", "hiv 1"),
        ("IL6", "IL-6"),
        ("TNF-α", "TNF-alpha"),  # Greek letters spelled out
        ("TNFα", "tnf alpha"),
        ("β-cells", "beta cell"),
        ("Randomised trials", "randomized trial"),  # British and American spellings
        ("tumours", "tumor"),
        ("213,000 wells", "213000 well"),
        ("ﬁnding", "finding"),  # compatibility forms (a ligature)
        ("CAPITALS", "capitals"),
    ],
)
def test_two_spellings_of_one_word_share_their_terms(one: str, other: str):
    assert set(terms(other)) <= set(terms(one)) or set(terms(one)) <= set(terms(other))
    assert set(terms(one)) & set(terms(other))


def test_a_compound_keeps_its_parts_and_itself_and_stopwords_go():
    assert terms("The HIV-1/2 test") == ["hiv", "1", "2", "hiv12", "test"]
    assert terms("state-of-the-art") == ["state", "art", "stateoftheart"]
    assert whole_terms("PaperBench HIV-1 the") == ["paperbench", "hiv1"]


def test_a_query_finds_the_abstract_however_it_spells_the_word():
    ids = ["a:0", "b:0", "c:0"]
    texts = [
        "Outcomes of grandmultiparity in rural hospitals",
        "HIV-1/2 antibody testing in blood donors",
        "TNF-α levels after randomised treatment of tumours",
    ]
    index = LexicalIndex.build(ids, texts, fingerprint="f")
    assert index.search("grandmultiparous women", 1)[0][0] == "a:0"
    assert index.search("HIV1/2", 1)[0][0] == "b:0"
    assert index.search("TNF alpha in randomized tumor treatment", 1)[0][0] == "c:0"


def test_the_recipe_is_recorded_with_the_index_and_an_old_one_is_recognised(tmp_path):
    index = LexicalIndex.build(["a:0"], ["alpha beta"], fingerprint="f")
    index.save(tmp_path / "bm25")
    loaded = LexicalIndex.load(tmp_path / "bm25")
    assert loaded is not None and loaded.recipe == RECIPE
    meta = json.loads((tmp_path / "bm25" / "ids.json").read_text())
    del meta["recipe"]  # as written before the recipe was recorded
    (tmp_path / "bm25" / "ids.json").write_text(json.dumps(meta))
    old = LexicalIndex.load(tmp_path / "bm25")
    assert old is not None and old.recipe == "terms-1"


def _write_old_recipe_index(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """BM25 as the code before the recipe existed wrote it: lower-case words with plurals folded ("terms-1"),
    bm25s's default k1/b, no recipe key."""
    import re

    from rag.corpus.lexicon import STOPWORDS
    from rag.index import lexical

    def terms_1(text: str) -> list[str]:
        words = re.findall(r"[^\W_]+", re.sub(r"(?<=\d),(?=\d{3})", "", text.lower()))
        return [re.sub(r"(?<=\w{3})s$", "", w) if not w.endswith(("ss", "us", "is")) else w
                for w in words if w not in STOPWORDS]  # fmt: skip

    from rag.index.docstore import DocStore
    from rag.index.integrity import write_manifest
    from rag.index.records import lexical_text

    docs = DocStore.load(home / "index" / "docs-papers")
    assert docs is not None
    with monkeypatch.context() as m:
        m.setattr(lexical, "terms", terms_1)
        m.setattr(lexical, "K1", 1.5)
        m.setattr(lexical, "B", 0.75)
        builder = lexical.LexicalBuilder()
        for cid in docs.ids:
            chunk = docs.get(cid)
            assert chunk is not None
            builder.add(cid, lexical_text(chunk.metadata, chunk.text))
        old = builder.finish(docs.fingerprint)
    directory = home / "index" / "bm25-papers"
    old.save(directory)
    meta = json.loads((directory / "ids.json").read_text())
    del meta["recipe"]
    (directory / "ids.json").write_text(json.dumps(meta))
    write_manifest(directory, docs.fingerprint)


def test_an_index_built_with_the_old_words_is_rebuilt_from_the_docstore_not_misread(
    indexed_cli, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
):
    """ "replicating" is not a word of any abstract; PaperBench's says "replicate": only the stemmed index finds it."""
    from rag.index.docstore import DocStore

    _write_old_recipe_index(indexed_cli.home, monkeypatch)
    directory = indexed_cli.home / "index" / "bm25-papers"
    old = LexicalIndex.load(directory)
    assert old is not None and old.recipe == "terms-1" and old.search("replicating", 1) == []
    sentences_before = (indexed_cli.home / "index" / "docs-papers" / "sentences.f16").read_bytes()
    caplog.set_level(logging.WARNING)
    code, out, err = indexed_cli("search", "replicating agents", "--mode", "lexical", "--json", "-k", "1")
    assert code == 0 and "Traceback" not in err
    assert json.loads(out)["hits"][0]["paper_id"] == "icml2025-03"
    notes = [r.getMessage() for r in caplog.records if "BM25" in r.getMessage()]
    assert len(notes) == 1 and "'terms-1'" in notes[0] and "nothing re-embedded" in notes[0], notes
    rebuilt = LexicalIndex.load(directory)
    assert rebuilt is not None and rebuilt.recipe == RECIPE  # saved: the next start does not rebuild again
    docs = DocStore.load(indexed_cli.home / "index" / "docs-papers")
    assert docs is not None and docs.has_sentence_vectors  # the docstore was left alone
    assert (indexed_cli.home / "index" / "docs-papers" / "sentences.f16").read_bytes() == sentences_before
    caplog.clear()
    code, out, _ = indexed_cli("search", "replicating agents", "--mode", "lexical", "--json", "-k", "1")
    assert code == 0 and json.loads(out)["hits"][0]["paper_id"] == "icml2025-03"
    assert not [r for r in caplog.records if "BM25" in r.getMessage()]


def test_while_rag_index_holds_the_lock_the_rebuilt_bm25_is_used_from_memory_and_not_saved(
    indexed_cli, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
):
    from rag.index.lock import FileLock

    _write_old_recipe_index(indexed_cli.home, monkeypatch)
    lock = FileLock(indexed_cli.home / "index" / "writer.lock")
    lock.acquire(0.0, None, "papers")  # as a running `rag index` does
    try:
        caplog.set_level(logging.WARNING)
        code, out, _ = indexed_cli("search", "replicating agents", "--mode", "lexical", "--json", "-k", "1")
    finally:
        lock.release()
    assert code == 0 and json.loads(out)["hits"][0]["paper_id"] == "icml2025-03"
    notes = [r.getMessage() for r in caplog.records if "BM25" in r.getMessage()]
    assert len(notes) == 1 and "in memory" in notes[0], notes
    on_disk = LexicalIndex.load(indexed_cli.home / "index" / "bm25-papers")
    assert on_disk is not None and on_disk.recipe == "terms-1"  # that run writes its own; nothing half-saved here


# The lexicon's words as BM25 terms-2 indexes them: its stopwords and the stems of a fixed word sample. Changing
# rag.corpus.lexicon changes what BM25 indexed: bump TERMS_VERSION (old indexes are then rebuilt) and update this.
LEXICON_FINGERPRINT = {"terms-2": "514e62d05bda3127"}
_SAMPLE = ("studies studied randomised tumours grandmultiparous learnability embedded reconstruction increases "
           "phds gpus analyses modelling behaviour datasets lower-case").split()  # fmt: skip


def test_the_lexicon_bm25_indexed_with_is_the_one_its_version_names():
    import hashlib

    from rag.corpus import lexicon
    from rag.index.bm25_terms import TERMS_VERSION

    words = sorted(lexicon.STOPWORDS) + [lexicon.stem(w) for w in _SAMPLE]
    digest = hashlib.sha256(" ".join(words).encode()).hexdigest()[:16]
    assert LEXICON_FINGERPRINT.get(TERMS_VERSION) == digest, (
        f"rag.corpus.lexicon changed what BM25 indexes (fingerprint {digest}): bump TERMS_VERSION and pin it here"
    )
