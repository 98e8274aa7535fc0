"""`rag check`'s parts without an index: drafts -> sentences and keys (Markdown, LaTeX), keys -> papers."""

from __future__ import annotations

from rag.check.citations import numbered_keys
from rag.check.draft import detect_format, parse_draft
from rag.check.resolve import Library, bib_references, normal_arxiv, normal_doi
from rag.corpus.bibtex import parse_bibtex
from rag.types import Paper


def _keys(text: str, name: str = "d.md") -> list[tuple[str, ...]]:
    return [s.keys for s in parse_draft(text, name).sentences]


def test_pandoc_citations_single_several_with_locators_and_in_text():
    draft = parse_draft(
        "Wells leak methane into the air [@seth2025]. Two papers agree on this point [@a; @b, p. 3].\n"
        "The claim holds with a prefix too [see @c, pp. 3-4; also -@d]. As @lu2025 show, deeper nets are plastic.\n"
        "Write to me at me@example.org about this draft.",
        "d.md",
    )
    assert [s.keys for s in draft.sentences] == [("seth2025",), ("a", "b"), ("c", "d"), ("lu2025",), ()]
    first = draft.sentences[0]
    assert first.claim == "Wells leak methane into the air." and first.text.endswith("[seth2025].")
    assert draft.format == "markdown"


def test_markdown_markup_is_stripped_and_code_and_headings_are_not_sentences():
    text = ("---\ntitle: T\nbibliography: refs.bib\n---\n# A heading that is not a claim\n\n"
            "Some **bold** and *emphasised* words sit in this sentence [@a].\n\n"
            "```\nCode that cites [@hidden] is never checked here.\n```\n"
            "- A [linked phrase](https://example.org) in a list item ![img](http://x/y.png) [@b].\n"
            "<!-- a comment that cites [@gone] and says things -->\n"
            "> A quoted sentence reaches $92\\%$ accuracy on the test [@c].\n")  # fmt: skip
    draft = parse_draft(text, "d.md")
    assert [s.claim for s in draft.sentences] == [
        "Some bold and emphasised words sit in this sentence.",
        "A linked phrase in a list item.",
        "A quoted sentence reaches 92% accuracy on the test.",
    ]
    assert [s.line for s in draft.sentences] == [7, 12, 14]
    assert draft.bibliography_files == ("refs.bib",)


def test_latex_cite_variants_several_keys_comments_math_and_environments():
    text = r"""\documentclass{article}
\begin{document}
\section{Intro}\label{s}
Our dataset holds over $213{,}000$ wells in Alberta~\citep[p.~2]{seth2025, other}.
% a comment \cite{commented}
\citet{lu2025} reveal that deeper networks exhibit better plasticity\footnote{See \cite{fn}.}.
Accuracy reached $92\%$ on the held-out test set.\cite{acc}
\begin{equation} x = y \cite{eq} \end{equation}
\begin{itemize}\item The first item says something about \emph{forgetting} \parencite{p1,p2}.\end{itemize}
\end{document}
"""
    draft = parse_draft(text, "main.tex")
    assert draft.format == "latex"
    assert [s.keys for s in draft.sentences] == [("seth2025", "other"), ("lu2025",), ("acc",), ("p1", "p2")]
    assert draft.sentences[0].claim == "Our dataset holds over 213,000 wells in Alberta."
    assert draft.sentences[2].claim == "Accuracy reached 92% on the held-out test set."  # the cite after the stop
    assert draft.sentences[3].claim == "The first item says something about forgetting."
    assert [s.line for s in draft.sentences] == [4, 6, 7, 9]


def test_latex_spacing_commands_in_running_text():
    text = r"Accuracy reached 92.3\,\% over 213\,000 wells, e.g.\ in Alberta\@. It holds\\ two lines \cite{a}."
    claims = [s.claim for s in parse_draft(text, "x.tex").sentences]
    assert claims == ["Accuracy reached 92.3% over 213,000 wells, e.g. in Alberta.", "It holds two lines."]


