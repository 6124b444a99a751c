"""What happens to one file once the driver has decided to (re)ingest it, with either engine:
load it a document at a time, make every text field storable, chunk it. Nothing here touches
the index, so the same code runs in the ingest process (`--engine local`) and on a Ray worker
(`--engine ray`); the driver keeps every decision and every write (pipeline.py, writer.py).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..config import DEFAULTS
from ..errors import LoaderError
from ..stores.docstore import FileRecord
from ..normalize import normalize
from ..types import Chunk, Document



@dataclass
class IngestOptions:
    """What one ingest runs with; build it with pipeline.ingest_options(settings) so it has the CLI's defaults."""

    embed_model: str = ""  # "": the model the index was built with (Settings.embed_model for a new one)
    chunk_size: int = DEFAULTS.chunk_size
    chunk_overlap: int = DEFAULTS.chunk_overlap
    pdf_password: str = ""
    ocr: Any = DEFAULTS.ocr  # an OcrMode once built by ingest_options (a mode name is accepted too)
    nougat_model: str = ""
    batch_chunks: int = 1024
    wait: bool = False
    engine: str = DEFAULTS.engine  # a key of engines.ENGINES
    ray_address: str = DEFAULTS.ray_address  # --engine ray: "" starts a local Ray for the run; "auto" or host:port joins one
    workers: int = DEFAULTS.workers  # --engine ray: embedding actors; 0 = one per GPU of the cluster, else one per CPU
    shard: tuple[int, int] = (0, 1)  # (i, n): only the files whose document ID hashes to shard i of n (stores/shards.py)
    base: str = ""  # document IDs are relative to this folder when a file is below it ("": the working directory)


@dataclass(frozen=True)
class FileTask:
    """One file to (re)ingest, as the driver decided: where it is (an absolute path, which a Ray
    worker must see at the same place), the document ID it gets, and the record it will have."""

    path: str
    doc_id: str
    record: FileRecord  # record.path is the file's key in the docstore (storable text)

    @property
    def key(self) -> str:
        return self.record.path


@lru_cache(maxsize=4)
def chunker_for(embed_model: str, size: int, overlap: int):
    """One chunker (the model's tokenizer) per process and settings: a Ray worker loads it once."""
    from ..stores.embedders import tokenizer_file
    from .chunking import Chunker, ChunkSettings

    return Chunker(tokenizer_file(embed_model), ChunkSettings(size, overlap))


def prepared(task: FileTask, options: IngestOptions) -> Iterator[tuple[Document, list[Chunk]]]:
    """The file's documents, storable, each with its chunks; a failure at once or part way is a
    LoaderError or OSError (the caller reports the file and skips it)."""
    from .loaders import LoadOptions, iter_load

    chunker = chunker_for(options.embed_model, options.chunk_size, options.chunk_overlap)
    seconds = task.record.mtime_ns // 1_000_000_000  # the driver's stat; no second one
    mtime = dt.datetime.fromtimestamp(seconds, dt.timezone.utc).isoformat()
    load_options = LoadOptions(options.pdf_password, options.ocr, fallback_date=mtime,
                               nougat_model=options.nougat_model)
    for loaded in iter_load(Path(task.path), task.doc_id, load_options):
        doc = storable_document(loaded)
        yield doc, chunker.chunk(doc)


def pages_of(doc: Document) -> int:
    return len({b.page for b in doc.blocks if b.page is not None})


def failure_reason(exc: LoaderError | OSError) -> str:
    return exc.message if isinstance(exc, LoaderError) else exc.strerror or str(exc)


_SURROGATE = re.compile("[\ud800-\udfff]")


def storable(text: str) -> str:
    """Text that SQLite, Tantivy and JSON accept. Lone surrogates (the undecodable bytes of a
    non-UTF-8 file name, or a \\udXXX escape in a JSON document) would make SQLite refuse the
    whole batch; they become visible escapes: byte 0xff of a name is written \\xff."""
    if not _SURROGATE.search(text):
        return text

    def escape(match: re.Match) -> str:
        code = ord(match.group())
        return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"

    return _SURROGATE.sub(escape, text)


def storable_document(doc: Document) -> Document:
    """The loader's document with every text field storable and a date that is text or None; the
    text people read and search (blocks, sections, title) normalised (normalize.py), so the
    chunks, their IDs and vectors follow the normalised text. IDs and sources stay as they are."""
    date = doc.date
    if not (date is None or isinstance(date, str)):
        date = str(date) if isinstance(date, (int, float)) and not isinstance(date, bool) else None
    blocks = tuple(dataclasses.replace(b, text=storable(normalize(b.text)), section=storable(normalize(b.section)))
                   for b in doc.blocks)
    return dataclasses.replace(doc, doc_id=storable(doc.doc_id), source=storable(doc.source), blocks=blocks,
                               title=storable(normalize(doc.title)), date=date)
