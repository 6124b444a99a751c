"""Markdown: YAML front matter (title, date, id), one block per heading section; pipe tables read
row by row as records naming their columns (_tables.py)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from pathlib import Path

from ...errors import LoaderError
from ...types import Block, Document
from ._tables import markdown_tables
from ._text import read_text

FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
FENCE = re.compile(r"^(```|~~~)")


def front_matter(text: str) -> tuple[dict, str]:
    match = FRONT_MATTER.match(text)
    if not match:
        return {}, text
    import yaml

    try:
        data = yaml.safe_load(match.group(1)) or {}
    except yaml.YAMLError as exc:
        raise LoaderError(f"invalid YAML front matter: {str(exc).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise LoaderError("front matter is not a mapping")
    return data, text[match.end():]


def iso_date(value) -> str | None:
    if isinstance(value, dt.datetime):
        return value.isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


def _bounded(value) -> str:
    """A front-matter value as text of bounded size: str() of a YAML alias bomb (lists of aliases
    of lists ...) would expand to billions of items; reprlib cuts depth and length instead."""
    import reprlib

    if not isinstance(value, (list, dict, tuple, set)):
        return str(value)
    shown = reprlib.Repr()
    shown.maxlevel, shown.maxstring, shown.maxother = 3, 200, 200
    shown.maxlist = shown.maxtuple = shown.maxdict = shown.maxset = 20
    return shown.repr(value)


def sections(body: str) -> list[tuple[str, str]]:
    """Split into (heading path, text) pairs; headings inside code fences do not count."""
    path: list[tuple[int, str]] = []
    out: list[tuple[str, list[str]]] = [("", [])]
    in_fence = False
    for line in body.split("\n"):
        if FENCE.match(line):
            in_fence = not in_fence
        match = None if in_fence else HEADING.match(line)
        if match:
            level = len(match.group(1))
            path = [p for p in path if p[0] < level] + [(level, match.group(2).strip())]
            out.append((" > ".join(p[1] for p in path), []))
        out[-1][1].append(line)
    texts = [(heading, markdown_tables("\n".join(lines)).strip()) for heading, lines in out]
    return [(heading, text) for heading, text in texts if text]


def load_markdown(path: Path, doc_id: str, options) -> Iterator[Document]:
    meta, body = front_matter(read_text(path))
    parts = sections(body)
    if not parts:
        raise LoaderError("no text after the front matter")
    title = str(meta.get("title") or "")
    if not title:
        title = next((h.split(" > ")[0] for h, _ in parts if h), "")
    date = iso_date(meta.get("date")) or options.fallback_date
    blocks = tuple(Block(text, section=heading) for heading, text in parts)
    metadata = {str(k): _bounded(v) for k, v in meta.items() if k not in ("title", "date")}
    yield Document(doc_id, str(path), blocks, title=title, date=date, metadata=metadata)
