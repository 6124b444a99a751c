"""Dense retrieval: the index's own embedding model encodes the query; LanceDB finds neighbours.

Queries are encoded by the query encoder the index manifest names (the numpy encoder when ingest
found that it reproduces the ingest encoder's vectors). Loading torch costs seconds; it pays for
itself only after BREAK_EVEN queries (measured with bench/encoder_breakeven.py, removed in 29a3e57;
docs/history/RESULTS-history.md has the figures, "Query encoder break-even"). So
the numpy encoder runs until the queries this retriever has encoded would pass that number, and
torch from then on (ski rental: at most twice the cost of the better choice known in hindsight);
when torch is already loaded in the process, it takes every batch above SMALL_BATCH at once.
"""

from __future__ import annotations

import numpy as np

from ..loaded import is_loaded
from ..stores.embedders import load_embedder, load_query_encoder
from ..stores.index import Index
from ..types import Hit

BREAK_EVEN = 1800  # queries; measured in CPU time (docs/history/RESULTS-history.md, query encoder break-even)
SMALL_BATCH = 32  # with torch loaded: above this, its batched kernels beat the numpy encoder


class DenseRetriever:
    name = "dense"

    def __init__(self, index: Index, **_options) -> None:
        manifest = index.manifest()
        self.model = manifest["embed_model"]
        self.vectors = index.vectors
        self.encoder = load_query_encoder(self.model, manifest.get("query_encoder", ""))
        self.encoded = 0

    def embed(self, queries: list[str]) -> np.ndarray:
        self.encoded += len(queries)
        torch_loaded = is_loaded(("embedder", self.model))
        if (torch_loaded and len(queries) > SMALL_BATCH) or self.encoded > BREAK_EVEN:
            return load_embedder(self.model).embed(queries)
        return self.encoder.embed(queries)

    def search(self, query: str, k: int) -> list[Hit]:
        return self.search_vectors(self.embed([query]), k)[0]

    def search_many(self, queries: list[str], k: int) -> list[list[Hit]]:
        return self.search_vectors(self.embed(queries), k)

    def search_vectors(self, vectors: np.ndarray, k: int) -> list[list[Hit]]:
        return [[Hit(chunk_id=cid, score=s) for cid, s in self.vectors.search(v, k)] for v in vectors]
