"""One index folder: docstore.sqlite, lexical/ (Tantivy), vectors/ (LanceDB), documents/ (Tantivy
over whole documents, keyed by doc_id), a lock, a manifest.

Write order (the journal): a batch is first committed to SQLite in one transaction together
with its pending operations (deletes and adds, with vectors); then the operations are applied
to Tantivy and LanceDB; then the pending rows are cleared. Replaying pending operations is
idempotent (delete every touched ID, then add those that still exist in the docstore), so a
crash at any point is repaired by the next writer. A `doc` operation names a document whose
whole-document entry is rebuilt (deleted, and added again from the docstore's title and chunks
if the docstore still holds it). Readers hydrate IDs through the docstore
and skip IDs it does not hold, so they always see the last committed state.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import numpy as np

from .. import __version__
from ..errors import IndexBusy, IndexMismatch, IndexNotFound, UsageError
from .analyzer import PREVIOUS
from ..normalize import NORMALIZATION
from .docstore import DocStore
from .lexical import TOKENIZER, LexicalIndex

MANIFEST_KEYS = ("embed_model", "dim", "chunk_size", "chunk_overlap")
DOCUMENT_INDEX = "document_index"  # manifest key: "bm25" once documents/ holds every document


DOCSTORE = "docstore.sqlite"
DOCUMENTS_HEAP = 32_000_000  # whole documents are written a batch at a time: a second 128 MB arena is not needed
REBUILD_BATCH = 20_000  # chunks read from the docstore per commit when the lexical index is rebuilt


@dataclass(frozen=True)
class StoreCheck:
    docstore: int
    lexical: int
    vectors: int
    pending: int
    missing_lexical: list[str]
    missing_vectors: list[str]
    extra_lexical: list[str]
    extra_vectors: list[str]
    missing_documents: list[str] = field(default_factory=list)  # doc IDs absent from documents/
    extra_documents: list[str] = field(default_factory=list)

    @property
    def consistent(self) -> bool:
        differences = (self.missing_lexical, self.missing_vectors, self.extra_lexical, self.extra_vectors,
                       self.missing_documents, self.extra_documents)
        return not any(differences) and not self.pending


class Index:
    """The open index; a context manager (`with Index(root) as index:`) that closes its stores."""

    def __init__(self, root: Path, create: bool = False) -> None:
        self.root = Path(root)
        if self.root.exists() and not self.root.is_dir():
            raise UsageError(f"the index {self.root} is a file, not a folder",
                             "pass --index with a folder (a new one is created), or remove that file")
        db = self.root / DOCSTORE
        if not db.is_file() and not create:
            raise IndexNotFound(f"no index at {self.root}", "run `ragchain ingest PATH` first, or pass --index DIR")
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # a file where a parent folder should be, no permission, ...
            raise UsageError(f"cannot create the index folder {self.root}: {exc.strerror or exc}",
                             "pass --index with a folder you can write to") from None
        self.docstore = DocStore(db)
        self._lexical: LexicalIndex | None = None
        self._documents: LexicalIndex | None = None
        self._vectors = None
        self._synced = False  # a replay in this process brought Tantivy and LanceDB to the docstore's state
        if not create and "embed_model" not in self.manifest():
            # a first ingest killed (or with every file skipped) before its first batch: no settings yet
            self.docstore.close()
            raise IndexNotFound(f"{self.root} holds no documents yet",
                                "run `ragchain ingest PATH` (again) to finish building it")

    # -- components (lazy: LanceDB costs seconds to import) ---------------------------------
    @property
    def lexical(self) -> LexicalIndex:
        if self._lexical is None:
            self.require_analyzer()
            self._lexical = LexicalIndex(self.root / "lexical")
        return self._lexical

    @property
    def documents(self) -> LexicalIndex:
        """Whole documents (title + text) for BM25, keyed by doc_id in the index's ID field."""
        if self._documents is None:
            self.require_analyzer()
            self._documents = LexicalIndex(self.root / "documents", heap_size=DOCUMENTS_HEAP)
        return self._documents

    def require_analyzer(self) -> None:
        """Refuse Tantivy indexes built with another analyzer than this version's (stores/analyzer.py)."""
        have = self.manifest()
        built = have.get("tokenizer", PREVIOUS)
        if "embed_model" in have and built != TOKENIZER:
            raise IndexMismatch(
                f"{self.root} was indexed with the analyzer {built!r}; this version of ragchain reads words "
                f"with {TOKENIZER!r} (accents folded) and cannot search it",
                "run `ragchain ingest` on it once more (the same paths): it rebuilds the word index",
            )

    def has_documents(self) -> bool:
        return self.manifest().get(DOCUMENT_INDEX) == "bm25"

    @property
    def vectors(self):
        if self._vectors is None:
            from .vectors import VectorIndex

            self._vectors = VectorIndex(self.root / "vectors", int(self.manifest()["dim"]))
        return self._vectors

    def close(self) -> None:
        for lexical in (self._lexical, self._documents):
            if lexical is not None:
                lexical.close()
        self.docstore.close()

    def __enter__(self) -> "Index":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    # -- manifest ---------------------------------------------------------------------------
    def manifest(self) -> dict[str, str]:
        return self.docstore.get_meta()

    def bind(self, embed_model: str, dim: int, chunk_size: int, chunk_overlap: int, query_encoder: str = "") -> None:
        """Record what builds this index, or refuse settings that differ from what built it; also
        which query encoder reproduces the ingest encoder's vectors (dense search uses it)."""
        wanted = {"embed_model": embed_model, "dim": str(dim), "chunk_size": str(chunk_size),
                  "chunk_overlap": str(chunk_overlap)}
        have = self.manifest()
        if "embed_model" in have:
            self.require(wanted)
        found = {"query_encoder": query_encoder} if query_encoder else {}
        self.docstore.set_meta({**wanted, **found, "tokenizer": TOKENIZER, "normalization": NORMALIZATION,
                                "tool_version": __version__})

    def require(self, wanted: dict[str, str]) -> None:
        require_settings(self.root, self.manifest(), wanted)

    # -- upgrades (ingest, under the write lock, before the journal is replayed) ------------------
    def upgrade(self) -> dict[str, bool]:
        """Bring an index built by an earlier version up to this one's text rules, once:
        - text normalised another way (normalize.py): every recorded file is marked changed,
          so the next ingest of each re-reads it (its chunks change where their text does, and only
          those are embedded again);
        - another analyzer: the word indexes are rebuilt from the docstore.
        Say which was done. Each step is recorded in the manifest only when done: a run killed
        half way leaves the old record, and the next ingest does the step again."""
        have = self.manifest()
        if "embed_model" not in have:  # a new index: bind() records this version's rules
            return {"renormalize": False, "reanalyze": False}
        renormalize = have.get("normalization") != NORMALIZATION
        if renormalize:
            self.docstore.forget_contents({"normalization": NORMALIZATION})
        reanalyze = have.get("tokenizer", PREVIOUS) != TOKENIZER
        if reanalyze:
            self.rebuild_lexical()
        return {"renormalize": renormalize, "reanalyze": reanalyze}

    def rebuild_lexical(self) -> None:
        """Rebuild lexical/ from the docstore's chunks with this version's analyzer; documents/ is
        emptied and left to backfill_documents. Pending operations are replayed afterwards."""
        for lexical in (self._lexical, self._documents):
            if lexical is not None:
                lexical.close()
        self._lexical = self._documents = None
        self.docstore.set_meta({DOCUMENT_INDEX: ""})
        for name in ("lexical", "documents"):
            shutil.rmtree(self.root / name, ignore_errors=True)
        lexical = LexicalIndex(self.root / "lexical")
        ids = sorted(self.docstore.chunk_ids())
        for start in range(0, len(ids), REBUILD_BATCH):
            live = self.docstore.chunks(ids[start : start + REBUILD_BATCH])
            lexical.apply([], [(cid, live[cid].index_text()) for cid in sorted(live)])
        self._lexical = lexical
        self.docstore.set_meta({"tokenizer": TOKENIZER})

    # -- locking ----------------------------------------------------------------------------
    @contextmanager
    def write_lock(self, wait: bool = False):
        handle = open(self.root / "ingest.lock", "a+")
        try:
            flags = fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB
            try:
                fcntl.flock(handle, flags)
            except BlockingIOError:
                raise IndexBusy(
                    f"another ingest is writing to {self.root}",
                    "wait for it to finish, or pass --wait to queue behind it",
                ) from None
            handle.seek(0), handle.truncate(), handle.write(str(os.getpid())), handle.flush()
            yield
        finally:
            handle.close()

    # -- journal ----------------------------------------------------------------------------
    def replay(self) -> int:
        """Apply pending operations to Tantivy and LanceDB; return how many were applied.

        Every touched chunk ID is deleted from both, then the ones the docstore holds are added. Once
        a replay has finished in this process (or found nothing pending), the two indexes hold
        exactly the docstore's chunks, and the next batch can only add IDs they do not hold or IDs
        its own `del` rows name (a chunk written again is deleted first): only those are deleted
        then, which spares LanceDB a scan of the whole table per batch. A replay that does not
        finish (an error, a kill) leaves the next one, in this process or the next, deleting all."""
        ops = self.docstore.pending()
        synced, self._synced = self._synced, False
        if not ops:
            self._synced = True
            return 0
        doc_ids = sorted({op.chunk_id for op in ops if op.op == "doc"})
        ops_on_chunks = [op for op in ops if op.op != "doc"]
        deleted = {op.chunk_id for op in ops_on_chunks if op.op == "del" or not synced}
        vectors = {op.chunk_id: op.vector for op in ops_on_chunks if op.op == "add" and op.vector is not None}
        live = self.docstore.chunks(sorted(vectors))
        add_ids = sorted(live)
        texts = self.docstore.document_texts(doc_ids) if doc_ids else {}
        if doc_ids:  # documents/ and lexical/ index side by side (one thread each), then commit in turn
            self.documents.stage(doc_ids, [(doc_id, texts[doc_id]) for doc_id in sorted(texts)])
        self.lexical.stage(sorted(deleted), [(cid, live[cid].index_text()) for cid in add_ids])
        if doc_ids:
            self.documents.commit()
        self.lexical.commit()
        if "dim" in self.manifest():
            dim = self.vectors.dim
            rows = [np.frombuffer(vectors[cid], dtype=np.float32) for cid in add_ids]
            self.vectors.apply(sorted(deleted), add_ids, np.stack(rows) if rows else np.zeros((0, dim), np.float32))
        self.docstore.clear_pending(ops[-1].seq)
        self._synced = True
        return len(ops)

    def rebuild_documents(self, doc_ids: list[str]) -> None:
        """Delete these documents' whole-document entries and add those the docstore holds."""
        if doc_ids:
            texts = self.docstore.document_texts(doc_ids)
            self.documents.apply(doc_ids, [(doc_id, texts[doc_id]) for doc_id in sorted(texts)])

    def backfill_documents(self) -> None:
        """Give an index built before documents/ existed its whole-document entries (once; idempotent,
        so a run killed half way is redone by the next ingest), then record it in the manifest."""
        if not self.has_documents():
            self.rebuild_documents(sorted(self.documents.ids() | self.docstore.document_ids()))
            self.docstore.set_meta({DOCUMENT_INDEX: "bm25"})

    def is_empty(self) -> bool:
        """No batch was ever written (a first ingest that failed, or skipped every file)."""
        return "embed_model" not in self.manifest()

    # -- checks -----------------------------------------------------------------------------
    def check(self) -> StoreCheck:
        doc_ids = self.docstore.chunk_ids()
        lex_ids = self.lexical.ids()
        vec_ids = self.vectors.ids() if "dim" in self.manifest() else set()
        docs = self.docstore.document_ids() if self.has_documents() else set()
        whole = self.documents.ids() if self.has_documents() else set()
        return StoreCheck(
            docstore=len(doc_ids), lexical=len(lex_ids), vectors=len(vec_ids),
            pending=self.docstore.pending_count(),
            missing_lexical=sorted(doc_ids - lex_ids), missing_vectors=sorted(doc_ids - vec_ids),
            extra_lexical=sorted(lex_ids - doc_ids), extra_vectors=sorted(vec_ids - doc_ids),
            missing_documents=sorted(docs - whole), extra_documents=sorted(whole - docs),
        )


