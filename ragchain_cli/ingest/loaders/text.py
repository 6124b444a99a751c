"""Plain text: one block, title from the first non-empty line when it is short."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ...types import Block, Document
from ._text import read_text


def load_text(path: Path, doc_id: str, options) -> Iterator[Document]:
    text = read_text(path)
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    title = first if len(first) <= 120 else ""
    yield Document(doc_id, str(path), (Block(text),), title=title, date=options.fallback_date)
