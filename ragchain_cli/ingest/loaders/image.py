"""Images (PNG, JPEG, TIFF) through OCR: one document per file, one block per frame (a multi-page
TIFF gives pages 1..N). PyMuPDF wraps the image in a PDF so every OCR backend sees a page."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ...errors import LoaderError
from ...types import Block, Document
from ..ocr import INSTALL_HINT, recognize, resolve
from .pdf import damage_errors

MAX_FRAMES = 2_000
SIGNATURES = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"II*\x00", b"MM\x00*", b"II+\x00", b"MM\x00+")


def is_image(head: bytes) -> bool:
    """Whether the first bytes of a file are a PNG, JPEG or TIFF (or BigTIFF) signature."""
    return head.startswith(SIGNATURES)


def open_image_as_pdf(path: Path):
    """The image's frames as pages of an in-memory PDF."""
    import pymupdf

    try:
        with pymupdf.open(str(path)) as image:
            if image.page_count == 0:
                raise LoaderError("image has no frames")
            data = image.convert_to_pdf(0, min(image.page_count, MAX_FRAMES) - 1)
    except damage_errors() as exc:  # a damaged or unsupported image (a valid signature, then garbage)
        raise LoaderError(f"corrupt or unreadable image ({exc})") from None
    return pymupdf.open("pdf", data)


def load_image(path: Path, doc_id: str, options) -> Iterator[Document]:
    mode = options.ocr
    if mode == "off":
        raise LoaderError("an image needs OCR, which --ocr off turns off")
    if resolve(mode) is None:
        raise LoaderError(f"an image needs OCR and no OCR backend is installed ({INSTALL_HINT})")
    pdf = open_image_as_pdf(path)
    try:
        frames = pdf.page_count
        blocks = []
        for number in range(frames):
            page = pdf.load_page(number)
            try:
                text, backend = recognize(page, mode)
            except damage_errors() as exc:  # OCR engine failures, or a frame that fails to decode
                raise LoaderError(f"OCR failed on frame {number + 1} ({exc})") from None
            if text:
                blocks.append(Block(text, page=number + 1 if frames > 1 else None, ocr=backend))
    finally:
        pdf.close()
    if not blocks:
        raise LoaderError(f"OCR found no text in the image ({frames} frame(s))")
    metadata = {"pages": str(frames)} if frames > 1 else {}
    yield Document(doc_id, str(path), tuple(blocks), date=options.fallback_date, metadata=metadata)
