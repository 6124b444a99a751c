"""What the answer side asks the index about versions (the two callables of answer/versions.py's
Lookup: newest_of and best_passage_of), answered from a search pipeline: its version groups (stores/versions.VersionView) and its own retrievers.

best_passage_of(question, doc_id): the document's chunks ranked for the question by the pipeline's
BM25 (Tantivy, restricted to those chunks, with the whole index's statistics) and dense retriever
(the stored LanceDB vectors against the question's embedding), fused as the pipeline fuses; the
pipeline's --since/--until/--source filters apply (a newest version they exclude has no passage).
"""

from __future__ import annotations

import numpy as np

from ..fusion import fuse
from ..types import Hit


class VersionLookup:
    def __init__(self, pipeline) -> None:
        self.pipeline = pipeline

    def newest_of(self, doc_id: str) -> str | None:
        return self.pipeline.versions.superseded.get(doc_id)

    def best_passage_of(self, question: str, doc_id: str) -> Hit | None:
        pipeline, opts = self.pipeline, self.pipeline.options
        rows = pipeline.index.docstore.conn.execute("SELECT chunk_id FROM chunks WHERE doc_id = ? ORDER BY ordinal",
                                                    (doc_id,))
        chunks = pipeline.linker.hydrate([Hit(chunk_id=row[0], score=0.0) for row in rows])
        if opts.filtering:
            chunks = [h for h in chunks if pipeline._keep(h)]
        if not chunks:
            return None
        runs = {name: ranked for name, ranked in self._runs(question, [h.chunk_id for h in chunks]).items() if ranked}
        if not runs:
            return None
        best = fuse(opts.fusion, runs, k=opts.rrf_k, norm=opts.norm, weights=opts.weights or None)[0]
        best.chunk, best.doc_id = next(h.chunk for h in chunks if h.chunk_id == best.chunk_id), doc_id
        return best

    def _runs(self, question: str, ids: list[str]) -> dict[str, list[Hit]]:
        """Each of the pipeline's BM25 and dense retrievers' ranking of these chunks for the question."""
        runs: dict[str, list[Hit]] = {}
        if "bm25" in self.pipeline.retrievers:
            runs["bm25"] = [Hit(cid, score) for cid, score in self.pipeline.index.lexical.search_within(question, ids)]
        dense = self.pipeline.retrievers.get("dense")
        if dense is not None:
            stored = self.pipeline.index.vectors.vectors(ids)
            if stored:
                query = np.asarray(dense.embed([question])[0], dtype=np.float32)
                query /= np.linalg.norm(query) or 1.0
                scored = [(cid, float(v @ query / (np.linalg.norm(v) or 1.0))) for cid, v in stored.items()]
                runs["dense"] = [Hit(cid, s) for cid, s in sorted(scored, key=lambda item: (-item[1], item[0]))]
        return runs
