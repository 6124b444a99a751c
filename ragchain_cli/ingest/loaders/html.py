"""HTML through BeautifulSoup: script, style and navigation dropped; sections by headings; table
rows read as records naming their columns (_tables.py), a definition list's terms read with their
definitions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ...errors import LoaderError
from ...types import Block, Document
from ._tables import record
from ._text import read_text

DROP = ("script", "style", "noscript", "template", "nav", "svg", "iframe", "head")
HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
BLOCKS = HEADINGS + ("p", "li", "pre", "blockquote", "tr", "dt", "dd", "caption", "figcaption")
DATE_META = ("article:published_time", "date", "dc.date", "dcterms.date", "og:updated_time")


def _meta_date(soup) -> str | None:
    for tag in soup.find_all("meta"):
        key = (tag.get("property") or tag.get("name") or "").lower()
        if key in DATE_META and tag.get("content"):
            return tag["content"].strip()
    time = soup.find("time", attrs={"datetime": True})
    return time["datetime"].strip() if time else None


def _lines(root) -> list[tuple[str, str]]:
    """(tag name, text) for every block-level element that has no block-level child."""
    out = []
    for element in root.find_all(BLOCKS):
        if element.find(BLOCKS):
            continue
        text = _row(element) if element.name == "tr" else _definition(element)
        if text:
            out.append((element.name, text))
    if not out:
        text = root.get_text(" ", strip=True)
        out = [("p", text)] if text else []
    return out


def _definition(element) -> str:
    """A term and its definition as one line, "term: definition" (a <dt> followed by a <dd> is
    read with it, so the definition's sentences keep their subject); any other block as it is."""
    text = element.get_text(" ", strip=True)
    if element.name == "dt" and getattr(element.find_next_sibling(True), "name", None) == "dd":
        return ""
    term = element.find_previous_sibling(True) if element.name == "dd" else None
    if term is not None and term.name == "dt" and text:
        return f"{term.get_text(' ', strip=True).rstrip(':')}: {text}"
    return text


def _cells(row) -> list:
    return row.find_all(("th", "td"), recursive=False)


def _row(row) -> str:
    """A table row as a record naming its columns (_tables.py) when its table has a header row of
    the same width; the header row itself is then left out, as every row carries it."""
    table = row.find_parent("table")
    first = table.find("tr") if table is not None else None
    cells = [c.get_text(" ", strip=True) for c in _cells(row)]
    head = _cells(first) if first is not None else []
    if not head or any(c.name != "th" for c in head):
        return record([], cells)
    if row is first:
        return ""
    return record([c.get_text(" ", strip=True) for c in head], cells)


def load_html(path: Path, doc_id: str, options) -> Iterator[Document]:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(read_text(path), "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    date = _meta_date(soup) or options.fallback_date
    for tag in soup.find_all(DROP):
        tag.decompose()
    root = soup.body or soup
    blocks: list[Block] = []
    path_: list[tuple[int, str]] = []
    current: list[str] = []
    for name, text in _lines(root):
        if name in HEADINGS:
            if current:
                blocks.append(Block("\n".join(current), section=" > ".join(p[1] for p in path_)))
            level = int(name[1])
            path_ = [p for p in path_ if p[0] < level] + [(level, text)]
            current = [text]
        else:
            current.append(text)
    if current:
        blocks.append(Block("\n".join(current), section=" > ".join(p[1] for p in path_)))
    if not blocks:
        raise LoaderError("no visible text in the HTML")
    yield Document(doc_id, str(path), tuple(blocks), title=title or (path_[0][1] if path_ else ""), date=date)
