"""Tesseract through PyMuPDF's built-in OCR: `page.get_textpage_ocr(...)`, then the page's text.

PyMuPDF carries the Tesseract engine; it needs only the language data (Debian: tesseract-ocr and
tesseract-ocr-eng). The tessdata folder is found without the `tesseract` program: TESSDATA_PREFIX
when set, else the usual install places.
"""

from __future__ import annotations

import glob
import importlib.util
import os
from pathlib import Path
from typing import Any

from ...errors import DependencyMissing
from .render import render_dpi

TESSDATA_PLACES = (
    "/usr/share/tesseract-ocr/*/tessdata",
    "/usr/share/tessdata",
    "/usr/local/share/tessdata",
    "/usr/local/share/tesseract-ocr/*/tessdata",
    "/opt/homebrew/share/tessdata",
    "/opt/local/share/tessdata",
)
INSTALL = "apt-get install tesseract-ocr tesseract-ocr-eng (or set TESSDATA_PREFIX to a tessdata folder)"


def find_tessdata(language: str = "eng") -> Path | None:
    """The first tessdata folder holding `<language>.traineddata`, or None."""
    candidates: list[str] = []
    prefix = os.environ.get("TESSDATA_PREFIX", "")
    if prefix:
        candidates += [prefix, os.path.join(prefix, "tessdata")]
    for pattern in TESSDATA_PLACES:
        candidates += sorted(glob.glob(pattern), reverse=True)
    first = language.split("+")[0]
    return next((Path(c) for c in candidates if (Path(c) / f"{first}.traineddata").is_file()), None)


class TesseractBackend:
    name = "tesseract"
    install = INSTALL

    def __init__(self, language: str = "eng", max_dpi: int = 300) -> None:
        self.tessdata = self.check(language=language)
        self.language = language
        self.max_dpi = max_dpi

    @classmethod
    def check(cls, language: str = "eng", **_: Any) -> Path:
        if importlib.util.find_spec("pymupdf") is None:
            raise DependencyMissing("PyMuPDF is not installed", "pip install pymupdf")
        tessdata = find_tessdata(language)
        if tessdata is None:
            raise DependencyMissing(f"no Tesseract language data for {language!r} was found", INSTALL)
        return tessdata

    def recognize(self, page: Any) -> str:
        dpi = render_dpi(page, self.max_dpi)
        textpage = page.get_textpage_ocr(language=self.language, dpi=dpi, full=True, tessdata=str(self.tessdata))
        return page.get_text("text", textpage=textpage, sort=True)
