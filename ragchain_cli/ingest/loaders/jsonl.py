"""BEIR-layout JSONL corpora: one {"_id", "title", "text"} document a line, .jsonl or .jsonl.gz."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path

from ...errors import LoaderError
from ...types import Block, Document


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    opener = gzip.open if path.name.lower().endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8") as handle:
            yield from enumerate(handle, start=1)
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
    for number, line in _lines(path):
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
        yield Document(rid, f"{path}#{number}", (Block(text or title),), title=title, date=date)
    if not seen:
        raise LoaderError("no documents in the JSONL file")
