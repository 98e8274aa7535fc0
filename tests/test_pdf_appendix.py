"""Issue 35: an appendix after the references without an "Appendix" heading (ICML and NeurIPS arXiv copies start it
with "A. QMIX" at the top of a page) is body text; it was dropped with the references, and with it the appendix's
hyperparameters (bench/pdf_dev3, qmix_icml2018 page 13: "we anneal epsilon linearly from 1.0 to 0.05")."""

from __future__ import annotations

from rag.corpus.pdf_layout import sections

BODY = ["5 Conclusion", "QMIX outperforms IQL and VDN on the StarCraft II tasks."]
REFERENCES = ["References", "A. Vaswani, N. Shazeer, and N. Parmar. Attention is all you need. In NIPS, 2017.",
              "B. Zhang. Multi-agent learning. In ICML, 2018."]  # fmt: skip
APPENDIX = ["A. Architecture and Training", "We anneal epsilon linearly from 1.0 to 0.05 over 50k time steps."]


def _text(pages: list[list[str]]) -> str:
    return " ".join(s.text for s in sections(pages, 0, 0))


def test_an_appendix_starting_a_page_after_the_references_is_body_text() -> None:
    text = _text([BODY, REFERENCES, APPENDIX])
    assert "from 1.0 to 0.05 over 50k time steps" in text and "Attention is all you need" not in text
    (last,) = [s for s in sections([BODY, REFERENCES, APPENDIX], 0, 0) if "anneal" in s.text]
    assert last.heading == "A. Architecture and Training" and last.page == 3


def test_a_reference_whose_first_line_looks_like_a_heading_does_not_end_the_references() -> None:
    page = ["A. Krizhevsky. ImageNet classification", "with deep convolutional neural networks. In NIPS, 2012."]
    assert "ImageNet" not in _text([BODY, REFERENCES, page])
    middle = [*REFERENCES[1:], "A. Proofs of the bounds", "The bound holds for every step size."]  # not a page's top
    assert "The bound holds" not in _text([BODY, REFERENCES[:1] + middle])
