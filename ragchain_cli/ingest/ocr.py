"""OCR for pages without a text layer. Backends arrive with the OCR work; until one is
installed and chosen, a page without text stays empty and the loader says so."""

from __future__ import annotations


def ocr_page_text(page, text: str, mode: str) -> tuple[str, str | None]:
    """Return (text, backend name or None) for a page whose text layer is (nearly) empty."""
    return text, None
