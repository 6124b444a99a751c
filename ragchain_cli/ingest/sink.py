"""What an ingest run reports, and the Sink: where an engine hands each file's documents (the driver,
pipeline.py, owns it; engines.py and ray_engine.py call it)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import LoaderError
from ..stores.docstore import DocStore, FileRecord
from ..types import Chunk, Document
from .progress import Tracker
from .tasks import FileTask, pages_of
from .writer import BatchWriter


@dataclass
class Skipped:
    path: str
    reason: str
    kept_previous: bool = False  # the index still serves the file's last good version


@dataclass
class IngestReport:
    files_seen: int = 0
    files_ingested: int = 0
    files_unchanged: int = 0
    files_removed: int = 0
    documents: int = 0
    pages: int = 0
    chunks_added: int = 0
    chunks_removed: int = 0
    vectors_reused: int = 0
    replayed: int = 0
    upgraded: list[str] = field(default_factory=list)  # Index.upgrade's steps done in this run (an older index)
    skipped: list[Skipped] = field(default_factory=list)
    warnings: list[Skipped] = field(default_factory=list)  # e.g. a .ragchainignore line not applied
    seconds: float = 0.0
    engine: str = "local"
    workers: int = 1  # processes that embedded (ray: the actor pool's size)
    nodes: list[dict] = field(default_factory=list)  # ray: [{"node_id", "chunks", "files"}], who did the work
    shards: list[dict] = field(default_factory=list)  # --shards: each shard's state and counts (stores/shards.py)
    resharded: dict = field(default_factory=dict)  # --shards M on N shards: {"from", "to", "files", "chunks"} moved


class Sink:
    """Where an engine hands each file's documents, in any order across files: checks, queues them
    on the writer, and counts. A file is finished when all its documents are in, or failed."""

    def __init__(self, docstore: DocStore, writer: BatchWriter, report: IngestReport,
                 notes: Tracker | None = None) -> None:
        self.docstore, self.writer, self.report = docstore, writer, report
        self.notes = notes or Tracker(None)
        self.planned: dict[str, FileRecord] = {}  # key -> the record a file gets when complete
        self._handed: dict[str, int] = {}  # key -> documents handed to the writer (kept after finish)
        self._counts: dict[str, list[int]] = {}  # key -> [documents, pages] queued so far

    def document(self, key: str, doc: Document, chunks: list[Chunk],
                 vectors: dict[str, np.ndarray] | None = None) -> None:
        """Queue one document of the file `key` (raises LoaderError when its ID belongs to another file)."""
        owner = self.docstore.doc_owner(doc.doc_id) or self.writer.owner(doc.doc_id)
        if owner is not None and owner != key:
            raise LoaderError(f"document ID {doc.doc_id!r} already comes from {owner}")
        reused = self.writer.reused
        self.writer.add(key, [doc], chunks, vectors)
        self.notes.chunks(len(chunks), doc.read_to)
        if self.writer.reused != reused:  # a batch went out with stored vectors
            self.notes.progress(self.writer.embedded, self.writer.reused)
        if doc.metadata.get("damaged"):  # indexed, but said: a loader read it only in part
            self.report.warnings.append(Skipped(key, doc.metadata["damaged"]))
        self._handed[key] = self._handed.get(key, 0) + 1
        counts = self._counts.setdefault(key, [0, 0])
        counts[0] += 1
        counts[1] += pages_of(doc)

    def documents(self, key: str) -> int:
        return self._counts.get(key, [0, 0])[0]

    def partial(self) -> list[tuple[str, int]]:
        """Files with documents written in this run (searchable) but not complete: (key, documents written)."""
        out = []
        for key in sorted(self.writer.started):
            queued = sum(len(docs) for path, docs, _ in self.writer.items if path == key)
            written = self._handed.get(key, 0) - queued
            if written > 0 and self.docstore.file_record(key) != self.planned.get(key):
                out.append((key, written))
        return out

    def finish(self, task: FileTask) -> None:
        documents, pages = self._counts.pop(task.key, [0, 0])
        self.writer.finish_file(task.record)
        self.report.files_ingested += 1
        self.report.documents += documents
        self.report.pages += pages
        self.notes.closed(task.key, finished=True)

    def fail(self, key: str, reason: str) -> None:
        """Report the file and take back what of it was queued or written in this run; a file the
        index held before keeps its last good version (marked stale)."""
        self._counts.pop(key, None)
        self._handed.pop(key, None)
        kept = self.writer.abandon(key)
        if kept:
            self.docstore.mark_stale(key, reason)
        self.report.skipped.append(Skipped(key, reason, kept_previous=kept))
        self.notes.closed(key, finished=False)
