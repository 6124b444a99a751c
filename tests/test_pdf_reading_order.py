"""PDF text in reading order (loaders/pdf_text.py), on a two-column PDF made here with PyMuPDF.

Its content stream interleaves the columns line by line (left line, right line, ...), as some
producers write them, so neither the stream order nor a top-to-bottom sort reads them apart;
each page has a running header and a page number, one word is hyphenated at a line end, and a
small table (on a page of its own) is written cell by cell."""

from __future__ import annotations

import re

from ragchain_cli.ingest.loaders import LoadOptions, load

LEFT = ["The harbour of Heron Inlet froze in the", "winter of 1911, and the fishing fleet stayed",
        "ashore for eleven weeks. Merchants hauled", "grain across the ice on sledges pulled by",
        "horses. The town council recorded every", "crossing in a ledger that survives in the",
        "county archive, where it was cata-", "logued in 1950 by the parish clerk."]
RIGHT = ["Lighthouse keepers on Gannet Rock measured", "the tide twice a day for forty years. Their",
         "notebooks show that the highest water came", "in the spring of 1923, after a storm from the",
         "north east. A copper plate on the pier still", "marks the level the sea reached that night.",
         "The keepers were paid in salt fish and coal", "until the light was automated in 1961."]
TABLE = [["Year", "Crossings", "Sledges"], ["1911", "412", "37"], ["1912", "96", "11"]]
HEADER = "Journal of Coastal Records, volume 12"


def two_column_pdf(path, pages: int = 2):
    """`pages` two-column pages, then a page with a table (when pages > 1)."""
    import pymupdf

    doc = pymupdf.open()
    for number in range(1, pages + 1 + (pages > 1)):
        page = doc.new_page(width=595, height=842)
        page.insert_text((200, 40), HEADER, fontsize=9)
        if number <= pages:
            for i, (left, right) in enumerate(zip(LEFT, RIGHT)):  # the stream reads across the columns
                page.insert_text((50, 100 + 13 * i), left, fontsize=10)
                page.insert_text((310, 100 + 13 * i), right, fontsize=10)
        else:
            page.insert_text((60, 100), "Crossings of the frozen harbour by year:", fontsize=10)
            for r, row in enumerate(TABLE):
                for c, cell in enumerate(row):
                    page.insert_text((60 + 120 * c, 130 + 14 * r), cell, fontsize=10)
        page.insert_text((290, 815), f"Page {number}", fontsize=9)
    doc.save(str(path))
    doc.close()
    return path


def _sentences(lines: list[str]) -> list[str]:
    text = re.sub(r"-\s+(?=[a-z])", "", " ".join(lines))
    return [s for s in re.split(r"(?<=\.)\s+", text) if s]


def test_columns_are_read_one_after_the_other_with_pages_kept(tmp_path):
    [doc] = load(two_column_pdf(tmp_path / "columns.pdf"), "columns", LoadOptions(ocr="off"))
    assert [b.page for b in doc.blocks] == [1, 2, 3]
    for block in doc.blocks[:2]:
        flat = " ".join(block.text.split())
        positions = [flat.find(s) for s in _sentences(LEFT) + _sentences(RIGHT)]
        assert -1 not in positions, (flat, positions)
        assert positions == sorted(positions), "the left column is read before the right one"


def test_hyphenation_running_header_page_numbers_and_table_rows(tmp_path):
    [doc] = load(two_column_pdf(tmp_path / "columns.pdf"), "columns", LoadOptions(ocr="off"))
    text = doc.blocks[0].text
    assert "catalogued" in text and "cata-" not in text
    assert all(HEADER not in b.text and f"Page {b.page}" not in b.text for b in doc.blocks)
    rows = [" ".join(line.replace("|", " ").split()) for line in doc.blocks[2].text.splitlines()]
    assert ["Year Crossings Sledges", "1911 412 37", "1912 96 11"] == [r for r in rows if r[:4] in ("Year", "1911", "1912")]


def test_a_single_page_keeps_its_only_header(tmp_path):
    """A header seen on one page only is not known to be running: it stays (the page number goes)."""
    [doc] = load(two_column_pdf(tmp_path / "one.pdf", pages=1), "one", LoadOptions(ocr="off"))
    assert HEADER in doc.blocks[0].text and "Page 1" not in doc.blocks[0].text
