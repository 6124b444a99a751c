"""Dense retrieval: the index's own embedding model encodes the query; LanceDB finds neighbours."""

from __future__ import annotations

import numpy as np

from ..stores.embedders import load_embedder
from ..stores.index import Index
from ..types import Hit


class DenseRetriever:
    name = "dense"

    def __init__(self, index: Index, **_options) -> None:
        manifest = index.manifest()
        self.vectors = index.vectors
        self.embedder = load_embedder(manifest["embed_model"])

    def search(self, query: str, k: int) -> list[Hit]:
        return self.search_vectors(self.embedder.embed([query]), k)[0]

    def search_many(self, queries: list[str], k: int) -> list[list[Hit]]:
        return self.search_vectors(self.embedder.embed(queries), k)

    def search_vectors(self, vectors: np.ndarray, k: int) -> list[list[Hit]]:
        return [[Hit(chunk_id=cid, score=s) for cid, s in self.vectors.search(v, k)] for v in vectors]
