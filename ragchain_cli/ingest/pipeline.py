"""`ragchain ingest`: discover -> decide -> load, chunk, embed (an engine) -> write (docstore, Tantivy,
LanceDB).

The driver (this module) does everything that touches the index, whatever the engine: the lock,
the journal replay, discovery, content hashes and the skip/replace/delete decisions, and the
writes (a Sink in front of the BatchWriter). An engine (engines.py: `local` in this process,
`ray` on a Ray cluster) turns the files to (re)ingest into documents with their chunks, and
possibly their vectors, and hands them to the Sink.
"""

from __future__ import annotations

import bisect
import dataclasses
import hashlib
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..config import DEFAULTS, Settings
from ..errors import IngestInterrupted, LoaderError
from ..stores.docstore import DocStore, FileRecord
from ..stores.embedders import model_reference
from ..stores.index import Index, open_for_writing
from ..stores.shards import in_shard, is_sharded
from ..types import Chunk, Document
from .discover import Found, IgnoreProblem, Unreadable, absolute, discover
from .engines import ENGINES
from .progress import IngestProgress, Tracker
from .tasks import FileTask, IngestOptions, failure_reason, pages_of, storable
from .versions import upgrade_bands
from .writer import BatchWriter

Progress = Callable[[IngestProgress], None]


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


def ingest_options(settings: Settings | None = None, **overrides) -> IngestOptions:
    """IngestOptions from Settings (the CLI, bench/ and tests share these defaults), with the OCR
    backends' options from ragchain.toml's [ocr] tables; `overrides` set the options Settings does
    not hold (pdf_password, nougat_model, batch_chunks, wait)."""
    from .ocr import OCR_BACKENDS, OcrMode

    settings = settings or Settings()
    tables = {name: settings.options_for("ocr", name) for name in OCR_BACKENDS.names()} if settings.components else {}
    model = settings.embed_model if "embed_model" in settings.given else ""  # "": the index's own, if it has one
    options = IngestOptions(embed_model=model, chunk_size=settings.chunk_size,
                            chunk_overlap=settings.chunk_overlap, ocr=OcrMode(settings.ocr, **tables),
                            engine=settings.engine, ray_address=settings.ray_address, workers=settings.workers)
    options = dataclasses.replace(options, **overrides)
    return dataclasses.replace(options, ocr=OcrMode(options.ocr, nougat={"model": options.nougat_model}))


def file_hash(path: Path) -> str:
    digest = hashlib.blake2b(digest_size=20)
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def ingest_into(root: Path, paths: list[Path], options: IngestOptions,
                progress: Progress | None = None, shards: int | None = None) -> IngestReport:
    """`ragchain ingest` as a library call: the index at `root` (created when there is none; a new
    one that nothing could be written into is removed again), updated from `paths`. With `shards`
    (`--shards N`), or when `root` is a sharded index (stores/shards.py), it is updated shard by shard
    (ingest/sharded.py; `progress` is not called): a new one gets `shards` shards, an existing one
    keeps its own, or with another count is re-sharded first (ingest/reshard.py)."""
    if shards is not None or is_sharded(root):
        from .sharded import ingest_sharded

        return ingest_sharded(root, paths, options, shards)
    with open_for_writing(root) as index:
        return ingest(index, paths, options, progress)


def ingest(index: Index, paths: list[Path], options: IngestOptions, progress: Progress | None = None) -> IngestReport:
    """Update an open index from `paths`. Without an embedding model in `options` (""), the one the
    index was built with, or the default for a new index."""
    report = IngestReport(engine=options.engine)
    started = time.perf_counter()
    model = options.embed_model or index.manifest().get("embed_model") or DEFAULTS.embed_model
    options = dataclasses.replace(options, embed_model=model_reference(model))
    engine = ENGINES.create(options.engine, options=options)  # a missing engine fails before the lock
    index.require({"embed_model": options.embed_model, "chunk_size": str(options.chunk_size),
                   "chunk_overlap": str(options.chunk_overlap)})
    with index.write_lock(wait=options.wait):
        report.upgraded = [step for step, done in index.upgrade().items() if done]
        report.replayed = index.replay()
        index.backfill_documents()
        upgrade_bands(index.docstore)
        notes = Tracker(progress)
        writer = BatchWriter(index, _embedder_loader(options, notes.say), _binder(index, options),
                             options.batch_chunks, notes.embedded_so_far)  # no reference back to the writer
        sink = Sink(index.docstore, writer, report, notes)
        try:
            found, unreadable = _collect(paths, report, options)
            notes.found([_size(f.path) for f in found])
            _write_all(index, writer, engine, found, unreadable, paths, sink)
        except KeyboardInterrupt:
            raise _interrupted(writer, report, sink.partial()) from None
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def _write_all(index, writer, engine, found: list[Found], unreadable: list[Unreadable], paths,
               sink: "Sink") -> None:
    report, notes = sink.report, sink.notes
    gone = _gone(index.docstore, paths, {storable(str(f.path)) for f in found})
    writer.remove_files(gone)
    report.files_removed = len(gone)
    report.skipped += _not_read(index.docstore, unreadable)
    engine.run(_plan(index.docstore, found, sink, notes), sink, lambda done, _total, path: notes.file(done, path))
    writer.flush()
    report.chunks_added, report.chunks_removed = writer.added, writer.removed
    report.vectors_reused = writer.reused
    if writer.added or gone:
        writer.optimize()


SHOWN_PARTIAL = 5


