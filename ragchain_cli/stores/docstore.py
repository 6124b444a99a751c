"""The document store: SQLite holding files, documents, chunks, index metadata and the journal.

It is the source of truth. The lexical and vector indexes hold only chunk IDs and their
representations; the `pending` table lists the operations they still have to apply.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..types import Chunk, Document
from . import versions

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY, content_hash TEXT NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    doc_id TEXT PRIMARY KEY, file_path TEXT NOT NULL, source TEXT NOT NULL,
    title TEXT NOT NULL, date TEXT, metadata TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS documents_file ON documents(file_path);
CREATE TABLE IF NOT EXISTS chunks (
    chunk_id TEXT PRIMARY KEY, doc_id TEXT NOT NULL, ordinal INTEGER NOT NULL, text TEXT NOT NULL,
    page INTEGER, section TEXT NOT NULL, start INTEGER NOT NULL, end INTEGER NOT NULL, ocr TEXT);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id);
CREATE TABLE IF NOT EXISTS stale (path TEXT PRIMARY KEY, reason TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS pending (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, op TEXT NOT NULL, chunk_id TEXT NOT NULL, vector BLOB);
"""

WRITER_CACHE_KIB = 65536  # the writer's page cache: a batch's inserts land all over the chunk and band indexes

CHUNK_COLUMNS = (
    "c.chunk_id, c.doc_id, c.text, d.source, c.ordinal, c.page, c.section, c.start, c.end, d.title, d.date, c.ocr"
)


@dataclass(frozen=True)
class FileRecord:
    path: str
    content_hash: str
    size: int
    mtime_ns: int


@dataclass(frozen=True)
class PendingOp:
    seq: int
    op: str
    chunk_id: str
    vector: bytes | None


