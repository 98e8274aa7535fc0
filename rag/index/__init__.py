"""chunks -> vectors and BM25: the indexer, its writer, and the derived local files (BM25, docstore)."""
