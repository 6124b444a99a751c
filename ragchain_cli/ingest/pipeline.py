"""`ragchain ingest`: discover -> load -> chunk -> embed -> write (docstore, Tantivy, LanceDB)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import IngestInterrupted, LoaderError
from ..stores.docstore import DocStore, FileRecord
from ..stores.embedders import load_embedder, model_reference, tokenizer_file
from ..stores.index import Index
from ..types import Chunk, Document
from .chunking import Chunker, ChunkSettings
from .discover import Found, IgnoreProblem, Unreadable, absolute, discover
from .loaders import LoadOptions, iter_load
from .writer import BatchWriter

Progress = Callable[[int, int, str], None]
NOTE_EVERY = 100  # documents between progress notes inside one file


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
    skipped: list[Skipped] = field(default_factory=list)
    warnings: list[Skipped] = field(default_factory=list)  # e.g. a .ragchainignore line not applied
    seconds: float = 0.0


@dataclass
class IngestOptions:
    embed_model: str
    chunk_size: int = 200
    chunk_overlap: int = 40
    pdf_password: str = ""
    ocr: str = "auto"
    nougat_model: str = ""
    batch_chunks: int = 1024
    wait: bool = False


def file_hash(path: Path) -> str:
    digest = hashlib.blake2b(digest_size=20)
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def ingest(index: Index, paths: list[Path], options: IngestOptions, progress: Progress | None = None) -> IngestReport:
    report = IngestReport()
    started = time.perf_counter()
    options = dataclasses.replace(options, embed_model=model_reference(options.embed_model))
    index.require({"embed_model": options.embed_model, "chunk_size": str(options.chunk_size),
                   "chunk_overlap": str(options.chunk_overlap)})
    with index.write_lock(wait=options.wait):
        report.replayed = index.replay()
        index.backfill_documents()
        notes = _Notes(progress)
        writer = BatchWriter(index, lambda: _bind(index, options), options.batch_chunks, notes.embedded)
        try:
            found = _collect(paths, report)
            notes.total = len(found)
            _write_all(index, writer, found, paths, options, report, notes)
        except KeyboardInterrupt:
            raise _interrupted(writer, report) from None
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def _write_all(index, writer, found: list[Found], paths, options, report: IngestReport, notes) -> None:
    gone = _gone(index.docstore, paths, {storable(str(f.path)) for f in found})
    writer.remove_files(gone)
    report.files_removed = len(gone)
    chunker = Chunker(tokenizer_file(options.embed_model), ChunkSettings(options.chunk_size, options.chunk_overlap))
    for done, item in enumerate(found, start=1):
        notes.file(done, str(item.path))
        _ingest_file(index, writer, chunker, item, options, report, notes.documents if notes.progress else None)
    writer.flush()
    report.chunks_added, report.chunks_removed = writer.added, writer.removed
    report.vectors_reused = writer.reused
    if writer.added or gone:
        writer.optimize()


def _interrupted(writer, report: IngestReport) -> IngestInterrupted:
    kept = writer.files_written + report.files_unchanged
    return IngestInterrupted(
        f"ingest interrupted: {kept} file(s) are complete in the index ({writer.files_written} written in this "
        f"run, {report.files_unchanged} unchanged); files not finished keep their previous version, if any",
        "run the same `ragchain ingest` again: it resumes, skipping the files that are complete")


class _Notes:
    """Progress for people: the file being read, documents read inside it, chunks embedded so far."""

    def __init__(self, progress: Progress | None) -> None:
        self.progress, self.total = progress, 0
        self.done, self.path = 0, ""

    def file(self, done: int, path: str) -> None:
        self.done, self.path = done, path
        self._send(path)

    def documents(self, documents: int) -> None:
        self._send(f"{self.path} ({documents:,} documents)")

    def embedded(self, chunks: int) -> None:
        self._send(f"{self.path} ({chunks:,} chunks embedded)")

    def _send(self, text: str) -> None:
        if self.progress is not None:
            self.progress(self.done, self.total, text)


def _bind(index: Index, options: IngestOptions):
    embedder = load_embedder(options.embed_model)
    index.bind(options.embed_model, embedder.dim, options.chunk_size, options.chunk_overlap)
    return embedder


def _collect(paths: list[Path], report: IngestReport) -> list[Found]:
    found = []
    for item in discover(paths):
        if isinstance(item, Unreadable):
            report.skipped.append(Skipped(storable(item.path), item.reason))
        elif isinstance(item, IgnoreProblem):
            report.warnings.append(Skipped(storable(item.path), item.reason))
        else:
            found.append(item)
    report.files_seen = len(found)
    return found


def _gone(docstore: DocStore, paths: list[Path], present: set[str]) -> list[str]:
    """Recorded files below the ingested paths that are no longer there (roots in the form the
    files were stored under: absolute, symbolic links kept)."""
    roots = [str(absolute(p)) for p in paths]
    below = [p for p in docstore.file_paths() if any(p == r or p.startswith(r.rstrip("/") + "/") for r in roots)]
    return [p for p in below if p not in present and not Path(p).exists()]


def _ingest_file(index, writer, chunker, item: Found, options, report: IngestReport, note=None) -> None:
    key = storable(str(item.path))
    try:
        fresh = _changed(index.docstore, item.path, key)
        if fresh is None:
            report.files_unchanged += 1
            return
        counts = _stream_file(index, writer, chunker, item, options, fresh, note)
    except (LoaderError, OSError) as exc:
        reason = exc.message if isinstance(exc, LoaderError) else exc.strerror or str(exc)
        kept = writer.abandon(key)
        if kept:
            index.docstore.mark_stale(key, reason)
        report.skipped.append(Skipped(key, reason, kept_previous=kept))
        return
    report.files_ingested += 1
    report.documents += counts[0]
    report.pages += counts[1]


def _changed(docstore: DocStore, path: Path, key: str) -> FileRecord | None:
    """The file's new record, or None when it is unchanged (same size and mtime, or same content)."""
    stat = path.stat()
    record = docstore.file_record(key)
    if record and (record.size, record.mtime_ns) == (stat.st_size, stat.st_mtime_ns):
        return None
    fresh = FileRecord(key, file_hash(path), stat.st_size, stat.st_mtime_ns)
    if record and record.content_hash == fresh.content_hash:
        docstore.touch_file(fresh)
        return None
    return fresh


