from rag.corpus.lexicon import tokenize
from rag.index.bm25_terms import terms
from rag.index.lexical import LexicalIndex


def test_tokenize_folds_case_plurals_and_thousands_separators():
    assert tokenize("The Wells of Alberta: 213,000 wells!") == ["well", "alberta", "213000", "well"]


def test_search_ranks_matching_document_first_and_skips_zero_scores(tmp_path):
    ids = ["a:0", "b:0", "c:0"]
    texts = ["satellite imagery of oil wells", "graph autoencoder communities", "continual learning forgetting"]
    index = LexicalIndex.build(ids, texts, fingerprint="f1")
    assert index.search("oil wells", 3) == [("a:0", index.search("oil wells", 3)[0][1])]
    assert index.search("nothing matches here zzz", 3) == []


def test_save_and_load_round_trip_is_atomic(tmp_path):
    index = LexicalIndex.build(["a:0", "b:0"], ["alpha beta", "gamma delta"], fingerprint="fp")
    target = tmp_path / "bm25"
    index.save(target)
    index.save(target)  # overwrite in place
    loaded = LexicalIndex.load(target)
    assert loaded is not None and loaded.fingerprint == "fp" and loaded.ids == ["a:0", "b:0"]
    assert loaded.search("gamma", 2)[0][0] == "b:0"
    assert not (tmp_path / "bm25.tmp").exists() and not (tmp_path / "bm25.old").exists()


def test_load_of_missing_or_corrupt_index_returns_none(tmp_path):
    assert LexicalIndex.load(tmp_path / "nope") is None
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "ids.json").write_text("{not json")
    assert LexicalIndex.load(tmp_path / "bad") is None


def _corpus() -> tuple[list[str], list[str]]:
    words = "graph neural network wells satellite imagery protein folding language model diffusion policy".split()
    texts = [" ".join(words[(i * 7 + j * 3) % len(words)] for j in range(5 + i % 9)) for i in range(60)]
    return [f"p{i}:0" for i in range(60)], texts


def test_scores_match_bm25s_own_scoring_of_the_same_files(tmp_path):
    """The index is read with numpy alone; bm25s, which wrote the weights, must score the files the same way (and an
    index saved by bm25s itself before this reader existed is the same file set)."""
    import bm25s
    import numpy as np

    ids, texts = _corpus()
    LexicalIndex.build(ids, texts, fingerprint="fp").save(tmp_path / "bm25")
    ours = LexicalIndex.load(tmp_path / "bm25")
    theirs = bm25s.BM25.load(str(tmp_path / "bm25"), mmap=True)
    assert ours is not None
    for query in ["wells satellite", "graph graph model", "protein folding diffusion policy", "language"]:
        token_ids = theirs.get_tokens_ids(terms(query))
        expected = np.asarray(theirs.get_scores_from_ids(token_ids))
        got = dict(ours.search(query, len(ids)))
        assert got and all(abs(got.get(cid, 0.0) - float(expected[i])) < 1e-6 for i, cid in enumerate(ids))


def test_an_index_whose_arrays_disagree_with_its_ids_is_not_loaded(tmp_path):
    import numpy as np

    ids, texts = _corpus()
    LexicalIndex.build(ids, texts, fingerprint="fp").save(tmp_path / "bm25")
    indptr = np.load(tmp_path / "bm25" / "indptr.csc.index.npy")
    np.save(tmp_path / "bm25" / "indptr.csc.index.npy", indptr[:-5])  # a vocabulary it no longer covers
    assert LexicalIndex.load(tmp_path / "bm25") is None  # the caller rebuilds it from the store


def test_the_term_table_finds_every_term_and_nothing_else(tmp_path):
    from rag.index.terms import TermTable, write_terms

    terms = ["well", "wells", "wel", "", "\u2205", "über", "uber", "zürich", "ωmega", "a1"]
    vocab = {t: i for i, t in enumerate(terms)}
    write_terms(tmp_path, vocab)
    table = TermTable.load(tmp_path)
    assert table is not None and len(table) == len(vocab)
    assert {t: table.get(t) for t in vocab} == vocab
    assert [table.get(t) for t in ["we", "wellss", "zzz", "Über", "0"]] == [None] * 5


def test_an_index_saved_before_the_term_table_loads_from_its_json_vocabulary(tmp_path):
    from rag.index.terms import FILES

    ids, texts = _corpus()
    LexicalIndex.build(ids, texts, fingerprint="fp").save(tmp_path / "bm25")
    new = LexicalIndex.load(tmp_path / "bm25")
    for name in FILES:
        (tmp_path / "bm25" / name).unlink()
    old = LexicalIndex.load(tmp_path / "bm25")
    assert new is not None and old is not None
    for query in ["wells satellite", "protein folding diffusion policy"]:
        assert old.search(query, 10) == new.search(query, 10) != []
