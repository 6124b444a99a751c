"""PDF through PyMuPDF: one block per page (1-based page numbers) in reading order (pdf_text.py),
title and creation date from the document metadata. Encrypted files open with --pdf-password or are reported."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path

from ...errors import LoaderError
from ...types import Block, Document
from .pdf_text import assemble, page_lines, reads_across, running_keys

PDF_DATE = re.compile(r"D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?")
MAX_PAGES = 20_000
RTL_SCRIPT = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")  # Hebrew, Arabic, Syriac, Thaana, ...
PRESENTATION_FORMS = re.compile("[\ufb50-\ufdff\ufe70-\ufefc]+")  # Arabic presentation forms A and B


def pdf_date(value: str | None) -> str | None:
    """'D:20240131120000+01'00'' -> '2024-01-31T12:00:00' (local time as written)."""
    match = PDF_DATE.match(value or "")
    if not match:
        return None
    y, mo, d, h, mi, s = (g or default for g, default in zip(match.groups(), ("", "01", "01", "00", "00", "00")))
    return f"{y}-{mo}-{d}T{h}:{mi}:{s}"


REPAIRED = "damaged PDF, read as far as it could be repaired: some text may be missing"


def damage_errors() -> tuple[type[Exception], ...]:
    """What PyMuPDF raises for a damaged file or page: its own RuntimeErrors, ValueErrors and the
    MuPDF library's errors (FzErrorFormat, FzErrorLibrary, ...), which derive from Exception only."""
    import pymupdf

    return (RuntimeError, ValueError, pymupdf.mupdf.FzErrorBase)


def open_pdf(path: Path, password: str):
    import pymupdf

    try:
        doc = pymupdf.open(str(path), filetype="pdf")
    except Exception as exc:  # PyMuPDF raises its own and generic errors for damaged files
        raise LoaderError(f"corrupt or unreadable PDF ({exc})") from None
    if doc.needs_pass:
        if not password or not doc.authenticate(password):
            doc.close()
            hint = "wrong --pdf-password" if password else "encrypted PDF: pass --pdf-password to open it"
            raise LoaderError(hint)
    if doc.page_count == 0:
        doc.close()
        raise LoaderError("PDF has no pages")
    return doc


def paints_marks(page) -> bool:
    """Whether the page paints anything OCR could read (an image, a shading, a path): a blank page
    (nothing painted, or only text already in its text layer) is never sent to OCR, so a PDF of
    thousands of empty pages loads in seconds, not one OCR run per page."""
    return any(kind.startswith(("fill-", "stroke-")) and not kind.endswith("-text")
               for kind, _rect in page.get_bboxlog())


def page_text(page, blocks, running: set[str]) -> str:
    """The page's text layer in reading order (pdf_text.py). A right-to-left page (Hebrew or Arabic
    script) is taken as MuPDF's plain text in content-stream order, the logical order, with Arabic
    presentation forms (the shaped glyphs many PDFs map to) made the letters they show."""
    text = assemble(blocks, page.rect.height, running)
    if RTL_SCRIPT.search(text):
        text = PRESENTATION_FORMS.sub(lambda m: unicodedata.normalize("NFKC", m.group()), page.get_text("text"))
    return text.strip()


def read_pages(doc) -> list[tuple[float, list]]:
    """Each page's text blocks (pdf_text.page_lines), segmented where the stream reads across columns."""
    pages = []
    for number in range(min(doc.page_count, MAX_PAGES)):
        page = doc.load_page(number)
        blocks = page_lines(page)
        if reads_across(page, blocks):
            blocks = page_lines(page, segment=True)
        pages.append((page.rect.height, blocks))
    return pages


def page_blocks(doc, options) -> list[Block]:
    from ..ocr import ocr_page_text

    pages = read_pages(doc)
    running = running_keys(pages)
    blocks = []
    for number, (_height, lines) in enumerate(pages):
        page = doc.load_page(number)
        text = page_text(page, lines, running)
        backend = None
        if len(text) < 20 and options.ocr != "off" and paints_marks(page):
            text, backend = ocr_page_text(page, text, options.ocr)
        if text.strip():
            blocks.append(Block(text, page=number + 1, ocr=backend))
    return blocks


def load_pdf(path: Path, doc_id: str, options) -> Iterator[Document]:
    doc = open_pdf(path, options.pdf_password)
    try:
        meta = doc.metadata or {}
        try:
            blocks = page_blocks(doc, options)
        except damage_errors() as exc:
            raise LoaderError(f"damaged PDF page ({exc})") from None
        if not blocks and getattr(doc, "is_repaired", False):
            raise LoaderError(f"damaged or truncated PDF: no readable text on any of {doc.page_count} page(s)")
        if not blocks:
            raise LoaderError(f"no text on any of {doc.page_count} page(s) (scanned? see --ocr)")
        date = pdf_date(meta.get("creationDate")) or pdf_date(meta.get("modDate")) or options.fallback_date
        title = (meta.get("title") or "").strip()
        extra = {"pages": str(doc.page_count)}
        if getattr(doc, "is_repaired", False):  # truncated or damaged: MuPDF rebuilt what it could
            extra["damaged"] = REPAIRED
        yield Document(doc_id, str(path), tuple(blocks), title=title, date=date, metadata=extra)
    finally:
        doc.close()
