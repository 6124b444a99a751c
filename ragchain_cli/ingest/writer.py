"""Batches of whole files: embedded together, committed to the docstore with their journal
entries in one transaction, then replayed into Tantivy and LanceDB (see stores/index.py)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..stores.docstore import DocStore, FileRecord
from ..stores.index import Index
from ..types import Chunk, Document


class BatchWriter:
    def __init__(self, index: Index, get_embedder: Callable, batch_chunks: int = 1024) -> None:
        self.index = index
        self._get_embedder = get_embedder
        self._embedder = None
        self.batch_chunks = batch_chunks
        self.items: list[tuple[FileRecord, list[Document], list[Chunk]]] = []
        self._owners: dict[str, str] = {}
        self.added = 0

    def owner(self, doc_id: str) -> str | None:
        return self._owners.get(doc_id)

    def add(self, record: FileRecord, docs: list[Document], chunks: list[Chunk]) -> int:
        self.items.append((record, docs, chunks))
        self._owners.update({d.doc_id: record.path for d in docs})
        if sum(len(c) for _, _, c in self.items) >= self.batch_chunks:
            return self.flush()
        return 0

    def flush(self) -> int:
        """Write the pending files; return how many old chunks they replaced."""
        if not self.items:
            return 0
        chunks = [c for _, _, cs in self.items for c in cs]
        if self._embedder is None:
            self._embedder = self._get_embedder()
        vectors = self._embedder.embed([c.index_text() for c in chunks])
        with self.index.docstore.transaction() as tx:
            removed = DocStore.drop_files(tx, [record.path for record, _, _ in self.items])
            for record, docs, file_chunks in self.items:
                DocStore.put_documents(tx, record.path, docs)
                DocStore.put_chunks(tx, file_chunks)
                DocStore.put_file(tx, record)
            ops = [("del", cid, None) for cid in removed]
            ops += [("add", c.chunk_id, np.ascontiguousarray(v, np.float32).tobytes()) for c, v in zip(chunks, vectors)]
            DocStore.journal(tx, ops)
        self.index.replay()
        self.added += len(chunks)
        self.items, self._owners = [], {}
        return len(removed)

    def remove_files(self, paths: list[str]) -> int:
        if not paths:
            return 0
        with self.index.docstore.transaction() as tx:
            removed = DocStore.drop_files(tx, paths)
            DocStore.journal(tx, [("del", cid, None) for cid in removed])
        if "dim" in self.index.manifest():
            self.index.replay()
        return len(removed)

    def optimize(self) -> None:
        if "dim" in self.index.manifest():
            self.index.vectors.optimize()
