"""OCR for pages without a text layer and for image files, offline.

A backend has one main method, `recognize(page) -> str`, where `page` is a PyMuPDF page: a PDF
page, or an image wrapped in a one-page PDF. Each backend class also has `check(**options)`, a
cheap test that raises DependencyMissing or ModelNotFound (with the install step) when it cannot
run here. Every backend gets the page upright (orientation.py: Tesseract's OSD). Backends register by name; `auto` takes the first installed one in PREFERENCE.
Importing this package imports no OCR engine: each backend imports its own inside its methods.
"""

from __future__ import annotations

import re
import warnings
from typing import Any, Protocol

from ...errors import LoaderError, RagchainError, UsageError
from ...loaded import load_once
from ...registry import Registry

OCR_BACKENDS = Registry("OCR backend")
OCR_BACKENDS.register("tesseract", "ragchain_cli.ingest.ocr.tesseract:TesseractBackend",
                      "Tesseract through PyMuPDF (Debian: tesseract-ocr tesseract-ocr-eng)")
OCR_BACKENDS.register("rapidocr", "ragchain_cli.ingest.ocr.rapidocr:RapidOcrBackend",
                      "RapidOCR on onnxruntime, pip only (models inside the wheel)")
OCR_BACKENDS.register("deepdoctection", "ragchain_cli.ingest.ocr.deepdoctection:DeepdoctectionBackend",
                      "deepdoctection pipeline with Tesseract; layout/tables with a weights folder")
OCR_BACKENDS.register("nougat", "ragchain_cli.ingest.ocr.nougat:NougatBackend",
                      "Nougat (scientific PDFs to Markdown) from a local model folder")

PREFERENCE = ("tesseract", "rapidocr", "deepdoctection", "nougat")
MODES = ("auto", "off")
INSTALL_HINT = "apt-get install tesseract-ocr tesseract-ocr-eng, or pip install rapidocr onnxruntime"



class OcrBackend(Protocol):
    name: str

    def recognize(self, page: Any) -> str:
        """The text of one PyMuPDF page, lines separated by newlines."""
        ...


class OcrWarning(UserWarning):
    """A page without text that stays empty (no OCR backend installed)."""


class OcrMode(str):
    """An --ocr value ('auto', 'off' or a backend name) that also carries each backend's options,
    e.g. OcrMode('nougat', nougat={'model': '/models/nougat-base'}). It is a str, equal to the plain
    name, so loaders pass `options.ocr` along and compare it with "off" without knowing the options."""

    options: dict[str, dict[str, Any]]

    def __new__(cls, name: str = "auto", **options: dict[str, Any]) -> "OcrMode":
        mode = super().__new__(cls, name)
        merged = {key: dict(value) for key, value in getattr(name, "options", {}).items()}
        for key, value in options.items():  # an empty value (no --nougat-model) keeps what `name` carried
            merged.setdefault(key, {}).update({k: v for k, v in value.items() if v})
        mode.options = merged
        return mode


def options_for(mode: str, name: str) -> dict[str, Any]:
    return dict(getattr(mode, "options", {}).get(name, {}))


def check_mode(mode: str) -> None:
    """Fail early for an unknown --ocr value or an explicitly chosen backend that cannot run."""
    if mode in MODES:
        return
    if mode not in OCR_BACKENDS:
        raise UsageError(f"unknown OCR mode {mode!r}", f"choose one of: {', '.join(MODES + tuple(PREFERENCE))}")
    OCR_BACKENDS.get(mode).check(**options_for(mode, mode))


def installed(name: str, mode: str = "auto") -> bool:
    """Whether backend `name` can run here (cheap: no engine is loaded)."""
    try:
        OCR_BACKENDS.get(name).check(**options_for(mode, name))
    except RagchainError:
        return False
    return True


def best_installed(mode: str = "auto") -> str | None:
    """The first backend of PREFERENCE that can run here, or None."""
    return next((name for name in PREFERENCE if installed(name, mode)), None)


def get_backend(name: str, **options: Any) -> OcrBackend:
    """One backend per name and options per process (models load once)."""
    key = ("ocr", name, tuple(sorted(options.items())))
    return load_once(key, lambda: OCR_BACKENDS.create(name, **options))


def resolve(mode: str) -> str | None:
    """The backend name a mode stands for: None for off, or for auto when nothing is installed."""
    if mode == "off":
        return None
    if mode == "auto":
        return best_installed(mode)
    check_mode(mode)
    return str(mode)


def recognize(page: Any, mode: str) -> tuple[str, str | None]:
    """OCR one page with the backend `mode` resolves to: (clean text, backend name or None)."""
    name = resolve(mode)
    if name is None:
        return "", None
    from .orientation import upright

    with upright(page):  # a scan turned by 90/180/270 degrees is read upright
        text = clean(get_backend(name, **options_for(mode, name)).recognize(page))
    return text, (name if text else None)


def ocr_page_text(page: Any, text: str, mode: str) -> tuple[str, str | None]:
    """Return (text, backend name or None) for a PDF page whose text layer is (nearly) empty.

    With nothing installed under `auto`, a PDF with no text on any page raises LoaderError (OCR is
    needed, and how to install it); in a PDF with text elsewhere the page is reported by an
    OcrWarning and left as it is.
    """
    if mode == "off":
        return text, None
    name = resolve(mode)
    if name is None:
        _report_unreadable(page, text)
        return text, None
    found, backend = recognize(page, mode)
    return (found, backend) if found else (text, None)


def _report_unreadable(page: Any, text: str) -> None:
    doc = page.parent
    source = getattr(doc, "name", "") or "PDF"
    if not any(doc.load_page(n).get_text("text").strip() for n in range(doc.page_count)):  # stops at a text page
        raise LoaderError(f"no text layer on any of {doc.page_count} page(s): OCR is needed and no OCR backend "
                          f"is installed ({INSTALL_HINT})")
    if not text.strip():
        warnings.warn(f"{source} page {page.number + 1} has no text layer and no OCR backend is installed "
                      f"({INSTALL_HINT})", OcrWarning, stacklevel=3)


def clean(text: str) -> str:
    """Trim trailing spaces and runs of blank lines from OCR output."""
    lines = [line.rstrip() for line in text.replace("\r", "\n").split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


__all__ = ["OCR_BACKENDS", "OcrBackend", "OcrMode", "OcrWarning", "best_installed", "check_mode", "get_backend",
           "installed", "ocr_page_text", "recognize"]