class DocStore:
    def __init__(self, path: Path, readonly: bool = False) -> None:
        uri = f"file:{path}?mode=ro" if readonly else f"file:{path}"
        self.conn = sqlite3.connect(uri, uri=True, timeout=30.0, isolation_level=None, check_same_thread=False)
        self.conn.execute("PRAGMA busy_timeout = 30000")
        if not readonly:
            self.conn.execute("PRAGMA journal_mode = WAL")
            self.conn.execute("PRAGMA synchronous = NORMAL")
            self.conn.execute(f"PRAGMA cache_size = -{WRITER_CACHE_KIB}")
            self.conn.executescript(SCHEMA + versions.SCHEMA)

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    # -- metadata -----------------------------------------------------------------------
    def get_meta(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT key, value FROM meta"))

    def set_meta(self, values: dict[str, str]) -> None:
        with self.transaction() as tx:
            tx.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", values.items())

    # -- files ----------------------------------------------------------------------------
    def file_record(self, path: str) -> FileRecord | None:
        row = self.conn.execute("SELECT * FROM files WHERE path = ?", (path,)).fetchone()
        return FileRecord(*row) if row else None

    def file_paths(self) -> list[str]:
        """Every file the index holds anything of: recorded files, and files whose documents were
        written in part by an ingest that died before their last batch (no record yet)."""
        rows = self.conn.execute("SELECT path FROM files UNION SELECT DISTINCT file_path FROM documents")
        return [row[0] for row in rows]

    def forget_contents(self, meta: dict[str, str]) -> None:
        """Make every recorded file look changed (size, time and hash unknown), so that its next
        ingest reads it again, and record `meta` in the same transaction."""
        with self.transaction() as tx:
            tx.execute("UPDATE files SET content_hash = '', mtime_ns = -1")
            tx.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", meta.items())

    def touch_file(self, record: FileRecord) -> None:
        with self.transaction() as tx:
            DocStore.put_file(tx, record)

    def mark_stale(self, path: str, reason: str) -> None:
        """The file's new version failed to load: what the index holds of it is its last good version."""
        with self.transaction() as tx:
            tx.execute("INSERT OR REPLACE INTO stale VALUES (?, ?)", (path, reason))

    def stale_files(self) -> dict[str, str]:
        """path -> why its current version could not be ingested (the index serves an older one)."""
        return dict(self.conn.execute("SELECT path, reason FROM stale ORDER BY path"))

    def holds_file(self, path: str) -> bool:
        """Whether any document of this file is stored (a complete file, or part of one)."""
        row = self.conn.execute("SELECT 1 FROM documents WHERE file_path = ? LIMIT 1", (path,)).fetchone()
        return row is not None

    def file_chunk_ids(self, path: str) -> set[str]:
        """The chunk IDs of the file's stored documents (whose vectors a re-ingest can keep)."""
        rows = self.conn.execute(
            "SELECT c.chunk_id FROM chunks c JOIN documents d ON c.doc_id = d.doc_id WHERE d.file_path = ?", (path,))
        return {row[0] for row in rows}

    def doc_owner(self, doc_id: str) -> str | None:
        row = self.conn.execute("SELECT file_path FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()
        return row[0] if row else None

    # -- writes (inside a transaction opened by the caller) -------------------------------
    @staticmethod
    def drop_files(tx: sqlite3.Connection, paths: Iterable[str]) -> list[str]:
        """Delete the files' documents and chunks; return the removed chunk IDs."""
        removed: list[str] = []
        for path in paths:
            versions.forget(tx, [row[0] for row in tx.execute("SELECT doc_id FROM documents WHERE file_path = ?",
                                                              (path,))])
            rows = tx.execute(
                "SELECT c.chunk_id FROM chunks c JOIN documents d ON c.doc_id = d.doc_id WHERE d.file_path = ?",
                (path,),
            ).fetchall()
            removed.extend(row[0] for row in rows)
            tx.execute(
                "DELETE FROM chunks WHERE doc_id IN (SELECT doc_id FROM documents WHERE file_path = ?)", (path,)
            )
            tx.execute("DELETE FROM documents WHERE file_path = ?", (path,))
            tx.execute("DELETE FROM files WHERE path = ?", (path,))
            tx.execute("DELETE FROM stale WHERE path = ?", (path,))
        return removed

    @staticmethod
    def drop_chunks_of(tx: sqlite3.Connection, doc_ids: Iterable[str]) -> list[str]:
        """Delete these documents' chunks (the documents are being written again); return their IDs."""
        removed: list[str] = []
        ids = list(doc_ids)
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            marks = ",".join("?" * len(part))
            removed += [row[0] for row in tx.execute(f"SELECT chunk_id FROM chunks WHERE doc_id IN ({marks})", part)]
            tx.execute(f"DELETE FROM chunks WHERE doc_id IN ({marks})", part)
        return removed

    @staticmethod
    def drop_documents_except(tx: sqlite3.Connection, path: str, keep: set[str]) -> list[str]:
        """Delete the file's documents that are not in `keep` (gone from its new version), with their
        chunks; return the removed chunk IDs."""
        gone = [row[0] for row in tx.execute("SELECT doc_id FROM documents WHERE file_path = ?", (path,))
                if row[0] not in keep]
        versions.forget(tx, gone)
        removed = DocStore.drop_chunks_of(tx, gone)
        for start in range(0, len(gone), 500):
            part = gone[start : start + 500]
            tx.execute(f"DELETE FROM documents WHERE doc_id IN ({','.join('?' * len(part))})", part)
        return removed

    @staticmethod
    def file_doc_ids(tx: sqlite3.Connection, paths: Iterable[str]) -> list[str]:
        """The IDs of the documents these files hold now."""
        return [row[0] for path in paths for row in tx.execute("SELECT doc_id FROM documents WHERE file_path = ?",
                                                               (path,))]

    @staticmethod
    def put_documents(tx: sqlite3.Connection, file_path: str, docs: Iterable[Document]) -> None:
        tx.executemany(
            "INSERT OR REPLACE INTO documents VALUES (?, ?, ?, ?, ?, ?)",
            [(d.doc_id, file_path, d.source, d.title, d.date, json.dumps(d.metadata)) for d in docs],
        )

    @staticmethod
    def put_chunks(tx: sqlite3.Connection, chunks: Iterable[Chunk]) -> None:
        tx.executemany(
            "INSERT OR REPLACE INTO chunks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (c.chunk_id, c.doc_id, c.ordinal, c.text, c.page, c.section, c.start, c.end, c.ocr)
                for c in chunks
            ],
        )

    @staticmethod
    def put_file(tx: sqlite3.Connection, record: FileRecord) -> None:
        tx.execute("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?)", _record_row(record))
        tx.execute("DELETE FROM stale WHERE path = ?", (record.path,))

    @staticmethod
    def journal(tx: sqlite3.Connection, ops: Iterable[tuple[str, str, bytes | None]]) -> None:
        tx.executemany("INSERT INTO pending (op, chunk_id, vector) VALUES (?, ?, ?)", ops)

    # -- journal --------------------------------------------------------------------------
    def pending(self) -> list[PendingOp]:
        return [PendingOp(*row) for row in self.conn.execute("SELECT * FROM pending ORDER BY seq")]

    def pending_count(self) -> int:
        return self.conn.execute("SELECT COUNT(*) FROM pending").fetchone()[0]

    def clear_pending(self, up_to_seq: int) -> None:
        with self.transaction() as tx:
            tx.execute("DELETE FROM pending WHERE seq <= ?", (up_to_seq,))

    # -- reads ----------------------------------------------------------------------------
    def chunks(self, chunk_ids: list[str]) -> dict[str, Chunk]:
        found: dict[str, Chunk] = {}
        for start in range(0, len(chunk_ids), 500):
            part = chunk_ids[start : start + 500]
            marks = ",".join("?" * len(part))
            sql = f"SELECT {CHUNK_COLUMNS} FROM chunks c JOIN documents d ON c.doc_id = d.doc_id "
            for row in self.conn.execute(sql + f"WHERE c.chunk_id IN ({marks})", part):
                found[row[0]] = Chunk(*row)
        return found

    def doc_ids(self, chunk_ids: list[str]) -> dict[str, str]:
        """chunk_id -> doc_id, without reading chunk text (cheap for a thousand candidates)."""
        found: dict[str, str] = {}
        for start in range(0, len(chunk_ids), 500):
            part = chunk_ids[start : start + 500]
            sql = f"SELECT chunk_id, doc_id FROM chunks WHERE chunk_id IN ({','.join('?' * len(part))})"
            found.update(self.conn.execute(sql, part).fetchall())
        return found

    def document_texts(self, doc_ids: list[str]) -> dict[str, str]:
        """doc_id -> title and the document's text rebuilt from its chunks (the overlap of
        neighbouring chunks of one block counted once), for the whole-document lexical index."""
        texts: dict[str, str] = {}
        for start in range(0, len(doc_ids), 500):
            part = doc_ids[start : start + 500]
            marks = ",".join("?" * len(part))
            for doc_id, title in self.conn.execute(f"SELECT doc_id, title FROM documents WHERE doc_id IN ({marks})",
                                                   part):
                texts[doc_id] = title
            rows = self.conn.execute(f"SELECT doc_id, text, start, end FROM chunks WHERE doc_id IN ({marks}) "
                                     "ORDER BY doc_id, ordinal", part)
            previous: tuple[str, int, int] = ("", 0, 0)
            for doc_id, text, begin, end in rows:
                same_block = previous[0] == doc_id and previous[1] < begin < previous[2]
                texts[doc_id] += text[previous[2] - begin :] if same_block else "\n" + text
                previous = (doc_id, begin, end)
        return {doc_id: text.strip() for doc_id, text in texts.items()}

    def first_chunk_ids(self, doc_ids: list[str]) -> dict[str, str]:
        """doc_id -> the chunk_id of its first chunk (lowest ordinal), for the documents held."""
        found: dict[str, str] = {}
        for start in range(0, len(doc_ids), 500):
            part = doc_ids[start : start + 500]
            sql = (f"SELECT doc_id, chunk_id FROM chunks WHERE doc_id IN ({','.join('?' * len(part))}) "
                   "ORDER BY doc_id, ordinal DESC")
            found.update(self.conn.execute(sql, part).fetchall())  # the last row of a doc (lowest ordinal) wins
        return found

    def document_ids(self) -> set[str]:
        return {row[0] for row in self.conn.execute("SELECT doc_id FROM documents")}

    def chunk_ids(self) -> set[str]:
        return {row[0] for row in self.conn.execute("SELECT chunk_id FROM chunks")}

    def grouped_rows(self, doc_ids: list[str] | None = None) -> dict[str, list[tuple]]:
        """Rows of version-grouped documents, to copy into a sharded index's version view: their
        version_docs rows (doc_ids None: this store's own groups; else none), documents and chunks."""
        rows = {"version_docs": self.conn.execute("SELECT * FROM version_docs WHERE group_id IS NOT NULL").fetchall()
                if doc_ids is None else []}
        ids = [row[0] for row in rows["version_docs"]] if doc_ids is None else doc_ids
        for table in ("documents", "chunks"):
            rows[table] = [row for start in range(0, len(ids), 500) for row in self.conn.execute(
                f"SELECT * FROM {table} WHERE doc_id IN ({','.join('?' * len(ids[start:start + 500]))})",
                ids[start : start + 500])]
        return rows

    def counts(self) -> dict[str, int]:
        tables = ("files", "documents", "chunks", "pending")
        return {t: self.conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in tables}


def _record_row(record: FileRecord) -> tuple:
    return (record.path, record.content_hash, record.size, record.mtime_ns)
