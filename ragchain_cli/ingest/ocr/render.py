"""Turn a PyMuPDF page into pixels for the OCR engines that take images.

A scanned page is one full-page image; rendering it near that image's own resolution keeps the
pixels the scanner made (no blur from resampling, no time spent on upscaling).
"""

from __future__ import annotations

from typing import Any

MIN_DPI = 72


def native_dpi(page: Any) -> float | None:
    """The resolution of the largest image on the page, in pixels per inch of the page, if any."""
    best = None
    for info in page.get_images(full=True):
        xref, width = info[0], info[2]
        for rect in page.get_image_rects(xref):
            if rect.width > 0 and (best is None or rect.width * rect.height > best[0]):
                best = (rect.width * rect.height, 72.0 * width / rect.width)
    return best[1] if best else None


def render_dpi(page: Any, max_dpi: int, max_side: int | None = None) -> int:
    """The dpi to render at: the scan's own resolution, at most max_dpi and at most max_side pixels."""
    dpi = min(native_dpi(page) or max_dpi, max_dpi)
    if max_side:
        longest = max(page.rect.width, page.rect.height) or 1.0
        dpi = min(dpi, max_side * 72.0 / longest)
    return max(int(round(dpi)), MIN_DPI)


def render_rgb(page: Any, dpi: int):
    """The page as an RGB numpy array of shape (height, width, 3)."""
    import numpy as np
    import pymupdf

    pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csRGB, alpha=False)
    return np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n).copy()


def render_png(page: Any, dpi: int) -> bytes:
    import pymupdf

    return page.get_pixmap(dpi=dpi, colorspace=pymupdf.csRGB, alpha=False).tobytes("png")


def render_pil(page: Any, dpi: int):
    from PIL import Image

    return Image.fromarray(render_rgb(page, dpi), mode="RGB")