def require_settings(root: Path, have: dict[str, str], wanted: dict[str, str]) -> None:
    """Refuse settings (the embedding model, chunking) other than those the index at `root` was built with."""
    diffs = [f"{k}: index has {have.get(k)!r}, asked for {v!r}" for k, v in wanted.items()
             if k in have and have[k] != v]
    if diffs:
        raise IndexMismatch(
            f"{root} was built with different settings ({'; '.join(diffs)})",
            "use the settings the index was built with, or a new --index DIR",
        )


def exists(root: Path) -> bool:
    return (Path(root) / DOCSTORE).exists()


def opened_if_any(root: Path) -> Index | None:
    """The index at `root`, or None when there is none or a first ingest was killed before its first
    batch (a shard of a sharded index that holds nothing yet)."""
    if not exists(root):
        return None
    try:
        return Index(Path(root))
    except IndexNotFound:
        return None


@contextmanager
def open_for_writing(root: Path) -> Iterator[Index]:
    """The index at `root`, created when there is none. A new index nothing was written into is
    removed on the way out: a first ingest that failed, or skipped every file, leaves no index."""
    fresh = not exists(root)
    index = Index(Path(root), create=True)
    try:
        yield index
    finally:
        empty = fresh and index.is_empty()
        index.close()
        if empty:
            _remove_new(Path(root))


def _remove_new(root: Path) -> None:
    """Remove what was made in a new index folder, and the folder when nothing else is in it."""
    for name in (DOCSTORE, f"{DOCSTORE}-wal", f"{DOCSTORE}-shm", "ingest.lock"):
        (root / name).unlink(missing_ok=True)
    for folder in (root / "lexical", root / "vectors", root / "documents"):
        shutil.rmtree(folder, ignore_errors=True)
    with contextlib.suppress(OSError):
        root.rmdir()
