"""Which documents are versions of one another, worked out at ingest.

Two documents are linked as versions when either
- a name matches: the file name (for a file that is one document) or the title is equal once
  year, date and version tokens are taken out (`policy-2021.md` / `policy-2025.md`,
  `Handbook v2` / `Handbook v3`), at least one of the two names carries such a token, and the
  whole-document embeddings (mean of the chunk vectors) agree to a cosine of NAME_MIN_COSINE (a
  name dated to the day, `staff-meeting-2024-11-07`, names an event of a series: no name link); or
- the content is a near-duplicate: Jaccard similarity of the word 5-gram shingle sets of at least
  DUPLICATE_MIN_JACCARD. Candidates come from MinHash LSH bands kept in the docstore, so a new
  document is compared with the few that share a band, never with the whole index.
Both thresholds were measured (bench/RESULTS.md, "Versions"). A group is a connected component of
links (stores/versions.py keeps it up to date as documents come and go).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import PurePath

import numpy as np

from ..stores import versions as store
from ..stores.docstore import DocStore
from ..types import Chunk, Document
from .shingles import SHINGLE_HASH, bands, bands_of, document_shingles, jaccard, shingles

__all__ = ["VersionLinker", "name_of", "shingles", "bands", "jaccard", "upgrade_bands"]

NAME_MIN_COSINE = 0.50
DUPLICATE_MIN_JACCARD = 0.50

_WORD = re.compile(r"[a-z0-9]+")
_VERSION_WORDS = {"v", "ver", "version", "rev", "revision", "revised", "edition", "ed", "draft", "final",
                  "update", "updated", "latest", "copy"}
_MARKERS = {"v", "ver", "version", "rev", "revision", "edition", "ed"}
_TAGGED = re.compile(r"^(?:v|ver|rev|r)(\d+)$")
_ORDINAL = re.compile(r"^(\d+)(?:st|nd|rd|th)$")


@dataclass(frozen=True)
class Name:
    key: str  # the name without its version tokens ("" when nothing is left)
    tokened: bool  # a year, date or version token was taken out
    version: tuple[int, ...]  # the numbers those tokens carried, in order


def name_of(text: str) -> Name:
    """'remote-work-policy-2021' -> Name('remote work policy', True, (2021,))."""
    words = _WORD.findall(text.lower())
    kept: list[str] = []
    numbers: list[int] = []
    tokened = False
    follows_token = False  # the previous word was a version token or a marker ("version", "rev")
    for word in words:
        number = _version_number(word, follows_token)
        if number is not None:
            numbers.append(number)
        elif word not in _VERSION_WORDS:
            kept.append(word)
        follows_token = number is not None or word in _MARKERS
        tokened = tokened or number is not None or word in _VERSION_WORDS
    key = " ".join(kept)
    if not re.search("[a-z]", key) or _day_dated(numbers):
        key = ""
    return Name(key, tokened, tuple(numbers))


def _day_dated(numbers: list[int]) -> bool:
    """A name dated to the day (`staff-meeting-2024-11-07`, `log_20241107`) names one event of a
    series (minutes, logs, daily reports), not a revision of an earlier document."""
    if any(n > 19000000 for n in numbers):
        return True
    triples = zip(numbers, numbers[1:], numbers[2:])
    return any(1900 <= y <= 2099 and 1 <= m <= 12 and 1 <= d <= 31 for y, m, d in triples)


def _version_number(word: str, follows_token: bool) -> int | None:
    """The number a word stands for as a version token, or None when it is an ordinary word."""
    if word.isdigit():
        value = int(word)
        if len(word) == 4 and 1900 <= value <= 2099:
            return value  # a year
        if len(word) == 8 and 19000101 <= value <= 20991231:
            return value  # 20241107
        if follows_token and len(word) <= 3:
            return value  # "version 3", "v2.1", the month and day of 2024-11-07
        return None
    match = _TAGGED.match(word) or _ORDINAL.match(word)
    return int(match.group(1)) if match else None


def file_name(doc_source: str, file_path: str) -> str:
    """The file name stem when the document is the whole file (a JSONL line is not)."""
    return PurePath(file_path).stem if doc_source == file_path else ""


def mean_vector(vectors) -> np.ndarray | None:
    """The unit-length mean of a document's chunk vectors (None when it has none)."""
    rows = [np.asarray(v, dtype=np.float32) for v in vectors]
    if not rows:
        return None
    mean = np.mean(rows, axis=0)
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm > 0 else None


def cosine(u: np.ndarray | None, v: np.ndarray | None) -> float:
    return float(np.dot(u, v)) if u is not None and v is not None else 0.0


@dataclass
class _Prepared:
    shingle_array: np.ndarray
    bands: list[int]
    vectors: list  # the chunks' vectors; their mean is worked out only for a name candidate
    names: tuple[str, str]
    tokened: int

    @cached_property
    def vector(self) -> np.ndarray | None:
        return mean_vector(self.vectors)

    @cached_property
    def shingles(self) -> set[int]:
        return set(self.shingle_array.tolist())