def _interrupted(writer, report: IngestReport, partial: list[tuple[str, int]]) -> IngestInterrupted:
    """What the index holds now, said exactly: complete files, and the unfinished files whose
    first batches are already written (searchable and counted by `status`), by name."""
    kept = writer.files_written + report.files_unchanged
    message = (f"ingest interrupted: {kept} file(s) are complete in the index ({writer.files_written} written in "
               f"this run, {report.files_unchanged} unchanged)")
    if partial:
        named = ", ".join(f"{path} ({documents:,} document{'s' if documents != 1 else ''})" for path, documents in partial[:SHOWN_PARTIAL])
        more = f" and {len(partial) - SHOWN_PARTIAL} more" if len(partial) > SHOWN_PARTIAL else ""
        message += (f"; {len(partial)} file(s) not finished are already searchable in part: {named}{more}"
                    " (the rest of each is not in the index yet)")
    message += "; the other files not finished keep their previous version, if any"
    return IngestInterrupted(message, "run the same `ragchain ingest` again: it resumes, skipping the files that "
                             "are complete, and completes the ones in part")


def _embedder_loader(options: IngestOptions, say: Callable[[str], None]) -> Callable:
    def load():
        from ..stores.embedders import load_embedder

        say(f"loading {options.embed_model.rsplit('/', 1)[-1]} ...")  # the embedding model, with torch: seconds
        return load_embedder(options.embed_model)

    return load


def _binder(index: Index, options: IngestOptions) -> Callable[[int], None]:
    """Record (or check) the settings that build the index, once the vectors' dimension is known."""
    def bind(dim: int) -> None:
        from ..stores.embedders import load_embedder, matching_query_encoder

        encoder = matching_query_encoder(options.embed_model, load_embedder(options.embed_model))
        index.bind(options.embed_model, dim, options.chunk_size, options.chunk_overlap, encoder)

    return bind


def _collect(paths: list[Path], report: IngestReport, options: IngestOptions) -> tuple[list[Found], list[Unreadable]]:
    """The files found below `paths` (of a sharded index: those of this shard), and the paths found
    but not read (a FIFO, a folder without permission, a broken link); ignore-file problems reported."""
    found, unreadable = [], []
    for item in discover(paths, options.base):
        if isinstance(item, Found) and not in_shard(item.doc_id, options.shard):
            continue
        if isinstance(item, Unreadable):
            unreadable.append(item)
        elif isinstance(item, IgnoreProblem):
            report.warnings.append(Skipped(storable(item.path), item.reason))
        else:
            found.append(item)
    report.files_seen = len(found)
    return found, unreadable


def _gone(docstore: DocStore, paths: list[Path], present: set[str]) -> list[str]:
    """Recorded files below the ingested paths that are no longer there (roots in the form the
    files were stored under: absolute, symbolic links kept). A file that is there but cannot be
    read (a FIFO now, no permission) is not gone: it keeps its last good version (_not_read)."""
    roots = [str(absolute(p)) for p in paths]
    below = [p for p in docstore.file_paths() if any(p == r or p.startswith(r.rstrip("/") + "/") for r in roots)]
    return [p for p in below if p not in present and not _there(p)]


def _there(path: str) -> bool:
    """Whether a file is still there, readable or not: only "no such file" says it is gone (a name
    that cannot be looked up, in a folder without permission or through a loop of links, may be there)."""
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True
    return True


def _not_read(docstore: DocStore, unreadable: list[Unreadable]) -> list[Skipped]:
    """Each path found but not read, reported once with its reason; what the index holds of it (the
    file, or the files below a folder) stays, marked stale, and the report says so (kept_previous).
    Called after the gone files are removed: what the index still holds is what it keeps."""
    held = sorted(docstore.file_paths()) if unreadable else []
    skipped = []
    for item in unreadable:
        kept = _at_or_below(held, storable(str(absolute(item.path))))
        for path in kept:
            docstore.mark_stale(path, item.reason)
        skipped.append(Skipped(storable(item.path), item.reason, kept_previous=bool(kept)))
    return skipped


def _at_or_below(held: list[str], key: str) -> list[str]:
    """The paths of the sorted `held` that are `key` or below it (those starting with `key` are together)."""
    found, at = [], bisect.bisect_left(held, key)
    while at < len(held) and held[at].startswith(key):
        if held[at] == key or held[at].startswith(key.rstrip("/") + "/"):
            found.append(held[at])
        at += 1
    return found


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _plan(docstore: DocStore, found: list[Found], sink: "Sink", notes: Tracker) -> Iterator[FileTask]:
    """The files to (re)ingest, decided one at a time (lazily: the local engine loads each file
    right after its decision). Progress names every file considered and counts its bytes."""
    for done, item in enumerate(found, start=1):
        label, key = str(item.path), storable(str(item.path))
        notes.file(done, label)
        try:
            fresh = _changed(docstore, item.path, key)
        except OSError as exc:
            sink.fail(key, failure_reason(exc))
            continue
        if fresh is None:
            sink.report.files_unchanged += 1
            notes.unchanged(_size(item.path))
        else:
            notes.opened(key, fresh.size)
            sink.planned[key] = fresh
            yield FileTask(label, item.doc_id, fresh)


def _changed(docstore: DocStore, path: Path, key: str) -> FileRecord | None:
    """The file's new record, or None when its content is unchanged. The content hash decides, not
    size and mtime: an edit that keeps the size ("2021" -> "2025") within the file system's mtime
    resolution, or with its mtime set back (a copy, a checkout, a restore), is still an edit."""
    stat = path.stat()
    record = docstore.file_record(key)
    fresh = FileRecord(key, file_hash(path), stat.st_size, stat.st_mtime_ns)
    if record and record.content_hash == fresh.content_hash:
        if (record.size, record.mtime_ns) != (fresh.size, fresh.mtime_ns):
            docstore.touch_file(fresh)
        return None
    return fresh


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


__all__ = ["ingest", "ingest_options", "IngestOptions", "IngestReport", "Skipped", "Sink", "Chunk", "storable"]
