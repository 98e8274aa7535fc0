"""papers: corpus files -> Paper values (format detection, one reader per format, a record filter, one
validator, one discovery pass)."""

from rag.corpus.formats import SUPPORTED_SUFFIXES
from rag.corpus.paper_fields import derive_title
from rag.corpus.select import Selection, selection
from rag.corpus.sources import CorpusStats, iter_papers, read_papers

__all__ = ["SUPPORTED_SUFFIXES", "CorpusStats", "Selection", "derive_title", "iter_papers", "read_papers",
           "selection"]  # fmt: skip
