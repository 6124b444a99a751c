"""BM25 statistics over every shard of a sharded index, written at the end of each ingest to
INDEX/stats.sqlite: per word index (`lexical`: chunks, `documents`: whole documents) the number of
entries, and each stored term's document frequency summed over the shards.

Tantivy scores a term in a document as idf(df, N) * tf-part(tf, length, mean length), with
idf = ln(1 + (N - df + 0.5) / (df + 0.5)) from the index it searches. A shard knows its own df and
N only; stores/sharded_lexical.py boosts each query term in each shard by idf(global) / idf(shard),
which turns the shard's score into the one with global frequencies but the shard's mean length;
pad entries (shard_pads.py) give every shard the global mean length, so the shard's score is the
one index's. bm25() below scores entries exactly as one index would (Tantivy's one-byte length
code, the global mean length: tokens / live entries), for a reranker's few and for indexes
whose shards were written before pads.
"""

from __future__ import annotations

import bisect
import math
import sqlite3
from collections import Counter
from pathlib import Path

STATS = "stats.sqlite"
FIELDS = ("lexical", "documents")  # the Tantivy folders of an index whose terms are counted
TEXT_BATCH = 2000  # texts read from a docstore at a time to count tokens

SCHEMA = """
CREATE TABLE totals (field TEXT PRIMARY KEY, entries INTEGER NOT NULL, live INTEGER NOT NULL, tokens INTEGER NOT NULL);
CREATE TABLE df (field TEXT NOT NULL, term TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (field, term))
    WITHOUT ROWID;
CREATE TABLE padded (field TEXT PRIMARY KEY, residual REAL NOT NULL);
"""


K1, B = 1.2, 0.75  # Tantivy's BM25 constants


def idf(df: int, total: int) -> float:
    """Tantivy's (and Lucene's) BM25 idf."""
    return math.log(1.0 + (total - df + 0.5) / (df + 0.5))


def _decoded(code: int) -> int:
    """The length a one-byte length code stands for (Lucene's scheme, which Tantivy's fieldnorms use):
    exact up to 24, then 3 bits of mantissa over a power of two."""
    if code < 24:
        return code
    mantissa, shift = (code - 24) & 7, (code - 24) >> 3
    return 24 + (mantissa if shift == 0 else (mantissa | 8) << (shift - 1))


LENGTHS = [_decoded(code) for code in range(256)]


def stored_length(tokens: int) -> int:
    """A field's length as Tantivy stores it: rounded down to the nearest length its code holds."""
    return LENGTHS[bisect.bisect_right(LENGTHS, tokens) - 1]


def bm25(tfs: list[tuple[float, int]], length: int, mean_length: float) -> float:
    """Tantivy's BM25 of one entry: the sum over (weight x idf, tf) of the query's terms it holds."""
    norm = K1 * (1.0 - B + B * stored_length(length) / mean_length)
    return sum(weight * (1.0 + K1) * tf / (tf + norm) for weight, tf in tfs if tf)


def shard_terms(folder: Path) -> tuple[int, int, list[tuple[str, int]]]:
    """One shard's word index: its entries as BM25 counts them (deleted ones a merge has not yet
    dropped too, as in each term's document frequency), its live entries, and every term's df
    (its pad entries left out: shard_pads.py)."""
    from .lexical import LexicalIndex

    if not folder.is_dir():
        return 0, 0, []
    lexical = LexicalIndex(folder, heap_size=15_000_000)
    try:
        return lexical.max_doc() - len(lexical.pads()), lexical.count(), lexical.terms_starting("")
    finally:
        lexical.close()


def texts_of(store, name: str, ids: list[str]) -> dict[str, str]:
    """The texts the word index `name` holds for these IDs, as it was given them (Index.replay)."""
    if name == "documents":
        return store.document_texts(ids)
    return {cid: chunk.index_text() for cid, chunk in store.chunks(ids).items()}


