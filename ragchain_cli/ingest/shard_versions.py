"""Version groups over every shard of a sharded index, formed at the end of a sharded ingest.

Each shard links the versions among its own documents as it is written (versions.py). A 2021
policy and its 2025 revision can hash to two shards, so once every shard is written the driver
links documents across shards by the same two rules and thresholds (a name match confirmed by
the mean chunk vectors, or near-duplicate content by shingles; candidates from the names and the
LSH bands the shards keep), and writes every shard's version rows, their links and these, grouped
over all shards, to INDEX/versions.sqlite (replaced in one step, as stats.sqlite is). A sharded
index reads its groups from that file (stores/sharded.py). A kill before the file is replaced
leaves the last one: the next ingest writes it again.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from ..stores import versions as store
from ..stores.index import DOCSTORE, Index, opened_if_any
from ..stores.shards import VERSIONS
from .shingles import jaccard, shingles
from .versions import DUPLICATE_MIN_JACCARD, NAME_MIN_COSINE, cosine, mean_vector

SHARD_TABLE = "CREATE TABLE doc_shard (doc_id TEXT PRIMARY KEY, shard INTEGER NOT NULL);"


def write_versions(root: Path, folders: list[Path]) -> int:
    """Link versions across the shards in `folders`, group over all of them, write ROOT/versions.sqlite;
    the number of links made across shards."""
    target = Path(root) / VERSIONS
    temporary = target.with_name(VERSIONS + ".tmp")
    temporary.unlink(missing_ok=True)
    shards = [index for index in map(opened_if_any, folders) if index is not None]
    conn = sqlite3.connect(temporary, isolation_level=None)  # transactions as written below
    try:
        conn.executescript(store.SCHEMA + SHARD_TABLE)
        for number, shard in enumerate(shards):
            _copy(conn, shard.root / DOCSTORE, number)
        conn.execute("BEGIN")
        made = _link_across(conn, shards)
        linked = [row[0] for row in conn.execute("SELECT doc_a FROM version_links UNION SELECT doc_b FROM version_links")]
        store.regroup(conn, linked)
        conn.execute("COMMIT")
    finally:
        conn.close()
        for shard in shards:
            shard.close()
    os.replace(temporary, target)
    return made


def _copy(conn: sqlite3.Connection, docstore: Path, number: int) -> None:
    """One shard's version rows (its groups worked out again below, over every shard)."""
    conn.execute("ATTACH DATABASE ? AS s", (f"file:{docstore}?mode=ro",))
    conn.execute("BEGIN")
    # OR IGNORE: one document ID in two shards (two files that give the same ID, found from two working
    # directories) keeps the first shard's row rather than failing the ingest
    conn.execute("INSERT OR IGNORE INTO version_docs SELECT doc_id, file_name, title_name, tokened, version, NULL "
                 "FROM s.version_docs")
    conn.execute("INSERT INTO version_bands SELECT band, doc_id FROM s.version_bands")
    conn.execute("INSERT OR REPLACE INTO version_links SELECT * FROM s.version_links")
    conn.execute("INSERT OR IGNORE INTO doc_shard SELECT doc_id, ? FROM s.version_docs", (number,))
    conn.execute("COMMIT")
    conn.execute("DETACH DATABASE s")


def _link_across(conn: sqlite3.Connection, shards: list[Index]) -> int:
    """Link each pair of documents in two shards that the version rules link; the links made."""
    shard_of = dict(conn.execute("SELECT doc_id, shard FROM doc_shard"))
    names = {doc: ((file, title), tokened) for doc, file, title, tokened
             in conn.execute("SELECT doc_id, file_name, title_name, tokened FROM version_docs")}
    bands: dict[str, list[int]] = {}
    for band, doc in conn.execute("SELECT band, doc_id FROM version_bands"):
        bands.setdefault(doc, []).append(band)
    pairs: dict[tuple[str, str], str] = {}
    for how, found in (("name", store.name_candidates_of(conn, names)), ("content", store.band_candidates_of(conn, bands))):
        for doc, others in found.items():
            for other in others:
                if shard_of[other] != shard_of[doc]:
                    pairs.setdefault((min(doc, other), max(doc, other)), how)
    reader = _Reader(shards, shard_of)
    made = 0
    for (a, b), how in sorted(pairs.items()):
        similarity = cosine(reader.vector(a), reader.vector(b)) if how == "name" \
            else jaccard(reader.shingles(a), reader.shingles(b))
        if similarity >= (NAME_MIN_COSINE if how == "name" else DUPLICATE_MIN_JACCARD):
            store.link(conn, a, b, how, similarity)
            made += 1
    return made


class _Reader:
    """A document's chunks, mean vector and shingles, read from the shard that holds it."""

    def __init__(self, shards: list[Index], shard_of: dict[str, int]) -> None:
        self.shards, self.shard_of = shards, shard_of

    def _chunks(self, doc_id: str) -> tuple[Index, list[tuple[str, str]]]:
        shard = self.shards[self.shard_of[doc_id]]
        rows = shard.docstore.conn.execute("SELECT chunk_id, text FROM chunks WHERE doc_id = ? ORDER BY ordinal",
                                           (doc_id,)).fetchall()
        return shard, rows

    def vector(self, doc_id: str):
        shard, rows = self._chunks(doc_id)
        return mean_vector(shard.vectors.vectors([cid for cid, _ in rows]).values())

    def shingles(self, doc_id: str) -> set[int]:
        return shingles([text for _, text in self._chunks(doc_id)[1]])


__all__ = ["write_versions"]
