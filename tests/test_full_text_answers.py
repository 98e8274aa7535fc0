"""Full-text answers (issue 35 item 3): the best papers' further body windows and their abstract join the sources,
windows of one paper count as that paper, and a value question prefers a sentence giving the attribute a value."""

from __future__ import annotations

from dataclasses import replace

from rag.answer.counting import counts, states_value
from rag.answer.question_parts import identified_paper, named_papers
from rag.ports import StoredChunk
from rag.retrieve.companions import BODY_WINDOWS, LEXICAL_WINDOWS, companions
from rag.settings import RetrievalSettings
from rag.types import Hit, Paper


def _hit(paper: str, n: int, page: int | None, text: str = "Some text.") -> Hit:
    return Hit(Paper(paper, f"Title of {paper}", "An abstract."), f"{paper}:{n}", text, 0.5, 0.4, None, 10, page, page)


class _Retriever:
    """What companions() reads of a Retriever: a search with several windows per paper, stored chunks, cosines."""

    settings = RetrievalSettings()

    def __init__(self, ranked: list[Hit], worded: list[Hit] | None = None) -> None:
        self.ranked = ranked
        self.worded = ranked if worded is None else worded  # what BM25 alone ranks first
        self.searches: list[str] = []

    def search(self, query: str, k: int, *, filters: object = None, per_paper: int = 1, mode: str = "hybrid"
               ) -> list[Hit]:  # fmt: skip
        self.searches.append(mode)
        return (self.worded if mode == "lexical" else self.ranked)[:k]

    def stored(self, chunk_id: str) -> StoredChunk | None:
        paper = chunk_id.partition(":")[0]
        meta = {"paper_id": paper, "title": f"Title of {paper}", "abstract": "An abstract.", "num_tokens": 12}
        return StoredChunk(chunk_id, "An abstract.", meta) if chunk_id.endswith(":0") else None

    def cosine(self, chunk_id: str, query: str) -> float | None:
        return 0.3


def test_an_abstract_only_library_gets_no_companions_and_no_second_search() -> None:
    retriever = _Retriever([])
    assert companions(retriever, "q", [_hit("a", 0, None), _hit("b", 0, None)]) == []  # type: ignore[arg-type]
    assert retriever.searches == []


def test_the_best_full_text_papers_get_their_next_body_windows_and_their_abstract() -> None:
    hits = [_hit("a", 7, 6), _hit("b", 3, 2), _hit("c", 9, 4)]
    ranked = [*hits, _hit("a", 5, 5), _hit("b", 4, 3), _hit("a", 12, 9), _hit("a", 20, 11), _hit("c", 2, 1)]
    worded = [_hit("a", 20, 11), _hit("a", 5, 5), *ranked]  # BM25 alone puts page 11 first
    found = companions(_Retriever(ranked, worded), "q", hits)  # type: ignore[arg-type]
    # the fused search's next two windows of a, then BM25's (one new), its abstract; the same for b; c is third: none
    assert [h.chunk_id for h in found] == ["a:5", "a:12", "a:20", "a:0", "b:4", "b:0"]
    assert BODY_WINDOWS == LEXICAL_WINDOWS == 2
    abstract = found[3]
    assert abstract.page is None and abstract.dense_score == 0.3 and abstract.paper.abstract == "An abstract."


def test_companions_stay_within_the_token_budget() -> None:
    hits = [_hit("a", 7, 6)]
    ranked = [*hits, _hit("a", 5, 5), _hit("a", 6, 5)]
    assert [h.chunk_id for h in companions(_Retriever(ranked), "q", hits, budget=25)] == ["a:5"]  # type: ignore[arg-type]


def test_a_sentence_states_a_value_when_a_number_is_near_the_attribute() -> None:
    assert states_value("For all experiments the batch size is set to 128 and we run 200 epochs.", "batch size")
    assert states_value("We use a weight decay of 0.0001 and a momentum of 0.9.", "weight decay")
    assert states_value("Fast R-CNN trains VGG16 9× faster than R-CNN.", "faster")
    assert not states_value("Our method works in a mini-batch manner with 4 GPUs.", "batch size")  # no "size"
    assert not states_value(
        "The weight decay matters a great deal in every setting we tried, as section 5 shows.", "weight decay"
    )  # the number is too far from it


def test_an_identifier_in_several_windows_of_one_paper_still_identifies_it() -> None:
    hits = [_hit("a", 7, 6, "VGG16 timings."), _hit("b", 1, 2, "Other."), _hit("a", 0, None, "VGG16 is fast.")]
    assert identified_paper("How fast is VGG16?", hits) == 1
    hits.append(_hit("c", 3, 1, "VGG16 too."))
    assert identified_paper("How fast is VGG16?", hits) is None  # two papers mention it


def test_the_number_of_a_noun_is_a_count_of_it() -> None:
    assert counts("The number of hidden units is 5000.", "units")
    assert counts("We use 128 hidden units.", "units")
    assert not counts("The number of hidden units is large.", "units")  # no number
    assert not counts("The number of layers was 3 in every network we trained with wide units.", "units")  # layers


def test_a_paper_named_in_several_of_its_windows_is_named_once() -> None:
    hits = [_hit("a", 7, 6, "Zorp123 on page six."), _hit("b", 1, 2, "Other."), _hit("a", 0, None, "Zorp123 here.")]
    hits = [replace(h, paper=replace(h.paper, title="Zorp123: a benchmark")) if h.paper.id == "a" else h for h in hits]
    assert named_papers("What does Zorp123 measure?", hits) == [1]
