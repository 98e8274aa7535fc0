from rag.corpus import read_papers
from rag.index.chunking import chunk_paper, content_hash, embed_text, split_sentences
from rag.index.tokens import count_tokens, encoding
from rag.settings import BUNDLED_CORPUS
from rag.types import Paper


def test_cl100k_offline_matches_tiktoken_reference_ids():
    assert encoding().encode("hello world") == [15339, 1917]


def test_each_bundled_abstract_is_one_chunk_with_exact_token_count():
    for paper in read_papers([BUNDLED_CORPUS]):
        chunks = chunk_paper(paper, size=320, overlap=32)
        assert len(chunks) == 1
        c = chunks[0]
        assert c.id == f"{paper.id}:0" and c.paper_id == paper.id and c.position == 0
        assert c.text == paper.abstract
        assert c.num_tokens == len(encoding().encode_ordinary(paper.abstract))
        assert c.content_hash == content_hash(embed_text(paper, c.text))


def test_long_abstract_is_windowed_within_size_with_overlap():
    sentences = [f"Sentence number {i} talks about topic {i} in some detail." for i in range(60)]
    paper = Paper(id="long-1", title="Long", abstract=" ".join(sentences))
    chunks = chunk_paper(paper, size=64, overlap=16)
    assert len(chunks) > 5
    assert [c.position for c in chunks] == list(range(len(chunks)))
    for c in chunks:
        assert c.num_tokens == count_tokens(c.text) <= 64
    # consecutive windows share their boundary sentence(s), and together they cover every sentence
    for a, b in zip(chunks, chunks[1:], strict=False):
        assert split_sentences(a.text)[-1] in b.text
    covered = " ".join(c.text for c in chunks)
    assert all(s in covered for s in sentences)


def test_a_sentence_longer_than_the_window_is_cut_by_tokens():
    paper = Paper(id="x", title="t", abstract="word " * 500)
    chunks = chunk_paper(paper, size=100, overlap=10)
    assert all(c.num_tokens <= 100 for c in chunks)
    assert sum(c.text.count("word") for c in chunks) >= 500


def test_changed_text_changes_hash_and_same_text_keeps_it():
    p1 = Paper(id="a", title="T", abstract="Alpha beta.")
    p2 = Paper(id="a", title="T", abstract="Alpha gamma.")
    assert chunk_paper(p1)[0].content_hash == chunk_paper(p1)[0].content_hash
    assert chunk_paper(p1)[0].content_hash != chunk_paper(p2)[0].content_hash


def test_split_sentences_keeps_numbers_and_abbreviations_together():
    text = "We use 3.5 billion tokens. Accuracy rises by 10%. Results follow."
    assert split_sentences(text) == ["We use 3.5 billion tokens.", "Accuracy rises by 10%.", "Results follow."]
