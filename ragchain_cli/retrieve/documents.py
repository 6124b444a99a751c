"""Documents ranked from document-level evidence (`search --documents`, `eval`).

Each retriever's chunk list is collapsed to ITS documents first (a document's score from its own
passages: max, plus a decayed sum of the others), and only then are the lists fused, so a
document is compared with documents: fusing chunks first lets one retriever's second-best
passage of a document push out another document both retrievers liked. Each fused document is
shown by a chunk: its best-ranked passage in the list that ranked the document highest.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..fusion import best_passages, fuse, passages_to_documents
from ..stores.linker import Linker
from ..types import Hit


class DocumentRanker:
    def __init__(self, linker: Linker, decay: float = 0.0) -> None:
        self.linker = linker
        self.decay = decay

    def rank(self, method: str, runs: Mapping[str, list[Hit]], **options) -> list[Hit]:
        """Like fusion.fuse, over documents: chunk lists per retriever -> fused documents, each a Hit
        on the chunk that stands for it."""
        self.linker.link([hit for hits in runs.values() for hit in hits])  # fills doc_id in place
        held = {name: [h for h in hits if h.doc_id] for name, hits in runs.items()}
        docs = {name: passages_to_documents(hits, self.decay) for name, hits in held.items()}
        best = {name: best_passages(hits) for name, hits in held.items()}
        fused = fuse(method, docs, **options)
        return [self._shown(hit, best) for hit in fused]

    @staticmethod
    def _shown(hit: Hit, best: Mapping[str, Mapping[str, str]]) -> Hit:
        """The document's Hit on the passage of the list where it ranked highest (ties: list order)."""
        doc = hit.doc_id
        name = min(hit.explain, key=lambda n: hit.explain[n][0])
        return Hit(best[name][doc], hit.score, doc, dict(hit.explain))
