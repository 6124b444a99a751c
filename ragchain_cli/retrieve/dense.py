"""Dense retrieval: the index's own embedding model encodes the query; LanceDB finds neighbours."""

from __future__ import annotations

import numpy as np

from ..stores.embedders import load_embedder, load_query_encoder
from ..stores.index import Index
from ..types import Hit

SMALL_BATCH = 32  # above this, torch's batched kernels beat the numpy encoder


class DenseRetriever:
    name = "dense"

    def __init__(self, index: Index, **_options) -> None:
        self.model = index.manifest()["embed_model"]
        self.vectors = index.vectors
        self.encoder = load_query_encoder(self.model)

    def embed(self, queries: list[str]) -> np.ndarray:
        encoder = self.encoder if len(queries) <= SMALL_BATCH else load_embedder(self.model)
        return encoder.embed(queries)

    def search(self, query: str, k: int) -> list[Hit]:
        return self.search_vectors(self.embed([query]), k)[0]

    def search_many(self, queries: list[str], k: int) -> list[list[Hit]]:
        return self.search_vectors(self.embed(queries), k)

    def search_vectors(self, vectors: np.ndarray, k: int) -> list[list[Hit]]:
        return [[Hit(chunk_id=cid, score=s) for cid, s in self.vectors.search(v, k)] for v in vectors]