def shard_tokens(docstore: Path, name: str) -> int:
    """The tokens the shard's word index `name` holds (Tantivy does not tell): its texts analyzed."""
    from .analyzer import analyzer
    from .docstore import DocStore

    if not docstore.is_file():
        return 0
    store = DocStore(docstore, readonly=True)
    try:
        ids = sorted(store.document_ids() if name == "documents" else store.chunk_ids())
        return sum(len(analyzer().analyze(text)) for start in range(0, len(ids), TEXT_BATCH)
                   for text in texts_of(store, name, ids[start : start + TEXT_BATCH]).values())
    finally:
        store.close()


def write_stats(root: Path, shard_folders: list[Path]) -> dict[str, int]:
    """Sum the shards' statistics into ROOT/stats.sqlite (replaced in one step), after padding each
    shard's word indexes to the global mean length (shard_pads.py); live entries per field."""
    from .index import DOCSTORE

    target = Path(root) / STATS
    temporary = target.with_name(STATS + ".tmp")
    temporary.unlink(missing_ok=True)
    conn = sqlite3.connect(temporary)
    totals = {}
    try:
        conn.executescript(SCHEMA)
        for name in FIELDS:
            entries, live, df, held = 0, 0, Counter(), []
            for folder in shard_folders:
                counted, count, terms = shard_terms(folder / name)
                entries, live = entries + counted, live + count
                held.append((folder, shard_tokens(folder / DOCSTORE, name) if count else 0))
                df.update(dict(terms))
            tokens = sum(n for _, n in held)
            residuals = [_pad(folder, name, n, tokens / live if live else 0.0) for folder, n in held]
            totals[name] = live
            conn.execute("INSERT INTO totals VALUES (?, ?, ?, ?)", (name, entries, live, tokens))
            if None not in residuals:  # every shard's mean is known to be the global one, to within this
                conn.execute("INSERT INTO padded VALUES (?, ?)", (name, max(residuals, default=0.0)))
            conn.executemany("INSERT INTO df VALUES (?, ?, ?)", ((name, t, n) for t, n in df.items()))
        conn.commit()
    finally:
        conn.close()
    temporary.replace(target)
    return totals


def _pad(folder: Path, name: str, tokens: int, mean: float) -> float | None:
    """Pad one shard's word index `name` to the global mean, under the shard's ingest lock; how
    near its mean is then (shard_pads.pad)."""
    from .index import Index, exists
    from .lexical import LexicalIndex
    from .shard_pads import pad

    if not tokens or not exists(folder):
        return 0.0
    with Index(folder) as shard, shard.write_lock(wait=True):
        lexical = LexicalIndex(folder / name, heap_size=15_000_000)
        try:
            return pad(lexical, tokens, mean)
        finally:
            lexical.close()


class GlobalStats:
    """The statistics of one field, read from stats.sqlite (for lookups of a query's few terms)."""

    def __init__(self, root: Path, name: str) -> None:
        self.name = name
        self.conn = sqlite3.connect(f"file:{Path(root) / STATS}?mode=ro", uri=True, check_same_thread=False)
        row = self.conn.execute("SELECT entries, live, tokens FROM totals WHERE field = ?", (name,)).fetchone()
        self.entries, self.live, self.tokens = (int(row[0]), int(row[1]), int(row[2])) if row else (0, 0, 0)
        # how near every shard's mean length is to the global one (shard_pads.py); None: not known to be
        # (a shard with deleted entries, or statistics written before pads)
        try:
            row = self.conn.execute("SELECT residual FROM padded WHERE field = ?", (name,)).fetchone()
        except sqlite3.OperationalError:
            row = None
        self.residual: float | None = float(row[0]) if row else None

    @property
    def mean_length(self) -> float:
        """Tokens per live entry (Tantivy counts the deleted ones' tokens too: the same mean, near enough)."""
        return self.tokens / self.live if self.live else 1.0

    def doc_freqs(self, terms: list[str]) -> dict[str, int]:
        found = {term: 0 for term in terms}
        for term in set(terms):
            row = self.conn.execute("SELECT n FROM df WHERE field = ? AND term = ?", (self.name, term)).fetchone()
            found[term] = int(row[0]) if row else 0
        return found

    def close(self) -> None:
        self.conn.close()


__all__ = ["GlobalStats", "STATS", "bm25", "idf", "stored_length", "texts_of", "write_stats"]
