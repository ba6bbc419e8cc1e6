"""Footnotes' Qt-free engine: loading, chunking, embedding, indexing, retrieval, answering."""
