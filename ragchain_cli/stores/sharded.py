"""A sharded index read as one (stores/shards.py has the layout): the interface of Index that search,
ask, eval, status and check use, over every shard.

- docstore: ShardedDocStore asks every shard and merges (chunk and document IDs are unique across
  shards: one document ID lives in one shard), so the Linker hydrates an ID from the shard holding it;
- lexical, documents: ShardedLexical, BM25 on the global scale (stores/sharded_lexical.py);
- vectors: ShardedVectors, each shard's nearest merged by cosine (comparable as they are).
Version groups are formed within a shard (two versions in two shards are not linked); `conn` is
an in-memory copy of the grouped documents for the code that reads them with SQL.
"""

from __future__ import annotations

import sqlite3
from dataclasses import fields
from pathlib import Path

import numpy as np

from ..errors import IndexMismatch, IndexNotFound
from . import versions
from .docstore import SCHEMA
from .index import Index, StoreCheck, exists, require_settings
from .shard_stats import STATS, GlobalStats, texts_of
from .sharded_lexical import ShardedLexical, merged
from .shards import ShardManifest, ShardState, is_sharded


def open_index(root: Path):
    """The index at `root`: an Index, or a ShardedIndex when it holds a shard manifest."""
    return ShardedIndex(Path(root)) if is_sharded(root) else Index(Path(root))


class ShardedDocStore:
    """The read side of DocStore over every shard's docstore."""

    def __init__(self, stores) -> None:
        self.stores = stores
        self._conn: sqlite3.Connection | None = None

    def _merged(self, method: str, *args) -> dict:
        found: dict = {}
        for store in self.stores:
            found.update(getattr(store, method)(*args))
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
        return set().union(*(store.document_ids() for store in self.stores))

    def chunk_ids(self) -> set[str]:
        return set().union(*(store.chunk_ids() for store in self.stores))

    def pending_count(self) -> int:
        return sum(store.pending_count() for store in self.stores)

    def counts(self) -> dict[str, int]:
        total: dict[str, int] = {}
        for store in self.stores:
            for table, n in store.counts().items():
                total[table] = total.get(table, 0) + n
        return total

    @property
    def conn(self) -> sqlite3.Connection:
        """Version-grouped documents of every shard (with their chunks), copied into memory once."""
        if self._conn is None:
            conn = sqlite3.connect(":memory:", check_same_thread=False)
            conn.executescript(SCHEMA + versions.SCHEMA)
            grouped = "SELECT doc_id FROM s.version_docs WHERE group_id IS NOT NULL"
            for store in self.stores:
                path = store.conn.execute("PRAGMA database_list").fetchone()[2]
                conn.execute("ATTACH DATABASE ? AS s", (f"file:{path}?mode=ro",))
                conn.execute("INSERT INTO version_docs SELECT * FROM s.version_docs WHERE group_id IS NOT NULL")
                conn.execute(f"INSERT INTO documents SELECT * FROM s.documents WHERE doc_id IN ({grouped})")
                conn.execute(f"INSERT INTO chunks SELECT * FROM s.chunks WHERE doc_id IN ({grouped})")
                conn.commit()
                conn.execute("DETACH DATABASE s")
            self._conn = conn
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()


class ShardedVectors:
    def __init__(self, shards: list[Index]) -> None:
        self.parts = [shard.vectors for shard in shards]
        self.dim = self.parts[0].dim

    def search(self, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        return merged((part.search(vector, k) for part in self.parts), k)

    def vectors(self, chunk_ids: list[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        for part in self.parts:
            found.update(part.vectors(chunk_ids))
        return found

    def ids(self) -> set[str]:
        return set().union(*(part.ids() for part in self.parts))

    def count(self) -> int:
        return sum(part.count() for part in self.parts)

    def has_ann(self) -> bool:
        return all(part.has_ann() for part in self.parts)


class ShardedIndex:
    """Every shard of a sharded index that holds documents, as one index (read only)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.shard_manifest = ShardManifest.read(self.root)
        self.shards: list[Index] = []
        self.absent: list[str] = []  # shards without documents (never written, or fewer files than shards)
        for folder in self.shard_manifest.folders(self.root):
            try:
                if exists(folder):
                    self.shards.append(Index(folder))
                    continue
            except IndexNotFound:  # created, but killed before its first batch
                pass
            self.absent.append(folder.name)
        if not self.shards:
            raise IndexNotFound(f"the sharded index {self.root} holds no documents yet",
                                "run `ragchain ingest PATH --shards N` (again) to finish building it")
        self.names = [shard.root.name for shard in self.shards]
        self.docstore = ShardedDocStore([shard.docstore for shard in self.shards])
        self._lexical: ShardedLexical | None = None
        self._documents: ShardedLexical | None = None
        self._vectors: ShardedVectors | None = None

    def _stats(self, name: str) -> GlobalStats:
        if not (self.root / STATS).is_file():
            raise IndexMismatch(f"the sharded index {self.root} has no BM25 statistics ({STATS})",
                                "run the same `ragchain ingest PATH --shards N` again: it writes them at its end")
        return GlobalStats(self.root, name)

    def _merged(self, name: str) -> ShardedLexical:
        """The shards' Tantivy index `name` ("lexical" or "documents") searched as one, on global statistics."""
        return ShardedLexical([getattr(shard, name) for shard in self.shards], self._stats(name),
                              lambda ids: texts_of(self.docstore, name, ids))

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
            self._vectors = ShardedVectors(self.shards)
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
        for lexical in (self._lexical, self._documents):
            if lexical is not None:
                lexical.stats.close()
        self.docstore.close()
        for shard in self.shards:
            shard.close()

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
