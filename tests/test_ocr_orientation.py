"""A scanned page turned by 90, 180 or 270 degrees is read upright (Tesseract's OSD picks the
turn). On a page the test renders (so CI always runs it) and on a rotated copy of the shared scan."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ragchain_cli.ingest.loaders import LoadOptions, load
from ragchain_cli.ingest.ocr import OcrMode, recognize
from ragchain_cli.ingest.ocr.orientation import parse_osd
from ragchain_cli.ingest.ocr.tesseract import find_tessdata

from test_ocr import (SCANNED, SHARED_SCAN, SHARED_TRUTH, char_accuracy, image_pdf, missing, needs_shared_scan,
                      text_pixmap)

def osd_missing() -> str:
    """What exactly is missing for orientation detection ("" when nothing is)."""
    if shutil.which("tesseract") is None:
        return "the `tesseract` program is not on PATH (Debian: apt-get install tesseract-ocr)"
    if find_tessdata("osd") is None:
        return "Tesseract's osd.traineddata is not installed (Debian: apt-get install tesseract-ocr)"
    return missing("tesseract")


needs_osd = pytest.mark.skipif(bool(osd_missing()), reason=osd_missing())


def turned_copy(source: Path, target: Path, degrees: int) -> Path:
    """The PDF with every page turned by `degrees` (its /Rotate), as a scanner or viewer leaves it."""
    import pymupdf

    with pymupdf.open(source) as doc:
        for page in doc:
            page.set_rotation((page.rotation + degrees) % 360)
        doc.save(target)
    return target


def test_osd_reports_are_read_and_unsure_ones_ignored():
    report = "Page number: 0\nOrientation in degrees: 90\nRotate: 270\nOrientation confidence: 2.65\nScript: Latin\n"
    assert parse_osd(report) == 270
    assert parse_osd(report.replace("2.65", "0.4")) == 0  # unsure: read the page as it is
    assert parse_osd("Too few characters. Skipping this page") == 0


@needs_osd
@pytest.mark.parametrize("degrees", [90, 180, 270])
def test_a_turned_rendered_scan_is_read_upright(tmp_path, degrees):
    upright = image_pdf(tmp_path / "scan.pdf", [text_pixmap(SCANNED)])
    turned = turned_copy(upright, tmp_path / f"turned-{degrees}.pdf", degrees)
    import pymupdf

    with pymupdf.open(turned) as doc:
        page = doc.load_page(0)
        text, backend = recognize(page, OcrMode("tesseract"))
        assert page.rotation == degrees  # put back after the OCR
    assert backend == "tesseract"
    assert char_accuracy(SCANNED, text) > 0.95, text


@needs_osd
@needs_shared_scan
def test_a_turned_copy_of_the_shared_scan_loads_as_the_upright_one_does(tmp_path):
    turned = turned_copy(SHARED_SCAN, tmp_path / "ocr_test-90.pdf", 90)
    [document] = load(turned, "turned", LoadOptions(ocr="tesseract"))
    text = "\n".join(block.text for block in document.blocks)
    assert char_accuracy(SHARED_TRUTH, text) > 0.95, text
