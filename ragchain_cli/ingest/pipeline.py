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
from pathlib import Path

from ..config import DEFAULTS, Settings
from ..errors import IngestInterrupted
from ..stores.docstore import DocStore, FileRecord
from ..stores.embedders import model_reference
from ..stores.index import Index, open_for_writing
from ..stores.shards import in_shard, is_sharded
from ..types import Chunk
from .discover import Found, IgnoreProblem, Unreadable, absolute, discover
from .engines import ENGINES
from .progress import IngestProgress, Tracker
from .tasks import FileTask, IngestOptions, failure_reason, storable
from .sink import IngestReport, Sink, Skipped
from .versions import upgrade_bands
from .writer import BatchWriter

Progress = Callable[[IngestProgress], None]


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


__all__ = ["ingest", "ingest_options", "IngestOptions", "IngestReport", "Skipped", "Sink", "Chunk", "storable"]
