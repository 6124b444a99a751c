"""Version groups in the docstore: per-document names and LSH bands, links between versions, and
the groups they form (connected components), kept up to date as documents are added and removed.

Every write here runs inside the caller's docstore transaction, the one that writes or deletes
the documents themselves, so groups commit (or roll back) with the documents: no journal entry is
needed, and a crash leaves groups that match the committed documents. Only SQLite holds them.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone

from ..errors import UsageError
from ..types import Hit

SCHEMA = """
CREATE TABLE IF NOT EXISTS version_docs (
    doc_id TEXT PRIMARY KEY, file_name TEXT NOT NULL, title_name TEXT NOT NULL, tokened INTEGER NOT NULL,
    version TEXT NOT NULL, group_id TEXT);
CREATE INDEX IF NOT EXISTS version_docs_file ON version_docs(file_name);
CREATE INDEX IF NOT EXISTS version_docs_title ON version_docs(title_name);
CREATE INDEX IF NOT EXISTS version_docs_group ON version_docs(group_id);
CREATE TABLE IF NOT EXISTS version_bands (band INTEGER NOT NULL, doc_id TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS version_bands_band ON version_bands(band);
CREATE INDEX IF NOT EXISTS version_bands_doc ON version_bands(doc_id);
CREATE TABLE IF NOT EXISTS version_links (
    doc_a TEXT NOT NULL, doc_b TEXT NOT NULL, how TEXT NOT NULL, similarity REAL NOT NULL,
    PRIMARY KEY (doc_a, doc_b));
CREATE INDEX IF NOT EXISTS version_links_b ON version_links(doc_b);
"""
FILE_TOKEN, TITLE_TOKEN = 1, 2  # bits of `tokened`: which name carried a year/date/version token
_EPOCH = datetime(1, 1, 1, tzinfo=timezone.utc)


def put_documents(tx: sqlite3.Connection, rows: list[tuple[str, tuple[str, str], int, tuple[int, ...]]],
                  band_keys: dict[str, list[int]]) -> None:
    """rows: (doc_id, (file name, title name), tokened, version) of each document; its band keys."""
    tx.executemany("INSERT OR REPLACE INTO version_docs VALUES (?, ?, ?, ?, ?, NULL)",
                   [(doc_id, names[0], names[1], tokened, json.dumps(list(version)))
                    for doc_id, names, tokened, version in rows])
    put_bands(tx, band_keys)


def put_bands(tx: sqlite3.Connection, band_keys: dict[str, list[int]]) -> None:
    tx.executemany("INSERT INTO version_bands VALUES (?, ?)",
                   [(band, doc_id) for doc_id, keys in band_keys.items() for band in keys])


def name_candidates_of(tx: sqlite3.Connection, docs: dict[str, tuple[tuple[str, str], int]]) -> dict[str, set[str]]:
    """For each document (doc_id -> (names, tokened)): the documents whose file name or title equals
    its own once version tokens are out, where at least one of the two names carried a token."""
    found: dict[str, set[str]] = {}
    for position, (column, bit) in enumerate((("file_name", FILE_TOKEN), ("title_name", TITLE_TOKEN))):
        wanted = sorted({names[position] for names, _ in docs.values() if names[position]})
        holders: dict[str, list[tuple[str, int]]] = {}
        for start in range(0, len(wanted), 500):
            part = wanted[start : start + 500]
            rows = tx.execute(f"SELECT {column}, doc_id, tokened FROM version_docs "
                              f"WHERE {column} IN ({','.join('?' * len(part))})", part)
            for name, other, their in rows:
                holders.setdefault(name, []).append((other, their))
        for doc_id, (names, tokened) in docs.items():
            others = {other for other, their in holders.get(names[position], ())
                      if other != doc_id and (tokened | their) & bit}
            if others:
                found.setdefault(doc_id, set()).update(others)
    return found


def band_candidates_of(tx: sqlite3.Connection, docs: dict[str, list[int]]) -> dict[str, set[str]]:
    """The documents sharing a band with each document (doc_id -> its band keys), itself excluded."""
    keys = sorted({band for bands in docs.values() for band in bands})
    holders: dict[int, list[str]] = {}
    for start in range(0, len(keys), 500):
        part = keys[start : start + 500]
        for band, other in tx.execute(f"SELECT band, doc_id FROM version_bands WHERE band IN "
                                      f"({','.join('?' * len(part))})", part):
            holders.setdefault(band, []).append(other)
    found: dict[str, set[str]] = {}
    for doc_id, bands in docs.items():
        others = {other for band in bands for other in holders.get(band, ()) if other != doc_id}
        if others:
            found[doc_id] = others
    return found


def link(tx: sqlite3.Connection, a: str, b: str, how: str, similarity: float) -> None:
    first, second = sorted((a, b))
    tx.execute("INSERT OR REPLACE INTO version_links VALUES (?, ?, ?, ?)", (first, second, how, similarity))


def forget(tx: sqlite3.Connection, doc_ids: Iterable[str]) -> None:
    """Take documents out (deleted, or about to be written again): their rows and links go, and the
    groups they were in are worked out again from the links that remain."""
    ids = list(doc_ids)
    neighbours: set[str] = set()
    for start in range(0, len(ids), 500):
        part = ids[start : start + 500]
        marks = ",".join("?" * len(part))
        neighbours.update(row[0] for row in tx.execute(
            f"SELECT doc_id FROM version_docs WHERE group_id IN "
            f"(SELECT group_id FROM version_docs WHERE doc_id IN ({marks}) AND group_id IS NOT NULL)", part))
        tx.execute(f"DELETE FROM version_docs WHERE doc_id IN ({marks})", part)
        tx.execute(f"DELETE FROM version_bands WHERE doc_id IN ({marks})", part)
        tx.execute(f"DELETE FROM version_links WHERE doc_a IN ({marks}) OR doc_b IN ({marks})", part + part)
    regroup(tx, neighbours - set(ids))


def regroup(tx: sqlite3.Connection, seeds: Iterable[str]) -> None:
    """Set group_id on the components the seeds belong to: the smallest doc_id of a component of
    two or more, NULL for a document linked to nothing."""
    done: set[str] = set()
    for seed in sorted(seeds):
        if seed in done:
            continue
        component, frontier = {seed}, [seed]
        while frontier:
            current = frontier.pop()
            rows = tx.execute("SELECT doc_b FROM version_links WHERE doc_a = ? "
                              "UNION SELECT doc_a FROM version_links WHERE doc_b = ?", (current, current))
            fresh = {row[0] for row in rows} - component
            component |= fresh
            frontier.extend(fresh)
        done |= component
        group = min(component) if len(component) > 1 else None
        tx.executemany("UPDATE version_docs SET group_id = ? WHERE doc_id = ?", [(group, d) for d in component])


def counts(conn: sqlite3.Connection) -> dict:
    """Version groups, the documents in them, how many of those a newer version supersedes, and
    which: each newest version with the older ones it supersedes."""
    groups, members = conn.execute(
        "SELECT COUNT(DISTINCT group_id), COUNT(*) FROM version_docs WHERE group_id IS NOT NULL").fetchone()
    superseded = VersionView.load(conn).superseded
    older: dict[str, list[str]] = {}
    for doc_id, newest in superseded.items():
        older.setdefault(newest, []).append(doc_id)
    return {"groups": groups, "documents": members, "superseded": len(superseded),
            "newest": [{"doc_id": newest, "older": sorted(docs)} for newest, docs in sorted(older.items())]}


@dataclass
class VersionView:
    """The index's version groups as a search sees them (read once per pipeline)."""

    superseded: dict[str, str] = field(default_factory=dict)  # older doc_id -> the newest doc_id of its group
    superseded_chunks: dict[str, str] = field(default_factory=dict)  # their chunk IDs -> doc_id

    @classmethod
    def load(cls, conn: sqlite3.Connection, with_chunks: bool = False) -> "VersionView":
        rows = conn.execute("SELECT v.group_id, v.doc_id, d.date, v.version FROM version_docs v "
                            "JOIN documents d ON d.doc_id = v.doc_id WHERE v.group_id IS NOT NULL").fetchall()
        groups: dict[str, list[tuple[datetime, tuple[int, ...], str]]] = {}
        for group, doc_id, date, version in rows:
            groups.setdefault(group, []).append((_moment(date), tuple(json.loads(version)), doc_id))
        superseded = {}
        for members in groups.values():
            newest = max((moment, version) for moment, version, _ in members)
            label = min(doc for moment, version, doc in members if (moment, version) == newest)
            superseded.update({doc: label for moment, version, doc in members if (moment, version) < newest})
        view = cls(superseded)
        if with_chunks and superseded:
            ids = sorted(superseded)
            for start in range(0, len(ids), 500):
                part = ids[start : start + 500]
                view.superseded_chunks.update(conn.execute(
                    f"SELECT chunk_id, doc_id FROM chunks WHERE doc_id IN ({','.join('?' * len(part))})", part))
        return view

    def drop_older(self, hits: list[Hit]) -> tuple[list[Hit], dict[str, list[str]]]:
        """Hits of superseded versions removed; {newest doc_id: the older doc_ids dropped}."""
        if not self.superseded_chunks:
            return hits, {}
        kept, dropped = [], {}
        for hit in hits:
            old = self.superseded_chunks.get(hit.chunk_id)
            if old is None:
                kept.append(hit)
            elif old not in dropped.setdefault(self.superseded[old], []):
                dropped[self.superseded[old]].append(old)
        return kept, dropped

    def annotate(self, hits: list[Hit], dropped: dict[str, list[str]]) -> list[Hit]:
        """superseded_by on an older version's hits, older_versions on a hit whose older versions were dropped."""
        if not self.superseded and not dropped:
            return hits
        return [replace(h, superseded_by=self.superseded.get(h.doc_id, ""),
                        older_versions=tuple(dropped.get(h.doc_id, ()))) for h in hits]


def _moment(text: str | None) -> datetime:
    """A stored date for ordering versions; undated or unreadable counts as oldest."""
    from ..timeaware import parse_date

    try:
        return parse_date(text) if text else _EPOCH
    except UsageError:
        return _EPOCH
