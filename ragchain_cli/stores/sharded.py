"""A sharded index read as one (stores/shards.py has the layout): the interface of Index that search,
ask, eval, status and check use, over every shard.

- docstore: ShardedDocStore asks every shard and merges (chunk and document IDs are unique across
  shards: one document ID lives in one shard), so the Linker hydrates an ID from the shard holding it;
- lexical, documents: ShardedLexical, BM25 on the global scale (stores/sharded_lexical.py);
- vectors: ShardedVectors, each shard's nearest merged by cosine (comparable as they are).
Version groups are formed over every shard at the end of a sharded ingest (versions.sqlite,
ingest/shard_versions.py); `conn` is an in-memory copy of the grouped documents for the code that
reads them with SQL. Every shard is asked at once, on threads (stores/fanout.py).
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import ExitStack
from dataclasses import fields
from pathlib import Path

import numpy as np

from ..errors import IndexMismatch, IndexNotFound
from . import versions
from .docstore import SCHEMA
from .fanout import Fanout
from .index import Index, StoreCheck, opened_if_any, require_settings
from .shard_stats import STATS, GlobalStats, texts_of
from .sharded_lexical import ShardedLexical, top_across
from .shards import VERSIONS, ShardManifest, ShardState, is_sharded


def open_index(root: Path, engine: str = "local", ray_address: str = "", fanout: str = "auto"):
    """The index at `root`: an Index, or a ShardedIndex when it holds a shard manifest (its shards
    opened in this process, or with engine "ray" each held open by a Ray actor; `fanout`: how they
    are asked, stores/fanout.py)."""
    if not is_sharded(root):
        return Index(Path(root))
    return ShardedIndex(Path(root), fanout=fanout, engine=engine, ray_address=ray_address)


class ShardedDocStore:
    """The read side of DocStore over every shard's docstore."""

    def __init__(self, stores, fanout: Fanout | None = None, versions_file: Path | None = None) -> None:
        self.stores = stores
        self.fanout = fanout or Fanout(1, "serial")
        self.versions_file = versions_file  # INDEX/versions.sqlite: the groups over every shard
        self._conn: sqlite3.Connection | None = None

    def _each(self, method: str, *args) -> list:
        return self.fanout.map(lambda store: getattr(store, method)(*args), self.stores)

    def _merged(self, method: str, *args) -> dict:
        found: dict = {}
        for part in self._each(method, *args):
            found.update(part)
        return found

    def chunks(self, chunk_ids: list[str]):
        return self._merged("chunks", chunk_ids)

    def doc_ids(self, chunk_ids: list[str]) -> dict[str, str]:
        return self._merged("doc_ids", chunk_ids)

    def document_texts(self, doc_ids: list[str]) -> dict[str, str]:
        return self._merged("document_texts", doc_ids)

    def first_chunk_ids(self, doc_ids: list[str]) -> dict[str, str]:
        return self._merged("first_chunk_ids", doc_ids)

    def stale_files(self) -> dict[str, str]:
        return dict(sorted(self._merged("stale_files").items()))

    def get_meta(self) -> dict[str, str]:
        return self.stores[0].get_meta()

    def document_ids(self) -> set[str]:
        return set().union(*self._each("document_ids"))

    def chunk_ids(self) -> set[str]:
        return set().union(*self._each("chunk_ids"))

    def pending_count(self) -> int:
        return sum(self._each("pending_count"))

    def counts(self) -> dict[str, int]:
        total: dict[str, int] = {}
        for part in self._each("counts"):
            for table, n in part.items():
                total[table] = total.get(table, 0) + n
        return total

    @property
    def conn(self) -> sqlite3.Connection:
        """Version-grouped documents (with their chunks), copied into memory once: the groups over every
        shard from versions.sqlite (ingest/shard_versions.py), else each shard's own groups."""
        if self._conn is None:
            conn = sqlite3.connect(":memory:", check_same_thread=False)
            conn.executescript(SCHEMA + versions.SCHEMA)
            across = _groups_in(self.versions_file) if self.versions_file is not None else None
            if across:
                conn.executemany(f"INSERT INTO version_docs VALUES ({','.join('?' * len(across[0]))})", across)
            for part in self._each("grouped_rows", [row[0] for row in across] if across is not None else None):
                for table, rows in part.items():
                    if rows:
                        conn.executemany(f"INSERT INTO {table} VALUES ({','.join('?' * len(rows[0]))})", rows)
            conn.commit()
            self._conn = conn
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()


def _groups_in(path: Path) -> list[tuple] | None:
    """The grouped version_docs rows of versions.sqlite (None when there is no such file)."""
    if not path.is_file():
        return None
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT * FROM version_docs WHERE group_id IS NOT NULL").fetchall()
    finally:
        conn.close()


