from rag.index.lexical import LexicalIndex, tokenize


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
