"""A PDF page's text in reading order, from PyMuPDF's own text extraction.

Measured on ../shared/data/pdfs/text against poppler's pdftotext (bench/reading_order_bench.py,
removed in 29a3e57; docs/history/RESULTS-history.md has the figures, "Issue 28: PDF reading order"):
`get_text(sort=True)` lays the page out line by line across the page, so two columns are read
across each other; the content-stream order MuPDF keeps without sorting reads the columns one
after the other for every PDF there, and MuPDF's page segmentation (TEXT_SEGMENT) reads columns
apart even when the stream interleaves their lines, but it splits single-column pages. So a
page is read in stream order, and segmented only when the stream visibly reads across columns
(consecutive wide lines side by side on one row).

From MuPDF's lines the text is assembled so that:
- a word hyphenated at a line end is joined ("limi-" + "tations" -> "limitations"), a compound
  broken at its hyphen keeps it ("BERT-" + "Base");
- lines side by side on one row (table cells) stay one row, cells separated by " | ";
- running headers and footers (a line in the top or bottom margin that recurs, digits aside, on
  at least half the pages) and bare page numbers in a margin are left out; the page number
  travels with the block for citations.
Ligatures come out as the letters they stand for (TEXT_PRESERVE_LIGATURES is not set).
"""

from __future__ import annotations

import re
from collections import Counter

MARGIN = 0.08  # the top and bottom share of the page where running headers and footers live
ROMAN = r"(?=[ivxlc])(x[cl]|l?x{0,3})(i[xv]|v?i{0,3})"
PAGE_NUMBER = re.compile(rf"(?i)(page\s*)?(\d{{1,5}}|{ROMAN})(\s*(of|/)\s*\d{{1,5}})?")
DIGITS = re.compile(r"\d+")
HYPHEN_END = re.compile(r"[^\W\d_]-$")
CELL_GAP = 1.5  # lines on one row further apart than this many line heights are table cells


def text_flags():
    import pymupdf

    return pymupdf.TEXT_MEDIABOX_CLIP | pymupdf.TEXT_CID_FOR_UNKNOWN_UNICODE


def page_lines(page, segment: bool = False) -> list[list[tuple[str, tuple]]]:
    """The page's text blocks, each a list of (line text, bbox), in MuPDF's order."""
    import pymupdf

    flags = text_flags() | (pymupdf.TEXT_SEGMENT if segment else 0)
    blocks = []
    for block in _text_blocks(page.get_text("dict", flags=flags)["blocks"]):
        lines = [("".join(s["text"] for s in line["spans"]), tuple(line["bbox"])) for line in block["lines"]]
        lines = [(text, box) for text, box in lines if text.strip()]
        if lines:
            blocks.append(lines)
    return blocks


def _text_blocks(blocks):
    """Text blocks in order, also those MuPDF's segmentation nests in structure blocks."""
    for block in blocks:
        if "lines" in block:
            yield block
        yield from _text_blocks(block.get("blocks", ()))


def reads_across(page, blocks) -> bool:
    """Whether the stream order jumps between columns: many consecutive wide lines side by side
    on one row (table cells are narrow, so a table does not count)."""
    lines = [line for block in blocks for line in block]
    wide = 0.25 * page.rect.width
    across = sum(1 for (_, a), (_, b) in zip(lines, lines[1:])
                 if _same_row(a, b) and b[0] > a[2] and min(a[2] - a[0], b[2] - b[0]) > wide)
    return across >= 3 and across >= 0.2 * len(lines)


def _same_row(a: tuple, b: tuple) -> bool:
    height = min(a[3] - a[1], b[3] - b[1])
    return height > 0 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5 * height


def margin_key(text: str, box: tuple, height: float) -> str | None:
    """A line's key as a possible running header or footer (digits masked), or None when it is
    not in the top or bottom margin."""
    if box[3] > MARGIN * height and box[1] < (1 - MARGIN) * height:
        return None
    return DIGITS.sub("#", " ".join(text.lower().split()))


def running_keys(pages_blocks: list[tuple[float, list]]) -> set[str]:
    """Margin lines that recur on at least half the pages (and on two at least)."""
    counts: Counter[str] = Counter()
    for height, blocks in pages_blocks:
        counts.update({k for block in blocks for text, box in block if (k := margin_key(text, box, height))})
    needed = max(2, (len(pages_blocks) + 1) // 2)
    return {key for key, n in counts.items() if n >= needed}


def assemble(blocks, height: float, running: set[str]) -> str:
    """Blocks -> text: blank line between blocks, lines side by side on one row kept as one row
    (also when MuPDF made each table cell a block), hyphenated line ends joined, running headers,
    footers and margin page numbers left out."""
    rows: list[list[tuple[str, tuple]]] = []
    starts: list[int] = []  # the block each row starts in
    ends: list[int] = []  # the block of each row's last cell
    for number, block in enumerate(blocks):
        for text, box in block:
            if _furniture(text, box, height, running):
                continue
            if rows and _same_row(rows[-1][-1][1], box) and box[0] >= rows[-1][-1][1][2] - 1:
                rows[-1].append((text, box))
                ends[-1] = number
            else:
                rows.append([(text, box)])
                starts.append(number)
                ends.append(number)
    paragraphs: list[list[str]] = []
    for i, row in enumerate(rows):
        if i == 0 or starts[i] != ends[i - 1]:
            paragraphs.append([])
        paragraphs[-1].append(_row_text(row))
    return "\n\n".join(_join_rows(p) for p in paragraphs)


def _furniture(text: str, box: tuple, height: float, running: set[str]) -> bool:
    key = margin_key(text, box, height)
    return key is not None and (key in running or PAGE_NUMBER.fullmatch(text.strip()) is not None)


def _row_text(row: list[tuple[str, tuple]]) -> str:
    text = row[0][0].strip()
    for (_, prev), (cell, box) in zip(row, row[1:]):
        gap = box[0] - prev[2]
        text += (" | " if gap > CELL_GAP * (box[3] - box[1]) else " ") + cell.strip()
    return text


def _join_rows(rows: list[str]) -> str:
    """Lines of a block, one a line; a word hyphenated at a line end is joined ("limi-" "tations"),
    a compound broken at its hyphen keeps it ("BERT-" "Base" -> "BERT-Base")."""
    text = rows[0]
    for row in rows[1:]:
        if HYPHEN_END.search(text) and row[:1].isalnum():
            text = (text[:-1] if row[:1].islower() else text) + row
        else:
            text += "\n" + row
    return text
