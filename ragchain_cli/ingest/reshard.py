"""Re-sharding: `ragchain ingest PATH --shards M` on an index built with N shards moves every stored
file (its documents, chunks and their vectors) into a new layout of M shards, loading and embedding
nothing again; then the usual sharded ingest (sharded.py) runs over the new layout.

    1. shard folders that no manifest names (left by a killed re-sharding) are removed
    2. each old shard's journal is replayed, so LanceDB holds every stored vector
    3. each new shard (INDEX/shard-000-of-00M ...) is written by the ordinary writer (docstore and
       journal, Tantivy, LanceDB, version links) from the stored rows, with their vectors: a file
       goes to the shard its document ID hashes to, as an ingest places it (its path relative to
       the working directory, or to the parent of the path given that holds it: discover.py)
    4. the manifest names the new shards (replaced in one step: a reader sees the old layout or the new)
    5. the old shards' folders are removed (sharded.py, once the ingest over the new layout is done)

A kill before 4 leaves the old layout, which still answers, and the new folders to step 1 of the next
run; a kill after 4 leaves the new layout and the old folders to step 1. A file that no path given to
this ingest holds is placed by its path relative to the working directory; should that differ from
where the ingest over the new layout looks for it, that ingest moves it by loading it again.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from ..stores.docstore import FileRecord
from ..stores.index import Index, open_for_writing, opened_if_any
from ..stores.shards import ShardManifest, ShardState, shard_of
from ..types import Document
from .discover import absolute, doc_id_for
from .tasks import IngestOptions
from .writer import BatchWriter

_SHARD_FOLDER = re.compile(r"shard-\d{3}(-of-\d{3})?")
DOCS_PER_ADD = 200  # documents of one file read and handed to the writer at a time


def remove_strays(root: Path, manifest: ShardManifest) -> list[str]:
    """Remove the shard folders under `root` that the manifest does not name; their names."""
    named = {state.name for state in manifest.shards}
    strays = sorted(p.name for p in Path(root).iterdir()
                    if p.is_dir() and _SHARD_FOLDER.fullmatch(p.name) and p.name not in named)
    for name in strays:
        shutil.rmtree(Path(root) / name)
    return strays


def reshard(root: Path, old: ShardManifest, count: int, paths: list[Path], options: IngestOptions) -> tuple[ShardManifest, dict]:
    """Write the files of `old`'s shards into `count` new shards and switch the manifest to them;
    (the new manifest, what moved)."""
    from .pipeline import _binder, _embedder_loader

    new = ShardManifest(count, dict(old.settings),
                        [ShardState(f"shard-{i:03d}-of-{count:03d}") for i in range(count)])
    sources = [index for index in map(opened_if_any, old.folders(root)) if index is not None]  # shards that hold anything
    moved = {"from": old.count, "to": count, "files": 0, "chunks": 0}
    try:
        for source in sources:
            with source.write_lock(wait=options.wait):
                source.replay()
        where = _placement(sources, paths, options.base, count)
        for number, folder in enumerate(new.folders(root)):
            with open_for_writing(folder) as index, index.write_lock(wait=options.wait):
                writer = BatchWriter(index, _embedder_loader(options, lambda _: None), _binder(index, options),
                                     options.batch_chunks)
                for source, files in where[number]:
                    for path, record in files:
                        _move(source, path, record, writer)
                writer.flush()
                writer.optimize()
                moved["files"] += writer.files_written
                moved["chunks"] += writer.added
    finally:
        for source in sources:
            source.close()
    new.write(root)
    return new, moved


Placed = list[tuple[Index, list[tuple[str, FileRecord | None]]]]


def _placement(sources: list[Index], paths: list[Path], base: str, count: int) -> list[Placed]:
    """For each new shard: (old shard, the files that go to it, each with its record) for every old
    shard (a file an ingest killed mid-way wrote in part has no record: the next ingest redoes it)."""
    roots = [absolute(p) for p in paths]
    cwd = Path(base).resolve() if base else Path.cwd().resolve()
    where: list[Placed] = [[(s, []) for s in sources] for _ in range(count)]
    for position, source in enumerate(sources):
        for path in source.docstore.file_paths():
            number = shard_of(_document_id(Path(path), roots, cwd), count)
            where[number][position][1].append((path, source.docstore.file_record(path)))
    return where


def _document_id(path: Path, roots: list[Path], cwd: Path) -> str:
    """The document ID discovery gives the file (discover.doc_id_for), from the given path holding it."""
    for root in roots:
        if path == root or root in path.parents:
            return doc_id_for(path, root, cwd)
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return path.as_posix()


def _move(source: Index, path: str, record: FileRecord | None, writer: BatchWriter) -> None:
    """One stored file, its documents a few hundred at a time, with their chunks and vectors."""
    rows = source.docstore.conn.execute("SELECT doc_id, source, title, date, metadata FROM documents "
                                        "WHERE file_path = ? ORDER BY rowid", (path,)).fetchall()
    for start in range(0, len(rows), DOCS_PER_ADD):
        part = rows[start : start + DOCS_PER_ADD]
        docs = [Document(doc_id, src, (), title, date, json.loads(metadata)) for doc_id, src, title, date, metadata in part]
        ids = [row[0] for row in source.docstore.conn.execute(
            f"SELECT chunk_id FROM chunks WHERE doc_id IN ({','.join('?' * len(part))}) ORDER BY doc_id, ordinal",
            [row[0] for row in part])]
        chunks = source.docstore.chunks(ids)
        writer.add(path, docs, [chunks[cid] for cid in ids if cid in chunks], source.vectors.vectors(ids))
    if record is not None:
        writer.finish_file(record)


__all__ = ["remove_strays", "reshard"]
