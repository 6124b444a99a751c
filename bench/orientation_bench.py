"""Turned scans: character accuracy and seconds per page of Tesseract OCR with and without the
orientation step (Tesseract's OSD, ingest/ocr/orientation.py), side by side in one run.

    python bench/orientation_bench.py [--shared ../shared/data/pdfs/scanned/ocr_test.pdf] [--texts 2]

Pages: ocr_bench.py's generated pages (helv 12 pt at 200 dpi, one per text) and the shared scanned
page, each at 0, 90, 180 and 270 degrees (the page's /Rotate, as a scanner or viewer leaves it).
"without" runs the backend on the page as it is; "with" is `recognize()`, which turns it upright
first. Medians per page; accuracy is difflib's ratio against the true text (1.0 = identical).
Results: Markdown on stdout and in bench/out/orientation.md.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import benchlib
from ocr_bench import SHARED, SHARED_TRUTH, TEXTS, accuracy

from ragchain_cli.ingest.ocr import OcrMode, get_backend, recognize
from ragchain_cli.ingest.ocr.orientation import osd_available

TURNS = (0, 90, 180, 270)


def pages(shared: Path, texts: int) -> list[tuple[str, object]]:
    """(true text, one-page image-only PDF) for the generated texts and the shared scan."""
    import pymupdf

    found = []
    for text in TEXTS[:texts]:
        source = pymupdf.open()
        page = source.new_page(width=612, height=792)
        page.insert_text((60, 90), text, fontsize=12, fontname="helv")
        scan = pymupdf.open()
        scan.new_page(width=612, height=792).insert_image(page.rect, pixmap=page.get_pixmap(dpi=200))
        found.append((text, scan))
    if shared.is_file():
        found.append((SHARED_TRUTH, pymupdf.open(shared)))
    return found


def run(turn: int, items: list, upright: bool) -> tuple[list[float], list[float]]:
    backend = get_backend("tesseract")
    scores, seconds = [], []
    for truth, doc in items:
        page = doc.load_page(0)
        page.set_rotation(turn)
        started = time.perf_counter()
        text = recognize(page, OcrMode("tesseract"))[0] if upright else backend.recognize(page)
        seconds.append(time.perf_counter() - started)
        scores.append(accuracy(truth, text))
        page.set_rotation(0)
    return scores, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=SHARED)
    parser.add_argument("--texts", type=int, default=2, help="generated pages (at most 2)")
    args = parser.parse_args()
    if not osd_available():
        raise SystemExit("needs the tesseract program with osd.traineddata (apt-get install tesseract-ocr)")
    items = pages(args.shared, args.texts)
    run(0, items[:1], True)  # warm-up: engine and page cache
    rows = []
    for turn in TURNS:
        for upright in (False, True):
            scores, seconds = run(turn, items, upright)
            rows.append([turn, "with OSD" if upright else "without", len(items), statistics.median(scores),
                         min(scores), statistics.median(seconds)])
    command = f"python bench/orientation_bench.py --texts {args.texts}"
    report = "\n".join([f"Turned scans, Tesseract, {benchlib.machine()}", "", f"`{command}`", "",
                        benchlib.table(["turn", "orientation", "pages", "accuracy (median)", "accuracy (min)",
                                        "s/page (median)"], rows)])
    print(report)
    benchlib.write_report("orientation.md", report)


if __name__ == "__main__":
    main()
