"""Loaders, one per file type, chosen by suffix and checked against the content.

A loader turns one file into one or more Documents; it raises LoaderError (with the reason)
for a file it cannot read, and the ingest reports it and goes on. The errors a parser raises on
hostile content (FILE_ERRORS) become such a skip too; any other exception is a bug in ragchain
and stops the ingest with a traceback.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from ...errors import LoaderError, RagchainError
from ...registry import Registry
from ...types import Document

LOADERS = Registry("loader")
LOADERS.register("text", "ragchain_cli.ingest.loaders.text:load_text", "plain text (.txt)")
LOADERS.register("markdown", "ragchain_cli.ingest.loaders.markdown:load_markdown", "Markdown with front matter")
LOADERS.register("html", "ragchain_cli.ingest.loaders.html:load_html", "HTML through a real parser")
LOADERS.register("pdf", "ragchain_cli.ingest.loaders.pdf:load_pdf", "PDF through PyMuPDF, page by page")
LOADERS.register("jsonl", "ragchain_cli.ingest.loaders.jsonl:load_jsonl", "BEIR JSONL corpus, one document a line")
LOADERS.register("image", "ragchain_cli.ingest.loaders.image:load_image", "PNG, JPEG, TIFF through OCR")

# What parsers raise on bad content: malformed values (ValueError, UnicodeError, JSON), nesting too
# deep (RecursionError), damaged streams (OSError, EOFError, zlib.error), PyMuPDF's RuntimeErrors,
# a file too big to hold (MemoryError), numbers out of range (OverflowError).
FILE_ERRORS = (ValueError, RecursionError, RuntimeError, OSError, EOFError, zlib.error, MemoryError, OverflowError)

SUFFIXES = {
    ".txt": "text", ".text": "text", ".rst": "text",
    ".md": "markdown", ".markdown": "markdown",
    ".html": "html", ".htm": "html", ".xhtml": "html",
    ".pdf": "pdf",
    ".jsonl": "jsonl", ".jsonl.gz": "jsonl",
    ".png": "image", ".jpg": "image", ".jpeg": "image", ".tif": "image", ".tiff": "image",
}


class Loader(Protocol):
    def __call__(self, path: Path, doc_id: str, options: "LoadOptions") -> Iterator[Document]: ...


class LoadOptions:
    """Per-run loader options (PDF password, OCR mode with the backends' options, fallback date)."""

    def __init__(self, pdf_password: str = "", ocr: str = "auto", fallback_date: str | None = None,
                 nougat_model: str = "") -> None:
        from ..ocr import OcrMode

        self.pdf_password = pdf_password
        self.ocr = OcrMode(ocr, nougat={"model": nougat_model})
        self.fallback_date = fallback_date


def loader_name(path: Path) -> str | None:
    """The loader for a path by suffix, or None when the file type is not handled."""
    name = path.name.lower()
    if name.endswith(".jsonl.gz"):
        return "jsonl"
    return SUFFIXES.get(Path(name).suffix)


def load(path: Path, doc_id: str, options: LoadOptions) -> list[Document]:
    """All of the file's documents; any failure is a LoaderError."""
    return list(iter_load(path, doc_id, options))


def iter_load(path: Path, doc_id: str, options: LoadOptions) -> Iterator[Document]:
    """The file's documents, one at a time; any failure (at once or part way) is a LoaderError."""
    name = loader_name(path)
    if name is None:
        raise LoaderError(f"unsupported file type {path.suffix or '(none)'}")
    _sniff(path, name)
    loader = LOADERS.get(name)
    try:
        yield from loader(path, doc_id, options)
    except RagchainError:
        raise
    except FILE_ERRORS as exc:  # one hostile file (JSON nested 100k deep, an int of 5000 digits ...) is a skip
        reason = " ".join(f"{type(exc).__name__}: {exc}".split())
        raise LoaderError(f"cannot load ({reason[:200]})") from None


def _sniff(path: Path, name: str) -> None:
    """Check that the content looks like its suffix claims before parsing it."""
    try:
        with path.open("rb") as handle:
            head = handle.read(8192)
    except OSError as exc:
        raise LoaderError(f"cannot read: {exc.strerror or exc}") from None
    if not head:
        raise LoaderError("empty file")
    if name == "pdf" and not head.lstrip()[:5] == b"%PDF-":
        raise LoaderError("not a PDF (no %PDF header)")
    if name == "image":
        from .image import is_image

        if not is_image(head):
            raise LoaderError("not a PNG, JPEG or TIFF image (no image signature)")
    if name == "jsonl" and path.name.lower().endswith(".gz"):
        if head[:2] != b"\x1f\x8b":
            raise LoaderError("not gzip data")
        return
    if name in ("text", "markdown", "html", "jsonl") and b"\x00" in head:
        raise LoaderError("binary content (NUL bytes) in a text file")