class ShardedVectors:
    def __init__(self, shards: list[Index], fanout: Fanout | None = None) -> None:
        self.parts = [shard.vectors for shard in shards]
        self.dim = self.parts[0].dim
        self.fanout = fanout or Fanout(1, "serial")

    def search(self, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        return top_across(self.fanout, self.parts, lambda part, n: part.search(vector, n), k)

    def vectors(self, chunk_ids: list[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        for part in self.fanout.map(lambda part: part.vectors(chunk_ids), self.parts):
            found.update(part)
        return found

    def ids(self) -> set[str]:
        return set().union(*self.fanout.map(lambda part: part.ids(), self.parts))

    def count(self) -> int:
        return sum(self.fanout.map(lambda part: part.count(), self.parts))

    def has_ann(self) -> bool:
        return all(part.has_ann() for part in self.parts)


class ShardedIndex:
    """Every shard of a sharded index that holds documents, as one index (read only); `fanout`:
    "threads" asks every shard at once, "serial" one after the other, "auto" by the CPUs
    (stores/fanout.py); `engine`:
    "local" opens the shards in this process, "ray" has a Ray actor hold each (stores/shard_actors.py)."""

    def __init__(self, root: Path, fanout: str = "auto", engine: str = "local", ray_address: str = "") -> None:
        self.root = Path(root)
        self.shard_manifest = ShardManifest.read(self.root)
        self._cluster = ExitStack()
        opened = {folder: opened_if_any(folder) for folder in self.shard_manifest.folders(self.root)}
        self.absent = [folder.name for folder, index in opened.items() if index is None]  # never written, or fewer files than shards
        self.shards = self._open([index for index in opened.values() if index is not None], engine, ray_address)
        if not self.shards:
            raise IndexNotFound(f"the sharded index {self.root} holds no documents yet",
                                "run `ragchain ingest PATH --shards N` (again) to finish building it")
        self.names = [shard.root.name for shard in self.shards]
        self.fanout = Fanout(len(self.shards), fanout)
        self.docstore = ShardedDocStore([shard.docstore for shard in self.shards], self.fanout, self.root / VERSIONS)
        self._lexical: ShardedLexical | None = None
        self._documents: ShardedLexical | None = None
        self._vectors: ShardedVectors | None = None

    def _open(self, local: list[Index], engine: str, ray_address: str) -> list:
        """The shards as opened here, or (engine "ray") each handed to a Ray actor that opens it."""
        if engine != "ray" or not local:
            return local
        from ..cluster import import_ray, session
        from .shard_actors import serve

        folders = [Path(os.path.abspath(index.root)) for index in local]  # the actors' paths
        for index in local:
            index.close()
        ray = import_ray(data=False)
        self._cluster.enter_context(session(ray, ray_address))
        try:
            return serve(ray, folders)
        except BaseException:
            self._cluster.close()
            raise

    def _stats(self, name: str) -> GlobalStats:
        if not (self.root / STATS).is_file():
            raise IndexMismatch(f"the sharded index {self.root} has no BM25 statistics ({STATS})",
                                "run the same `ragchain ingest PATH --shards N` again: it writes them at its end")
        return GlobalStats(self.root, name)

    def _merged(self, name: str) -> ShardedLexical:
        """The shards' Tantivy index `name` ("lexical" or "documents") searched as one, on global statistics."""
        return ShardedLexical([getattr(shard, name) for shard in self.shards], self._stats(name),
                              lambda ids: texts_of(self.docstore, name, ids), self.fanout)

    @property
    def lexical(self) -> ShardedLexical:
        if self._lexical is None:
            self._lexical = self._merged("lexical")
        return self._lexical

    @property
    def documents(self) -> ShardedLexical:
        if self._documents is None:
            self._documents = self._merged("documents")
        return self._documents

    @property
    def vectors(self) -> ShardedVectors:
        if self._vectors is None:
            self._vectors = ShardedVectors(self.shards, self.fanout)
        return self._vectors

    def manifest(self) -> dict[str, str]:
        return {**self.shards[0].manifest(), "shards": str(self.shard_manifest.count)}

    def require(self, wanted: dict[str, str]) -> None:
        require_settings(self.root, self.manifest(), wanted)

    def require_analyzer(self) -> None:
        for shard in self.shards:
            shard.require_analyzer()

    def has_documents(self) -> bool:
        return all(shard.has_documents() for shard in self.shards)

    def check(self) -> StoreCheck:
        """Every shard's check, summed (IDs are unique across shards)."""
        parts = [shard.check() for shard in self.shards]
        return StoreCheck(**{f.name: sum((getattr(p, f.name) for p in parts), start=type(getattr(parts[0], f.name))())
                             for f in fields(StoreCheck)})

    def shard_checks(self) -> list[dict]:
        """Each shard of the manifest against what its folder holds: its state and counts, and why it
        disagrees ("" when it does not)."""
        opened = dict(zip(self.names, self.shards))
        return [_compare(state, opened.get(state.name)) for state in self.shard_manifest.shards]

    def close(self) -> None:
        self.fanout.close()
        for lexical in (self._lexical, self._documents):
            if lexical is not None:
                lexical.stats.close()
        self.docstore.close()
        for shard in self.shards:
            shard.close()
        self._cluster.close()  # a Ray started for this index stops

    def __enter__(self) -> "ShardedIndex":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def _compare(state: ShardState, shard: Index | None) -> dict:
    counts = shard.docstore.counts() if shard is not None else {"files": 0, "documents": 0, "chunks": 0}
    problem = ""
    if state.state != "complete":
        problem = f"its last ingest did not complete ({state.state}{': ' + state.error if state.error else ''})"
    elif any(counts[key] != getattr(state, key) for key in ("files", "documents", "chunks")):
        problem = (f"it holds {counts['files']} files, {counts['documents']} documents, {counts['chunks']} chunks; "
                   f"the manifest says {state.files}, {state.documents}, {state.chunks}")
    elif shard is not None and not shard.check().consistent:
        problem = "its stores disagree"
    return {"name": state.name, "state": state.state, "files": counts["files"], "documents": counts["documents"],
            "chunks": counts["chunks"], "problem": problem}


__all__ = ["ShardedIndex", "open_index"]
