"""hits: a question -> the chunks that answer it (dense + BM25, fused, filtered, budgeted)."""