def test_numbered_citations_with_a_reference_list():
    text = ("Auxiliary classifiers cut inference cost [1]. Two results agree on it [1, 3]. A range of work [2-4].\n\n"
            "## References\n\n[1] Zhang et al. Improving Continual Learning. ICML 2025.\n"
            "[2] A. Lu. Dual-Arch. arXiv:2506.03951v2.\n3. Someone. doi:10.48550/arXiv.2504.01848\n"
            "[4] Another author, a title that continues\n    on the next line.\n")  # fmt: skip
    draft = parse_draft(text, "d.md")
    assert [s.keys for s in draft.sentences] == [("1",), ("1", "3"), ("2", "3", "4")]
    assert draft.references["2"] == "A. Lu. Dual-Arch. arXiv:2506.03951v2."
    assert draft.references["3"] == "Someone. doi:10.48550/arXiv.2504.01848"
    assert draft.references["4"].endswith("continues on the next line.")
    assert numbered_keys("1, 3-5; 7") == ["1", "3", "4", "5", "7"]


def test_latex_bibitems_are_the_reference_list():
    text = (r"Wells leak methane into the air \cite{w}." "\n"
            r"\begin{thebibliography}{9}\bibitem[Seth(2025)]{w} P.~Seth. \newblock Alberta Wells. "
            r"\url{https://arxiv.org/abs/2410.09032}.\end{thebibliography}")  # fmt: skip
    draft = parse_draft(text, "x.tex")
    assert draft.references == {"w": "P. Seth. Alberta Wells. https://arxiv.org/abs/2410.09032 ."}
    assert [s.keys for s in draft.sentences] == [("w",)]


def test_format_detection_by_name_then_content():
    assert detect_format("anything", "paper.TEX") == "latex"
    assert detect_format(r"\section{A} \cite{b}", "notes.md") == "markdown"
    assert detect_format(r"\documentclass{article}\begin{document}", None) == "latex"
    assert detect_format("# Title\n\nText [@a].", None) == "markdown"


PAPERS = [
    Paper("seth2025alberta", "Alberta Wells Dataset: Pinpointing Oil and Gas Wells", "a", source="lib.bib",
          doi="10.48550/arXiv.2410.09032"),
    Paper("icml2025-01", "Rethinking the Stability-Plasticity Trade-off", "b", arxiv_id="2506.03951",
          source="data/icml2025.jsonl"),
    Paper("Li2025Contaminated", "How Contaminated Is Your Benchmark?", "c", source="lib.bib", doi="10.1000/ABC.42"),
]  # fmt: skip


def test_keys_resolve_by_id_bibtex_key_doi_and_arxiv_id_any_form():
    lib = Library(PAPERS)
    cases = {
        "icml2025-01": ("icml2025-01", "id"),
        "seth2025alberta": ("seth2025alberta", "bibtex key"),
        "li2025contaminated": ("Li2025Contaminated", "bibtex key"),  # BibTeX keys are case-insensitive
        "doi:10.1000/abc.42": ("Li2025Contaminated", "doi"),
        "https://doi.org/10.1000/ABC.42": ("Li2025Contaminated", "doi"),
        "10.48550/arXiv.2506.03951": ("icml2025-01", "arxiv"),  # an arXiv DOI names the arXiv paper
        "arXiv:2506.03951v2": ("icml2025-01", "arxiv"),
        "2410.09032v1": ("seth2025alberta", "arxiv"),  # through the arXiv DOI the library holds
    }
    for key, (paper_id, how) in cases.items():
        found = lib.resolve(key)
        assert (found.paper.id if found.paper else None, found.matched_by) == (paper_id, how), key


def test_unknown_keys_and_numbered_citations_through_reference_entries():
    lib = Library(PAPERS)
    refs = {"1": "Seth et al. Some title. https://arxiv.org/abs/2410.09032v3", "2": "A. Lu. Rethinking the "
            "stability-plasticity trade-off. ICML.", "3": "Unknown. A paper we never indexed. 2020.",
            "mykey": "doi: 10.1000/abc.42."}  # fmt: skip
    assert lib.resolve("1", refs).paper.id == "seth2025alberta"
    assert (lib.resolve("2", refs).paper.id, lib.resolve("2", refs).matched_by) == ("icml2025-01", "title")
    assert lib.resolve("3", refs).paper is None
    assert lib.resolve("4", refs).paper is None  # no such entry
    assert lib.resolve("mykey", refs).matched_by == "doi"
    assert lib.resolve("nobody2019").paper is None


def test_the_drafts_bib_file_maps_keys_to_dois_arxiv_ids_and_titles():
    bib = ("@article{k1, title={How Contaminated Is Your Benchmark?}}\n"
           "@misc{k2, eprint={2506.03951}, archivePrefix={arXiv}}")
    refs = bib_references(parse_bibtex(bib))
    lib = Library(PAPERS)
    assert lib.resolve("k1", refs).paper.id == "Li2025Contaminated"
    assert lib.resolve("k2", refs).paper.id == "icml2025-01"


