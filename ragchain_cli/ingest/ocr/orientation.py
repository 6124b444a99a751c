"""Page orientation before OCR: a scan turned by 90, 180 or 270 degrees OCRs to garbage, so the
page is turned upright first.

The orientation comes from Tesseract's orientation and script detection (OSD: the `tesseract`
program with `osd.traineddata`, both in Debian's tesseract-ocr package), run on a small grey
rendering of the page (~1 s). OSD answers "Rotate: R" (turn the image R degrees clockwise) with a
confidence; the page's /Rotate is set to match for the OCR and restored afterwards. Without OSD
installed, or when it is unsure (a page with too little text), the page is read as it is.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from contextlib import contextmanager
from typing import Any

from .tesseract import find_tessdata

OSD_DPI = 150
MIN_CONFIDENCE = 1.5  # Tesseract's orientation confidence; upright and turned scans give 2.5-4
TIMEOUT_S = 60
_ROTATE = re.compile(r"^Rotate:\s*(\d+)", re.MULTILINE)
_CONFIDENCE = re.compile(r"^Orientation confidence:\s*([\d.]+)", re.MULTILINE)


def osd_available() -> bool:
    return shutil.which("tesseract") is not None and find_tessdata("osd") is not None


def detect_rotation(page: Any) -> int:
    """Degrees (0, 90, 180, 270) to turn the page clockwise so that its text is upright; 0 when
    OSD is not installed, finds too little text, or is unsure."""
    if not osd_available():
        return 0
    import pymupdf

    png = page.get_pixmap(dpi=OSD_DPI, colorspace=pymupdf.csGRAY, alpha=False).tobytes("png")
    command = ["tesseract", "stdin", "stdout", "--psm", "0", "--tessdata-dir", str(find_tessdata("osd"))]
    try:
        result = subprocess.run(command, input=png, capture_output=True, timeout=TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired):
        return 0
    return parse_osd(result.stdout.decode("utf-8", "replace")) if result.returncode == 0 else 0


def parse_osd(report: str) -> int:
    """The clockwise turn from Tesseract's OSD report, or 0 when it is missing or unsure."""
    rotate, confidence = _ROTATE.search(report), _CONFIDENCE.search(report)
    if not rotate or not confidence or float(confidence.group(1)) < MIN_CONFIDENCE:
        return 0
    degrees = int(rotate.group(1))
    return degrees if degrees in (90, 180, 270) else 0


@contextmanager
def upright(page: Any):
    """The page turned upright for the duration of the block (its /Rotate restored after);
    yields the turn applied in degrees."""
    turn = detect_rotation(page)
    if not turn:
        yield 0
        return
    before = page.rotation
    page.set_rotation((before + turn) % 360)
    try:
        yield turn
    finally:
        page.set_rotation(before)