class VersionLinker:
    """Links the documents of one written batch to their versions, inside the batch's transaction.
    `stored_vectors(chunk_ids)` reads vectors already in the vector index (documents of earlier batches).
    The batch is shingled, written and looked up as a whole (a few array operations and statements
    a batch, not a few a document); the links are those of linking one document after the other."""

    def __init__(self, tx: sqlite3.Connection, stored_vectors: Callable[[list[str]], dict]) -> None:
        self.tx = tx
        self.stored_vectors = stored_vectors
        self.prepared: dict[str, _Prepared] = {}

    def record(self, items: list[tuple[str, Document, list[Chunk], list]]) -> None:
        """items: (file path, document, its chunks, their vectors) for every document written."""
        store.forget(self.tx, [doc.doc_id for _, doc, _, _ in items])
        arrays = document_shingles([[c.text for c in chunks] for _, _, chunks, _ in items])
        rows = []
        for (path, doc, _, vectors), array, keys in zip(items, arrays, bands_of(arrays)):
            file, title = name_of(file_name(doc.source, path)), name_of(doc.title)
            tokened = store.FILE_TOKEN * file.tokened | store.TITLE_TOKEN * title.tokened
            self.prepared[doc.doc_id] = _Prepared(array, keys, vectors, (file.key, title.key), tokened)
            rows.append((doc.doc_id, (file.key, title.key), tokened, file.version or title.version))
        store.put_documents(self.tx, rows, {doc_id: entry.bands for doc_id, entry in self.prepared.items()})
        by_name = store.name_candidates_of(self.tx, {d: (e.names, e.tokened) for d, e in self.prepared.items()})
        by_band = store.band_candidates_of(self.tx, {d: e.bands for d, e in self.prepared.items()})
        linked = [doc_id for doc_id, entry in self.prepared.items()
                  if self._link(doc_id, entry, by_name.get(doc_id, set()), by_band.get(doc_id, set()))]
        # Groups from the documents that made a link (their components hold every other document
        # linked in this batch); a document linked to nothing keeps the NULL group it was written with.
        store.regroup(self.tx, linked)

    def _link(self, doc_id: str, entry: _Prepared, named: set[str], banded: set[str]) -> bool:
        """Link the document to its versions among the candidates; return whether it has any link."""
        linked = False
        for other in sorted(named):
            similarity = cosine(entry.vector, self._vector(other))
            if similarity >= NAME_MIN_COSINE:
                store.link(self.tx, doc_id, other, "name", similarity)
                linked = True
        for other in sorted(banded):
            similarity = jaccard(entry.shingles, self._shingles(other))
            if similarity >= DUPLICATE_MIN_JACCARD:
                store.link(self.tx, doc_id, other, "content", similarity)
                linked = True
        return linked

    def _chunks(self, doc_id: str) -> list[tuple[str, str]]:
        return self.tx.execute("SELECT chunk_id, text FROM chunks WHERE doc_id = ?", (doc_id,)).fetchall()

    def _vector(self, doc_id: str) -> np.ndarray | None:
        if doc_id in self.prepared:
            return self.prepared[doc_id].vector
        return mean_vector(self.stored_vectors([cid for cid, _ in self._chunks(doc_id)]).values())

    def _shingles(self, doc_id: str) -> set[int]:
        if doc_id in self.prepared:
            return self.prepared[doc_id].shingles
        return shingles([text for _, text in self._chunks(doc_id)])


def upgrade_bands(docstore: DocStore) -> None:
    """Rehash the stored band keys of an index whose shingles were hashed otherwise (before issue
    30: crc32 of the joined words), in one transaction, then record SHINGLE_HASH (an ingest runs
    this under its lock, before its first batch; a kill before the commit leaves it to the next)."""
    if docstore.get_meta().get("shingle_hash") == SHINGLE_HASH:
        return
    with docstore.transaction() as tx:
        doc_ids = [row[0] for row in tx.execute("SELECT doc_id FROM version_docs ORDER BY doc_id")]
        for start in range(0, len(doc_ids), 500):
            part = doc_ids[start : start + 500]
            marks = ",".join("?" * len(part))
            texts: dict[str, list[str]] = {doc_id: [] for doc_id in part}
            for doc_id, text in tx.execute(f"SELECT doc_id, text FROM chunks WHERE doc_id IN ({marks})", part):
                texts[doc_id].append(text)
            keys = bands_of(document_shingles([texts[doc_id] for doc_id in part]))
            tx.execute(f"DELETE FROM version_bands WHERE doc_id IN ({marks})", part)
            store.put_bands(tx, dict(zip(part, keys)))
        tx.execute("INSERT OR REPLACE INTO meta VALUES ('shingle_hash', ?)", (SHINGLE_HASH,))
