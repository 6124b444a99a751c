"""A right-to-left (Arabic) PDF page is stored in logical order, with real letters, so that the
embedding model and the LLM read sentences and not reversed words. The PDF is generated here:
MuPDF shapes and lays out the Arabic text with DejaVu Sans (Debian: fonts-dejavu-core)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragchain_cli.ingest.loaders import LoadOptions, load

FONTS = Path("/usr/share/fonts/truetype/dejavu")
LINES = ["تحسين أداء البرمجة بلغة R و Python في تحليل البيانات", "السطر الثاني يتحدث عن المكتبة"]


def arabic_pdf(path: Path) -> Path:
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    css = "@font-face {font-family: dv; src: url(DejaVuSans.ttf);} p {font-family: dv; font-size: 14px;}"
    html = "".join(f'<p dir="rtl">{line}</p>' for line in LINES)
    page.insert_htmlbox(pymupdf.Rect(50, 50, 550, 300), html, css=css, archive=pymupdf.Archive(str(FONTS)))
    doc.save(str(path))
    doc.close()
    return path


@pytest.mark.skipif(not (FONTS / "DejaVuSans.ttf").is_file(), reason="DejaVu Sans is not installed (fonts-dejavu-core)")
def test_an_arabic_pdf_page_keeps_logical_order_and_real_letters(tmp_path):
    [document] = load(arabic_pdf(tmp_path / "arabic.pdf"), "arabic", LoadOptions(ocr="off"))
    text = document.blocks[0].text
    assert text.split() == " ".join(LINES).split(), text
