"""BM25 over the Tantivy index. No torch, no LanceDB: this path must start fast."""

from __future__ import annotations

from ..stores.index import Index
from ..types import Hit


class BM25Retriever:
    name = "bm25"

    def __init__(self, index: Index, **_options) -> None:
        self.lexical = index.lexical

    def search(self, query: str, k: int) -> list[Hit]:
        return [Hit(chunk_id=cid, score=score) for cid, score in self.lexical.search(query, k)]


class BM25DocumentRetriever:
    """BM25 over whole documents (title + text), for document ranking only: its hits are keyed by
    doc_id (chunk_id = doc_id), so it never feeds a chunk list; see retrieve/documents.py."""

    name = "bm25-doc"

    def __init__(self, index: Index, **_options) -> None:
        self.lexical = index.documents

    def search(self, query: str, k: int) -> list[Hit]:
        return [Hit(chunk_id=doc_id, score=score, doc_id=doc_id) for doc_id, score in self.lexical.search(query, k)]
