"""Readers of the formats researchers export, each on a fixture in the real format's shape (tests/data/formats/),
format detection by content, and --where/--since."""

from __future__ import annotations

import json
import shutil
from datetime import date
from pathlib import Path

import pytest

from rag.corpus import CorpusStats, read_papers, selection
from rag.corpus.openalex import rebuild_abstract
from rag.errors import ConfigError, CorpusError
from rag.types import Paper

FORMATS = Path(__file__).resolve().parent / "data" / "formats"


def read(name: str | Path, **options: object) -> tuple[list[Paper], list[str], list[str]]:
    warnings: list[str] = []
    infos: list[str] = []
    path = name if isinstance(name, Path) else FORMATS / name
    papers = read_papers([path], on_error="skip", warn=warnings.append, info=infos.append, **options)
    return papers, warnings, infos


def by_id(papers: list[Paper]) -> dict[str, Paper]:
    return {p.id: p for p in papers}


# ---- arXiv metadata snapshot


def test_arxiv_snapshot_lines_under_a_json_name() -> None:
    papers, warnings, infos = read("arxiv-metadata-oai-snapshot.json")
    assert infos == [f"reading {FORMATS / 'arxiv-metadata-oai-snapshot.json'} as arXiv metadata snapshot (JSON Lines)"]
    assert warnings == [] and len(papers) == 5
    glacier = by_id(papers)["2401.01234"]
    assert glacier.title == "Sparse Mixture Routing for Glacier Radar Sounding"  # "\n  " inside the title
    assert glacier.authors == ("Ingrid Sørensen", "Tomás Ruiz", "Mei Chen")  # from authors_parsed, LaTeX undone
    assert glacier.year == 2024  # the first version's date, not update_date's
    assert glacier.url == "https://arxiv.org/abs/2401.01234" and glacier.arxiv_id == "2401.01234"
    assert glacier.venue == "arXiv" and glacier.doi is None
    assert glacier.abstract.startswith("Radar sounding maps the bed") and "41 percent" in glacier.abstract
    coral = by_id(papers)["2312.09999"]
    assert (coral.venue, coral.doi) == ("Remote Sens. 16 (2023) 101", "10.3390/rs16010101")
    old = by_id(papers)["hep-th/9901001"]
    assert old.url == "https://arxiv.org/abs/hep-th/9901001" and old.year == 1999


def test_arxiv_where_and_since_while_streaming() -> None:
    stats = CorpusStats()
    papers, _, _ = read("arxiv-metadata-oai-snapshot.json", selection=selection(["categories=cs.LG"], "2024-01-01"),
                        stats=stats)  # fmt: skip
    assert [p.id for p in papers] == ["2401.01234", "2402.05555"]  # cs.CV, stat.ML and the 1999 cs.LG paper left
    assert (stats.filtered, stats.papers) == (3, 2)
    papers, _, _ = read("arxiv-metadata-oai-snapshot.json", selection=selection(["categories~stat."]))
    assert [p.id for p in papers] == ["2403.00042"]
    papers, _, _ = read("arxiv-metadata-oai-snapshot.json", selection=selection(["title~radar", "authors~Ruiz"]))
    assert [p.id for p in papers] == ["2401.01234"]
    papers, _, _ = read("arxiv-metadata-oai-snapshot.json", selection=selection(["categories!=cs.LG"]))
    assert [p.id for p in papers] == ["2312.09999", "2403.00042"]


def test_where_needles_skip_lines_without_decoding_them(tmp_path: Path) -> None:
    """A line without the wanted text is dropped before it is parsed: even a broken one costs nothing."""
    path = tmp_path / "snap.json"
    path.write_text((FORMATS / "arxiv-metadata-oai-snapshot.json").read_text() + "{not json at all\n")
    with pytest.raises(CorpusError, match=r"snap\.json:6: invalid JSON"):
        read_papers([path])
    papers = read_papers([path], selection=selection(["categories=cs.lg"]))
    assert [p.id for p in papers] == ["2401.01234", "hep-th/9901001", "2402.05555"]


def test_bad_filters_are_one_line_config_errors() -> None:
    for where in ("categories", "=cs.LG", "categories~", "a b=c"):
        with pytest.raises(ConfigError, match=r"--where .*write FIELD=TEXT"):
            selection([where])
    for since in ("2024-13-01", "last year", "24-01-01"):
        with pytest.raises(ConfigError, match=r"--since .*YYYY, YYYY-MM or YYYY-MM-DD"):
            selection([], since)
    assert selection([], "2024-02").since == date(2024, 2, 1)


