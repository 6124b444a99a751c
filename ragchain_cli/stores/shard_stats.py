"""BM25 statistics over every shard of a sharded index, written at the end of each ingest to
INDEX/stats.sqlite: per word index (`lexical`: chunks, `documents`: whole documents) the number of
entries, and each stored term's document frequency summed over the shards.

Tantivy scores a term in a document as idf(df, N) * tf-part(tf, length, mean length), with
idf = ln(1 + (N - df + 0.5) / (df + 0.5)) from the index it searches. A shard knows its own df and
N only; stores/sharded_lexical.py boosts each query term in each shard by idf(global) / idf(shard),
which turns the shard's score into the one with global frequencies (the mean length stays the
shard's: with files spread by hash it differs from the global one by a fraction of a percent).
"""

from __future__ import annotations

import math
import sqlite3
from collections import Counter
from pathlib import Path

STATS = "stats.sqlite"
FIELDS = ("lexical", "documents")  # the Tantivy folders of an index whose terms are counted

SCHEMA = """
CREATE TABLE totals (field TEXT PRIMARY KEY, entries INTEGER NOT NULL);
CREATE TABLE df (field TEXT NOT NULL, term TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (field, term))
    WITHOUT ROWID;
"""


def idf(df: int, total: int) -> float:
    """Tantivy's (and Lucene's) BM25 idf."""
    return math.log(1.0 + (total - df + 0.5) / (df + 0.5))


def shard_terms(folder: Path) -> tuple[int, list[tuple[str, int]]]:
    """One shard's word index: its entries and every term with its document frequency."""
    from .lexical import LexicalIndex

    if not folder.is_dir():
        return 0, []
    lexical = LexicalIndex(folder, heap_size=15_000_000)
    try:
        return lexical.count(), lexical.terms_starting("")
    finally:
        lexical.close()


def write_stats(root: Path, shard_folders: list[Path]) -> dict[str, int]:
    """Sum the shards' statistics into ROOT/stats.sqlite (replaced in one step); entries per field."""
    target = Path(root) / STATS
    temporary = target.with_name(STATS + ".tmp")
    temporary.unlink(missing_ok=True)
    conn = sqlite3.connect(temporary)
    totals = {}
    try:
        conn.executescript(SCHEMA)
        for name in FIELDS:
            entries, df = 0, Counter()
            for folder in shard_folders:
                count, terms = shard_terms(folder / name)
                entries += count
                df.update(dict(terms))
            totals[name] = entries
            conn.execute("INSERT INTO totals VALUES (?, ?)", (name, entries))
            conn.executemany("INSERT INTO df VALUES (?, ?, ?)", ((name, t, n) for t, n in df.items()))
        conn.commit()
    finally:
        conn.close()
    temporary.replace(target)
    return totals


class GlobalStats:
    """The statistics of one field, read from stats.sqlite (for lookups of a query's few terms)."""

    def __init__(self, root: Path, name: str) -> None:
        self.name = name
        self.conn = sqlite3.connect(f"file:{Path(root) / STATS}?mode=ro", uri=True, check_same_thread=False)
        row = self.conn.execute("SELECT entries FROM totals WHERE field = ?", (name,)).fetchone()
        self.entries = int(row[0]) if row else 0

    def doc_freqs(self, terms: list[str]) -> dict[str, int]:
        found = {term: 0 for term in terms}
        for term in set(terms):
            row = self.conn.execute("SELECT n FROM df WHERE field = ? AND term = ?", (self.name, term)).fetchone()
            found[term] = int(row[0]) if row else 0
        return found

    def close(self) -> None:
        self.conn.close()


__all__ = ["GlobalStats", "STATS", "idf", "write_stats"]
