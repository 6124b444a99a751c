"""Batches of documents: embedded together, committed to the docstore with their journal entries
in one transaction, then replayed into Tantivy and LanceDB (see stores/index.py). Every document
written or removed is journalled too (`doc`), for the whole-document index.

A batch closes at `batch_chunks` chunks, inside a file if need be, so a corpus that is one big
JSONL file is written (and its progress kept) a batch at a time, and memory holds one batch of
chunks and vectors, never the file. Documents are replaced one at a time: writing a document
first deletes the chunks its previous version had, and a file's last batch deletes the documents
its new version no longer has and writes its record (size, mtime, hash). A file cut off by a
crash therefore still has its old record, and the next ingest redoes it.

A re-ingested file keeps the stored vectors of the chunks it still has (same chunk ID: same
document, position, title and text) and embeds only the rest; the old vectors are read before the batch
that replaces them is written, so this holds in every batch of a large file too.

A file whose new version fails to load keeps what the index holds of it (its last good version)
and its old record, so the next ingest tries it again. Chunks are embedded EMBED_STEP at a time,
each step reported to `on_embedded(total so far)`, so progress moves inside a large batch.
Vectors an engine computed elsewhere (`--engine ray`) come in with their documents and are used
as they are.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..stores.docstore import DocStore, FileRecord
from ..stores.index import Index
from ..types import Chunk, Document
from .versions import VersionLinker

EMBED_STEP = 128


class BatchWriter:
    def __init__(self, index: Index, get_embedder: Callable, bind: Callable[[int], None], batch_chunks: int = 1024,
                 on_embedded: Callable[[int], None] | None = None) -> None:
        self.index = index
        self._bind = bind  # records the index's settings with the vectors' dimension, before the first write
        self._bound = False
        self.on_embedded = on_embedded
        self.embedded = 0  # chunks embedded in this run
        self.files_written = 0  # files whose last batch (and record) is committed
        self._get_embedder = get_embedder
        self._embedder = None
        self.batch_chunks = batch_chunks
        self.items: list[tuple[str, list[Document], list[Chunk]]] = []
        self._given: dict[str, np.ndarray] = {}  # chunk ID -> a vector computed by the engine
        self.done: dict[str, FileRecord] = {}  # files complete since the last flush
        self.started: set[str] = set()  # files with a batch written in this run
        self._owners: dict[str, str] = {}
        self._pending = 0
        self.added = 0
        self.removed = 0  # old chunks taken out, by every write and removal of this run
        self.reused = 0  # chunks whose stored vector was kept instead of embedding them again
        self._previous: dict[str, bool] = {}  # path -> the index held documents of it before this run
        self._written: dict[str, set[str]] = {}  # path -> IDs of its documents written in this run

    def owner(self, doc_id: str) -> str | None:
        return self._owners.get(doc_id)

    def add(self, path: str, docs: list[Document], chunks: list[Chunk],
            vectors: dict[str, np.ndarray] | None = None) -> None:
        """Queue documents of the file at `path` (with the vectors of some of their chunks, when an
        engine computed them); a full batch is written at once."""
        if path not in self._previous:
            self._previous[path] = self.index.docstore.holds_file(path)
        self.items.append((path, docs, chunks))
        self._given.update(vectors or {})
        self._owners.update({d.doc_id: path for d in docs})
        self._pending += len(chunks)
        if self._pending >= self.batch_chunks:
            self.flush()

    def finish_file(self, record: FileRecord) -> None:
        """The file's documents are all queued: its record goes out with them."""
        self.done[record.path] = record

    def abandon(self, path: str) -> bool:
        """Forget a file that failed part way: drop its queued documents. A file the index held
        before keeps what is stored of it and its old record; a new file's written batches go.
        Return whether the index still holds a version of the file."""
        dropped = {c.chunk_id for p, _, cs in self.items if p == path for c in cs}
        self._given = {cid: v for cid, v in self._given.items() if cid not in dropped}
        self.items = [item for item in self.items if item[0] != path]
        self._pending = sum(len(c) for _, _, c in self.items)
        self._owners = {d: p for d, p in self._owners.items() if p != path}
        self.done.pop(path, None)
        self._written.pop(path, None)
        previous = self._previous.get(path)
        if previous is None:
            previous = self.index.docstore.holds_file(path)
        if path in self.started and not previous:
            self.remove_files([path])
        return previous

    def flush(self) -> int:
        """Write the queued documents and finished files; return how many old chunks they replaced."""
        if not self.items and not self.done:
            return 0
        chunks = [c for _, _, cs in self.items for c in cs]
        vectors = self._vectors(chunks, {c.chunk_id for p, _, cs in self.items if self._previous[p] for c in cs})
        paths = list(dict.fromkeys([p for p, _, _ in self.items] + list(self.done)))
        if vectors and not self._bound:
            self._bind(len(vectors[0]))
            self._bound = True
        with self.index.docstore.transaction() as tx:
            removed = DocStore.drop_chunks_of(tx, [d.doc_id for _, docs, _ in self.items for d in docs])
            DocStore.put_chunks(tx, chunks)
            for path, docs, _ in self.items:
                DocStore.put_documents(tx, path, docs)
                self._written.setdefault(path, set()).update(d.doc_id for d in docs)
            # whole-document entries to rebuild: this batch's documents, and those of a finished file that
            # this run did not write (the ones its new version lacks go); each written one was rebuilt
            # in its own batch already, and rebuilding it again left a deleted copy in Tantivy's counts
            written = set().union(*(self._written.get(p, set()) for p in self.done))
            touched = [d.doc_id for _, docs, _ in self.items for d in docs]
            touched += [d for d in DocStore.file_doc_ids(tx, self.done) if d not in written]
            for record in self.done.values():  # its last document is in: what the new version lacks goes
                removed += DocStore.drop_documents_except(tx, record.path, self._written.pop(record.path, set()))
                DocStore.put_file(tx, record)
            VersionLinker(tx, self._stored_vectors).record(self._per_document(vectors))
            ops = [("doc", doc_id, None) for doc_id in dict.fromkeys(touched)]
            ops += [("del", cid, None) for cid in removed]
            ops += [("add", c.chunk_id, np.ascontiguousarray(v, np.float32).tobytes()) for c, v in zip(chunks, vectors)]
            DocStore.journal(tx, ops)
        self.index.replay()
        self.files_written += len(self.done)
        self.added += len(chunks)
        self.removed += len(removed)
        self.started.update(paths)
        self.items, self.done, self._owners, self._pending, self._given = [], {}, {}, 0, {}
        return len(removed)

    def _per_document(self, vectors: list) -> list[tuple[str, Document, list[Chunk], list]]:
        """The queued documents with their chunks and those chunks' vectors (in queue order)."""
        by_chunk = dict(zip((c.chunk_id for _, _, cs in self.items for c in cs), vectors))
        out = []
        for path, docs, chunks in self.items:
            for doc in docs:
                mine = [c for c in chunks if c.doc_id == doc.doc_id]
                out.append((path, doc, mine, [by_chunk[c.chunk_id] for c in mine]))
        return out

    def _stored_vectors(self, chunk_ids: list[str]) -> dict:
        return self.index.vectors.vectors(chunk_ids) if chunk_ids and "dim" in self.index.manifest() else {}

    def _vectors(self, chunks: list[Chunk], reusable: set[str]) -> list[np.ndarray]:
        """A vector per chunk: the stored one when a re-ingested file still has that chunk ID (the
        ID hashes document, position, title and text, and the index's model is fixed), else the one
        the engine gave, else embedded here."""
        stored = self.index.vectors.vectors(sorted(reusable)) if reusable and "dim" in self.index.manifest() else {}
        self.reused += sum(1 for c in chunks if c.chunk_id in stored)
        known = {**self._given, **stored}
        embedded = iter(self._embed([c for c in chunks if c.chunk_id not in known]))
        return [known[c.chunk_id] if c.chunk_id in known else next(embedded) for c in chunks]

    def _embed(self, chunks: list[Chunk]) -> list[np.ndarray]:
        if not chunks:
            return []
        if self._embedder is None:
            self._embedder = self._get_embedder()
            if self.on_embedded is not None:  # the model is loaded; embedding starts now
                self.on_embedded(self.embedded)
        vectors: list[np.ndarray] = []
        for start in range(0, len(chunks), EMBED_STEP):
            step = chunks[start : start + EMBED_STEP]
            vectors.extend(self._embedder.embed([c.index_text() for c in step]))
            self.embedded += len(step)
            if self.on_embedded is not None:
                self.on_embedded(self.embedded)
        return vectors

    def remove_files(self, paths: list[str]) -> int:
        if not paths:
            return 0
        with self.index.docstore.transaction() as tx:
            gone = DocStore.file_doc_ids(tx, paths)
            removed = DocStore.drop_files(tx, paths)
            DocStore.journal(tx, [("doc", doc_id, None) for doc_id in gone] + [("del", cid, None) for cid in removed])
        self.removed += len(removed)
        if "dim" in self.index.manifest():
            self.index.replay()
        return len(removed)

    def optimize(self) -> None:
        if "dim" in self.index.manifest():
            self.index.vectors.optimize()
