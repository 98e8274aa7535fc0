"""Adapters: each outside library (chromadb, openai, onnxruntime + tokenizers, llama.cpp) behind a protocol
of rag.ports."""
