"""BEIR-layout JSONL corpora: one {"_id", "title", "text"} document a line, .jsonl or .jsonl.gz."""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Iterator
from pathlib import Path

from ...errors import LoaderError
from ...types import Block, Document


def _lines(path: Path) -> Iterator[tuple[int, str, int]]:
    """Each line with its number and the bytes of the file read so far (of a .gz: compressed bytes,
    so that they compare with its size), for the ingest's progress."""
    try:
        with open(path, "rb") as raw:
            unzipped = gzip.GzipFile(fileobj=raw) if path.name.lower().endswith(".gz") else raw
            with io.TextIOWrapper(unzipped, encoding="utf-8") as handle:
                for number, line in enumerate(handle, start=1):
                    yield number, line, raw.tell()
    except UnicodeDecodeError as exc:
        raise LoaderError(f"invalid UTF-8 ({exc.reason})") from None
    except (OSError, EOFError) as exc:
        raise LoaderError(f"cannot read: {exc}") from None


def parse_line(path: Path, number: int, line: str) -> dict | None:
    if not line.strip():
        return None
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise LoaderError(f"line {number}: invalid JSON ({exc.msg})") from None
    if not isinstance(record, dict) or "_id" not in record or not isinstance(record.get("text", ""), str):
        raise LoaderError(f'line {number}: expected an object with "_id" and "text"')
    return record


def load_jsonl(path: Path, doc_id: str, options) -> Iterator[Document]:
    seen: set[str] = set()
    for number, line, read in _lines(path):
        record = parse_line(path, number, line)
        if record is None:
            continue
        rid = str(record["_id"]).strip()
        if not rid or rid in seen:
            raise LoaderError(f"line {number}: {'empty' if not rid else 'duplicate'} _id {rid!r}")
        seen.add(rid)
        text = str(record.get("text") or "").strip()
        title = str(record.get("title") or "").strip()
        if not text and not title:
            continue
        date = record.get("date") or options.fallback_date
        yield Document(rid, f"{path}#{number}", (Block(text or title),), title=title, date=date, read_to=read)
    if not seen:
        raise LoaderError("no documents in the JSONL file")
