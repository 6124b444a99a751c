"""The Linker: any retriever's chunk IDs, hydrated into full chunks from the document store.

IDs the docstore does not hold (an index ahead of a half-finished write) are dropped, so
readers only ever see committed content.
"""

from __future__ import annotations

from ..types import Hit
from .docstore import DocStore


class Linker:
    def __init__(self, docstore: DocStore) -> None:
        self.docstore = docstore

    def link(self, hits: list[Hit]) -> list[Hit]:
        """Fill document IDs only (no text), dropping IDs the docstore does not hold."""
        doc_ids = self.docstore.doc_ids(list(dict.fromkeys(h.chunk_id for h in hits if h.chunk is None)))
        out = []
        for hit in hits:
            doc_id = hit.chunk.doc_id if hit.chunk is not None else doc_ids.get(hit.chunk_id)
            if doc_id is not None:
                hit.doc_id = doc_id
                out.append(hit)
        return out

    def hydrate(self, hits: list[Hit]) -> list[Hit]:
        chunks = self.docstore.chunks([h.chunk_id for h in hits if h.chunk is None])
        out = []
        for hit in hits:
            chunk = hit.chunk or chunks.get(hit.chunk_id)
            if chunk is None:
                continue
            hit.chunk = chunk
            hit.doc_id = chunk.doc_id
            out.append(hit)
        return out
