"""Retrievers: one method, search(query, k) -> list[Hit], and a registry keyed by short name."""

from __future__ import annotations

from typing import Protocol

from ..registry import Registry
from ..types import Hit


class Retriever(Protocol):
    name: str

    def search(self, query: str, k: int) -> list[Hit]: ...


RETRIEVERS = Registry("retriever", shared=("index", "llm", "n_ctx"))
RETRIEVERS.register("bm25", "ragchain_cli.retrieve.bm25:BM25Retriever", "Tantivy BM25 over stemmed chunk text")
RETRIEVERS.register("dense", "ragchain_cli.retrieve.dense:DenseRetriever", "LanceDB vector search, cosine")
RETRIEVERS.register("bm25-prf", "ragchain_cli.retrieve.prf:BM25PRFRetriever",
                    "BM25 with RM3 pseudo-relevance feedback (expansion terms from its top chunks)")
RETRIEVERS.register("dense-prf", "ragchain_cli.retrieve.prf:DensePRFRetriever",
                    "dense with Rocchio feedback (query moved toward its top chunks' vectors)")
RETRIEVERS.register("hyde", "ragchain_cli.retrieve.hyde:HydeRetriever",
                    "dense search with mean(query, LLM-written hypothetical passages) (needs --llm)")


def search_many(retriever: Retriever, queries: list[str], k: int) -> list[list[Hit]]:
    """Batch search when the retriever offers it (dense embeds queries in one batch)."""
    batch = getattr(retriever, "search_many", None)
    if batch is not None:
        return batch(queries, k)
    return [retriever.search(q, k) for q in queries]
