"""Issue 35 and 36 item 7 on a PDF's body: a value the page states in its own phrasing is not refused as absent
(bench/pdf_dev2: "Mini batch size was set to 32, and total epoch number was set to 70" for a question asking the
"mini-batch size"; "MAE of 2.73 years" for one asking the "mean absolute error")."""

from __future__ import annotations

from rag.answer.absent_value import measured_runs, states_measure, value_gap
from rag.answer.paper_focus import paper_gap
from rag.answer.question import analyse
from rag.types import Hit, Paper

BODY = "Mini batch size was set to 32, and total epoch number was set to 70. Training took 200 s per epoch."
ABSTRACT = ("A deep learning framework predicts brain age from routine clinical MRI scans with MAE of 2.73 years "
            "after age bias correction on cognitively unimpaired subjects.")  # fmt: skip


def _hit(text: str, page: int | None = None) -> Hit:
    return Hit(Paper("brain", "A brain age framework for routine clinical MRI", ABSTRACT), "brain:0", text, 1.0, 0.7,
               page=page)  # fmt: skip


def test_a_setting_stated_a_few_words_after_its_name_is_a_value_of_it():
    q = analyse("What mini-batch size was used to train the brain age framework for routine clinical MRI?")
    (phrase, run), *_ = measured_runs(q)
    assert phrase == "mini-batch size" and states_measure(BODY.split(". ")[0], run, set())
    assert value_gap(q, [_hit(BODY, page=7)], 0.2, [1]) is None


def test_a_measure_the_paper_writes_only_as_its_abbreviation_is_not_refused():
    q = analyse("What mean absolute error does the brain age framework for routine clinical MRI reach?")
    hits = [_hit(ABSTRACT)]
    assert paper_gap(q, hits, [1]) is None and value_gap(q, hits, 0.2, [1]) is None
    unstated = [_hit(ABSTRACT.replace("MAE", "a correlation"))]
    assert paper_gap(q, unstated, [1]) is not None  # neither the phrase nor its abbreviation: still refused
