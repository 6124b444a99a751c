"""OCR benchmark: pages per second and character accuracy of every installed OCR backend.

    python bench/ocr_bench.py [--shared ../shared/data/pdfs/scanned/ocr_test.pdf] [--nougat-model DIR]

Pages: generated ones (known text set in three fonts and sizes, drawn into an image at 200 dpi
and again at a blurrier 120 dpi, each wrapped in an image-only PDF page) and the shared scanned
page, whose true text was read off the rendered page by eye. Each backend is loaded and run on
one page before timing (model load is reported apart). Character accuracy is difflib's ratio
between the true text and the OCR text with whitespace collapsed (1.0 = identical).

Results: Markdown on stdout and in bench/out/ocr.md.
"""

from __future__ import annotations

import argparse
import difflib
import statistics
import time
from pathlib import Path

import benchlib

from ragchain_cli.ingest.ocr import OcrMode, get_backend, installed, recognize

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "pdfs" / "scanned" / "ocr_test.pdf"
SHARED_TRUTH = "Docling bundles PDF document conversion to JSON and Markdown in an easy self contained package"
BACKENDS = ("tesseract", "rapidocr", "deepdoctection", "nougat")
FONTS = (("helv", 12), ("tiro", 13), ("cour", 11))
DPIS = (200, 120)
TEXTS = (
    "Lake sediment cores record two thousand years of climate history.\nEach layer holds pollen, "
    "charcoal and the shells of tiny organisms;\ntogether they show when forests burned and when the "
    "water rose.\nThe survey team logged 38 cores between March and October 2023.",
    "Offline retrieval keeps every document on the local disk.\nA scanned invoice, a photographed "
    "whiteboard or an old report\nbecomes searchable only after optical character recognition.\n"
    "Invoice 7731 lists 12 pumps at 418.50 EUR each, due on 15 May.",
)


def generated_pages():
    """(true text, one-page image-only PDF document) for every text x font x dpi."""
    import pymupdf

    pages = []
    for text in TEXTS:
        for font, size in FONTS:
            source = pymupdf.open()
            page = source.new_page(width=612, height=792)
            page.insert_text((60, 90), text, fontsize=size, fontname=font)
            for dpi in DPIS:
                scan = pymupdf.open()
                scan.new_page(width=612, height=792).insert_image(pymupdf.Rect(0, 0, 612, 792),
                                                                  pixmap=page.get_pixmap(dpi=dpi))
                pages.append((text, scan))
    return pages


def accuracy(truth: str, found: str) -> float:
    return difflib.SequenceMatcher(None, " ".join(truth.split()), " ".join(found.split())).ratio()


def measure(name: str, mode: OcrMode, pages: list, shared) -> list:
    started = time.perf_counter()
    get_backend(name, **mode.options.get(name, {}))
    load = time.perf_counter() - started
    recognize(pages[0][1].load_page(0), mode)  # warm-up
    scores, started = [], time.perf_counter()
    for truth, doc in pages:
        page = doc.load_page(0)
        scores.append(accuracy(truth, recognize(page, mode)[0]))
    rate = len(pages) / (time.perf_counter() - started)
    row = [name, len(pages), rate, statistics.mean(scores), min(scores)]
    if shared is None:
        return row + ["-", "-", load]
    page = shared.load_page(0)
    started = time.perf_counter()
    text = recognize(page, mode)[0]
    return row + [accuracy(SHARED_TRUTH, text), time.perf_counter() - started, load]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=SHARED, help="the shared scanned page (ocr_test.pdf)")
    parser.add_argument("--nougat-model", default="", help="a local Nougat model folder (nougat is skipped without)")
    args = parser.parse_args()
    import pymupdf

    shared = pymupdf.open(args.shared) if args.shared.is_file() else None
    pages = generated_pages()
    rows, skipped = [], []
    for name in BACKENDS:
        mode = OcrMode(name, nougat={"model": args.nougat_model})
        if installed(name, mode):
            rows.append(measure(name, mode, pages, shared))
        else:
            skipped.append(name)
    headers = ["backend", "generated pages", "pages/s", "char accuracy (mean)", "char accuracy (min)",
               "shared scan accuracy", "shared scan s", "load s"]
    report = "\n".join([f"OCR backends on {benchlib.machine()}", "", benchlib.table(headers, rows), "",
                        f"not installed or no model: {', '.join(skipped) or 'none'}"])
    print(report)
    benchlib.write_report("ocr.md", report)


if __name__ == "__main__":
    main()
