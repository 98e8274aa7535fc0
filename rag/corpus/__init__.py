"""papers: corpus files -> Paper values (one reader per format, one validator, one discovery pass)."""

from rag.corpus.formats import SUPPORTED_SUFFIXES
from rag.corpus.paper_fields import derive_title
from rag.corpus.sources import iter_papers, read_papers

__all__ = ["SUPPORTED_SUFFIXES", "derive_title", "iter_papers", "read_papers"]