def _stream_file(index, writer, chunker, item: Found, options, fresh: FileRecord,
                 note: Callable[[int], None] | None = None) -> tuple[int, int]:
    """Load, chunk and queue the file a document at a time; return (documents, pages).
    `note(documents)` reports progress inside a file of many documents."""
    seconds = fresh.mtime_ns // 1_000_000_000  # the stat _changed() took; no second one
    mtime = dt.datetime.fromtimestamp(seconds, dt.timezone.utc).isoformat()
    load_options = LoadOptions(options.pdf_password, options.ocr, fallback_date=mtime,
                               nougat_model=options.nougat_model)
    documents = pages = 0
    for loaded in iter_load(item.path, item.doc_id, load_options):
        doc = _storable_document(loaded)
        _check_owners(index.docstore, writer, [doc], fresh.path)
        writer.add(fresh.path, [doc], chunker.chunk(doc))
        documents += 1
        if note and documents % NOTE_EVERY == 0:
            note(documents)
        pages += len({b.page for b in doc.blocks if b.page is not None})
    writer.finish_file(fresh)
    return documents, pages


_SURROGATE = re.compile("[\ud800-\udfff]")


def storable(text: str) -> str:
    """Text that SQLite, Tantivy and JSON accept. Lone surrogates (the undecodable bytes of a
    non-UTF-8 file name, or a \\udXXX escape in a JSON document) would make SQLite refuse the
    whole batch; they become visible escapes: byte 0xff of a name is written \\xff."""
    if not _SURROGATE.search(text):
        return text

    def escape(match: re.Match) -> str:
        code = ord(match.group())
        return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"

    return _SURROGATE.sub(escape, text)


def _storable_document(doc: Document) -> Document:
    """The loader's document with every text field storable and a date that is text or None."""
    date = doc.date
    if not (date is None or isinstance(date, str)):
        date = str(date) if isinstance(date, (int, float)) and not isinstance(date, bool) else None
    blocks = tuple(dataclasses.replace(b, text=storable(b.text), section=storable(b.section)) for b in doc.blocks)
    return dataclasses.replace(doc, doc_id=storable(doc.doc_id), source=storable(doc.source), blocks=blocks,
                               title=storable(doc.title), date=date)


def _check_owners(docstore: DocStore, writer, docs: list[Document], path: str) -> None:
    for doc in docs:
        owner = docstore.doc_owner(doc.doc_id) or writer.owner(doc.doc_id)
        if owner is not None and owner != path:
            raise LoaderError(f"document ID {doc.doc_id!r} already comes from {owner}")


__all__ = ["ingest", "IngestOptions", "IngestReport", "Skipped", "Chunk"]