def test_identifier_normalisation():
    assert normal_doi("https://dx.doi.org/10.1/X.") == "10.1/x"
    assert normal_doi("not a doi") is None
    assert normal_arxiv("https://arxiv.org/pdf/2410.09032v2") == "2410.09032"
    assert normal_arxiv("arXiv:hep-th/9901001v1") == "hep-th/9901001"
    assert normal_arxiv("smith2020") is None


def test_a_bibtex_key_that_is_not_a_valid_id_indexes_and_resolves(tmp_path):
    from rag.check.resolve import Library
    from rag.corpus import read_papers

    bib = tmp_path / "odd.bib"
    bib.write_text("@article{Vaswani+17, title={Attention is all you need}, abstract={We propose the Transformer.}}\n"
                   "@article{M\u00fcller:2020, title={Another paper}, abstract={We study things in depth here.}}\n"
                   "@article{smith2020, title={A plain key}, abstract={Plain keys stay as they are.}}\n")  # fmt: skip
    papers = list(read_papers([bib]))
    assert [p.id for p in papers] == ["Vaswani_17", "Muller:2020", "smith2020"]
    lib = Library(papers)
    assert lib.resolve("Vaswani+17").paper.id == "Vaswani_17"
    assert lib.resolve("M\u00fcller:2020").paper.id == "Muller:2020"
    assert [s.keys for s in parse_draft("Raw LaTeX in Markdown \\cite{a, b} is read too.", "d.md").sentences] == [
        ("a", "b")]


def test_rag_check_is_built_on_the_stages_not_on_adapters_or_the_interfaces():
    from tests.test_architecture import IMPORTS, ROOT

    outside = ("rag.adapters", "rag.factory", "rag.cli", "ui", "eval", "gradio", "chromadb", "openai")
    problems = [f"{path.relative_to(ROOT)} imports {name}" for path, names in IMPORTS.items()
                if str(path.relative_to(ROOT)).startswith("rag/check/") for name in names
                if any(name == o or name.startswith(o + ".") for o in outside)]  # fmt: skip
    assert problems == []


def test_sentences_about_the_drafts_own_work():
    from rag.check.run import own_work

    mine = ["In this paper, we propose X.", "Our experiments show it works.", "Here we show Y.", "This work studies Z.",
            "Overall, our results hold.", "We thank the reviewers.", "Motivated by these findings, we propose X.",
            "To address this, we introduce Y."]  # fmt: skip
    theirs = ["Catastrophic forgetting remains a problem.", "Weather matters.", "These papers show X.", "Ours is best.",
              "Deeper networks, which we study, are more plastic."]  # fmt: skip
    assert [own_work(t) for t in mine] == [True] * len(mine)
    assert [own_work(t) for t in theirs] == [False] * len(theirs)


def test_each_sentence_has_its_own_line_even_when_they_start_alike():
    text = ("Auxiliary classifiers give a relative gain [@a].\nAuxiliary classifiers cut the inference cost [@a].\n"
            "Auxiliary classifiers work well. Auxiliary classifiers are cheap to add.\n")  # fmt: skip
    assert [s.line for s in parse_draft(text, "d.md").sentences] == [1, 2, 3, 3]


def test_latex_macros_of_the_draft_are_written_out():
    text = ("\\newcommand{\\method}{\\textsc{Dual-Arch}}\n\\begin{document}\n"
            "We show that \\method{} is compact and small~\\cite{a}.\n\\end{document}\n")  # fmt: skip
    [s] = parse_draft(text, "x.tex").sentences
    assert (s.claim, s.keys, s.line) == ("We show that Dual-Arch is compact and small.", ("a",), 3)


def test_inline_code_is_never_a_citation():
    draft = parse_draft("Use the `@property` decorator and `x[1]` indexing in the examples we give [@a].\n", "d.md")
    assert [(s.keys, s.claim) for s in draft.sentences] == [
        (("a",), "Use the @property decorator and x[1] indexing in the examples we give.")
    ]


def test_keys_and_ids_in_the_markdown_report_show_as_written():
    from rag.check.render import _code, shown_key

    assert _code("smith_2020") == "`smith_2020`"  # no backslash: it would show inside a code span
    assert _code(shown_key("3")) == "`[3]`"
    assert _code("a`b<script>") == "`a'b‹script›`"