def test_since_counts_a_year_only_date_as_the_whole_year(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    rows = [{"id": "y", "abstract": "x.", "year": 2024}, {"id": "old", "abstract": "x.", "year": 2023},
            {"id": "none", "abstract": "x."}, {"id": "d", "abstract": "x.", "date": "2024-03-31"}]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert [p.id for p in read_papers([path], selection=selection([], "2024-06-01"))] == ["y"]
    assert [p.id for p in read_papers([path], selection=selection([], "2024-03"))] == ["y", "d"]


# ---- OpenAlex


def test_openalex_rebuilds_the_abstract_from_its_inverted_index() -> None:
    assert rebuild_abstract({"learning": [1, 3], "Deep": [0], "is": [2]}) == "Deep learning is learning"
    assert rebuild_abstract(None) is None
    for bad in ({"w": "0"}, {"w": [-1]}, {"w": [10**9]}, ["w"]):
        with pytest.raises(ValueError):
            rebuild_abstract(bad)


def test_openalex_api_page() -> None:
    papers, warnings, infos = read("openalex-works-page.json")
    assert infos[0].endswith("as OpenAlex API page")
    soil, birds = papers
    assert soil.id == "W4391234567" and soil.title == "Hyperspectral Mapping of Soil Carbon"
    assert soil.abstract.startswith("We map soil organic carbon from airborne hyperspectral images.")
    assert "78 percent of the variance" in soil.abstract
    assert (soil.authors, soil.year, soil.venue) == (("Priya Raman", "Lukas Becker"), 2024, "Geoderma")
    assert soil.doi == "10.1016/j.geoderma.2024.116801" and soil.url == "https://doi.org/10.1016/j.geoderma.2024.116801"
    # no source, no DOI, an arXiv landing page: the arXiv id is recovered
    assert (birds.venue, birds.arxiv_id, birds.url) == (None, "2310.00777", "https://arxiv.org/abs/2310.00777")
    # the third work has abstract_inverted_index: null
    assert len(warnings) == 1 and "openalex-works-page.json:" in warnings[0] and warnings[0].endswith("no abstract")


def test_openalex_jsonl_and_a_single_work(tmp_path: Path) -> None:
    papers, _, infos = read("openalex-works.jsonl")
    assert infos[0].endswith("as OpenAlex works (JSON Lines)") and [p.id for p in papers] == ["W4391234567",
                                                                                             "W4387654321"]
    work = json.loads((FORMATS / "openalex-works.jsonl").read_text().splitlines()[0])
    single = tmp_path / "W4391234567.json"
    single.write_text(json.dumps(work, indent=2))
    papers, _, infos = read(single)
    assert infos[0].endswith("as OpenAlex work") and [p.id for p in papers] == ["W4391234567"]


# ---- Semantic Scholar


def test_semantic_scholar_search_response() -> None:
    papers, warnings, infos = read("s2-paper-search.json")
    assert infos[0].endswith("as Semantic Scholar Graph API response")
    burn, solar = papers
    assert burn.id == "0f1e2d3c4b5a69788796a5b4c3d2e1f001122334"
    assert (burn.authors, burn.year) == (("Daniel Okafor", "Hana Sato"), 2022)
    assert burn.venue == "IEEE Transactions on Geoscience and Remote Sensing"
    assert burn.doi == "10.1109/TGRS.2022.3190001"
    assert burn.url == "https://www.semanticscholar.org/paper/0f1e2d3c4b5a69788796a5b4c3d2e1f001122334"
    assert solar.arxiv_id == "2103.01111" and "96 percent precision" in solar.abstract
    assert len(warnings) == 1 and warnings[0].endswith("no abstract")  # the publisher withholds it


def test_semantic_scholar_batch_array_with_a_null() -> None:
    papers, warnings, infos = read("s2-paper-batch.json")
    assert infos[0].endswith("as Semantic Scholar papers (JSON array)") and len(papers) == 2
    assert warnings == [f"{FORMATS / 's2-paper-batch.json'}:1: expected a JSON object, found null"]


# ---- CSL-JSON


def test_better_csl_json_from_zotero() -> None:
    papers, warnings, infos = read("zotero-better-csl.json")
    assert infos == [f"reading {FORMATS / 'zotero-better-csl.json'} as CSL-JSON (Zotero, Better BibTeX)"]
    protein, traffic = papers
    assert protein.id == "nguyen2024protein"  # the citation key
    assert protein.title == "Molecular Dynamics of Protein Fold Stability"  # CSL's <span class="nocase"> removed
    assert protein.authors == ("Linh Nguyen", "Pieter van der Berg", "The FoldSim Consortium")
    assert (protein.year, protein.venue, protein.doi) == (2024, "Journal of Chemical Physics", "10.1063/5.0190001")
    assert traffic.authors == ("Omar Haddad", "Elin Lindqvist Jr.") and traffic.year == 2023
    assert traffic.arxiv_id == "2305.04444" and traffic.url == "http://arxiv.org/abs/2305.04444"
    assert warnings == []


def test_plain_zotero_csl_json() -> None:
    papers, _, infos = read("zotero-csl.json")
    assert infos[0].endswith("as CSL-JSON (Zotero)")
    (flood,) = papers
    assert flood.id == "http://zotero.org/users/1234567/items/ABCD2345" and flood.year == 2021
    assert (flood.arxiv_id, flood.doi) == ("2109.02222", "10.48550/arXiv.2109.02222")


# ---- RIS


def test_ris_from_zotero() -> None:
    papers, warnings, infos = read("zotero.ris")
    assert infos[0].endswith("zotero.ris as RIS") and warnings == []
    wheat, ice = papers
    assert wheat.title == "Phenology Curves for Wheat Yield Prediction"
    assert wheat.authors == ("Anna Müller", "Kenji Ito")  # "Last, First" turned round
    assert (wheat.year, wheat.venue, wheat.doi) == (2022, "Field Crops Research", "10.1016/j.fcr.2022.108500")
    assert wheat.url == "https://www.sciencedirect.com/science/article/pii/S0378429022000001"
    assert wheat.id.startswith("ris-") and ice.arxiv_id == "2301.03333"
    # ids come from what identifies the paper, not the file name: a re-export elsewhere keeps them
    assert wheat.id != ice.id


def test_ris_ids_survive_a_re_export_under_another_name(tmp_path: Path) -> None:
    copy = shutil.copy(FORMATS / "zotero.ris", tmp_path / "library-2025-01-02.ris")
    assert [p.id for p in read(Path(copy))[0]] == [p.id for p in read("zotero.ris")[0]]


def test_ris_from_endnote_as_txt_with_crlf_and_a_wrapped_abstract() -> None:
    papers, warnings, infos = read("endnote-export.txt")
    assert infos[0].endswith("endnote-export.txt as RIS")
    (coral,) = papers
    assert coral.id == "osei2020" and coral.title == "Underwater Photogrammetry of Coral Bleaching"
    assert coral.abstract.endswith("The 3D method finds 19 percent more bleached area than photo quadrats.")
    assert (coral.authors, coral.venue, coral.year) == (("Kwame Osei", "J. Brandt"), "Coral Reefs", 2020)
    assert warnings == [f"{FORMATS / 'endnote-export.txt'}:12: no abstract"]


def test_ris_from_mendeley() -> None:
    (solar,), _, _ = read("mendeley.ris")
    assert solar.title == "Forecasting Soiling Losses of Solar Panels"
    assert (solar.venue, solar.year) == ("Solar Energy", 2021)
    assert solar.abstract.startswith("We forecast solar panel soiling losses from dust measurements; cleaning")


def test_ris_entry_cut_off_is_reported_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "cut.ris"
    path.write_text("TY  - JOUR\nTI  - A\nAB  - One.\nER  - \n\nTY  - JOUR\nTI  - B\nAB  - Two.\n")
    with pytest.raises(CorpusError, match=r"cut\.ris:6: entry has no 'ER  -' line; the file ends inside it"):
        read_papers([path])
    assert [p.title for p in read(path)[0]] == ["A"]


# ---- detection


def test_a_ris_suffix_that_is_not_ris_and_a_txt_that_is_plain_text(tmp_path: Path) -> None:
    bad = tmp_path / "refs.ris"
    bad.write_text("%0 Journal Article\n%T A title\n")
    with pytest.raises(CorpusError, match=r"refs\.ris: not RIS: its first line is not a 'TY  - ' tag"):
        read_papers([bad])
    text = tmp_path / "notes.txt"
    text.write_text("A Title\nWe study things. They work.\n")
    papers, _, infos = read(text)
    assert infos[0].endswith("as plain text (one abstract per paragraph)") and papers[0].title == "A Title"


@pytest.mark.parametrize(
    ("content", "keys"),
    [
        ('{"meta": {"count": 1}, "items": []}', "items, meta"),
        ('[{"name": "x", "value": 3}]', "name, value"),
        ('{"paper": {"title": "x"}}', "paper"),
    ],
)
def test_json_in_no_known_format_is_refused_naming_its_keys(tmp_path: Path, content: str, keys: str) -> None:
    path = tmp_path / "mystery.json"
    path.write_text(content)
    for mode in ("stop", "skip"):
        with pytest.raises(CorpusError) as info:
            read_papers([path], on_error=mode)
        message = str(info.value)
        assert f"not a format rag reads (a JSON object with keys {keys})" in message
        assert "CSL-JSON" in message and "OpenAlex" in message and "\n" not in message


def test_our_own_records_are_named_as_such(tmp_path: Path) -> None:
    a = tmp_path / "a.json"
    a.write_text('[{"id": "x", "abstract": "An abstract."}]')
    b = tmp_path / "b.jsonl"
    b.write_text('{"id": "y", "abstract": "An abstract."}\n')
    _, _, infos = read(a)
    assert infos == [f"reading {a} as JSON array (rag records)"]
    assert read(b)[2] == [f"reading {b} as JSON Lines (rag records)"]


def test_a_directory_of_many_files_gets_one_summary_line(tmp_path: Path) -> None:
    for i in range(12):
        (tmp_path / f"p{i:02d}.jsonl").write_text(json.dumps({"id": f"p{i}", "abstract": "x."}) + "\n")
    shutil.copy(FORMATS / "zotero.ris", tmp_path / "zotero.ris")
    _, _, infos = read(tmp_path)
    assert infos == ["reading 13 files: 12 JSON Lines (rag records), 1 RIS"]
