"""OCR end to end on pages the tests render (text drawn into pixels, wrapped in image-only PDFs,
PNG and TIFF files): real engines, no mocks. Backends that are not installed are skipped."""

from __future__ import annotations

import difflib
import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from helpers import shared_file, shared_missing
from ragchain_cli.errors import DependencyMissing, LoaderError, ModelNotFound, RagchainError
from ragchain_cli.ingest.ocr import OCR_BACKENDS, OcrMode, OcrWarning, _report_unreadable, get_backend, recognize
from ragchain_cli.ingest.ocr.deepdoctection import DeepdoctectionBackend
from ragchain_cli.ingest.ocr.rapidocr import reading_order
from ragchain_cli.ingest.ocr.tesseract import find_tessdata

SCANNED = ("Retrieval augmented generation answers questions from local documents.\n"
           "Scanned pages carry no text layer, so optical character recognition\n"
           "turns their pixels into words that the index can search.\n"
           "The marmalade inventory lists 42 jars, 17 crates and 3 barrels.")
SCAN_FILE = "pdfs/scanned/ocr_test.pdf"
SHARED_SCAN = shared_file(SCAN_FILE)
needs_shared_scan = pytest.mark.skipif(SHARED_SCAN is None, reason=shared_missing(SCAN_FILE))
SHARED_TRUTH = ("Docling bundles PDF document conversion to JSON and Markdown in an easy self contained package")


def missing(name: str) -> str:
    """Why OCR backend `name` cannot run here, as its check says it (what exactly is missing); "" when it can."""
    try:
        OCR_BACKENDS.get(name).check()
    except RagchainError as exc:
        return f"{exc.message} ({exc.hint})" if exc.hint else exc.message
    return ""


needs_tesseract = pytest.mark.skipif(bool(missing("tesseract")), reason=missing("tesseract"))


def ragchain(*args, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ragchain_cli", *map(str, args)], capture_output=True,
                          text=True, input=stdin, timeout=300)


def char_accuracy(truth: str, found: str) -> float:
    return difflib.SequenceMatcher(None, " ".join(truth.split()), " ".join(found.split())).ratio()


def text_pixmap(text: str, dpi: int = 200):
    """A letter page with `text` drawn at 13 pt, rendered to pixels."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((60, 90), text, fontsize=13, fontname="helv")
    return page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)


def image_pdf(path: Path, pages: list) -> Path:
    """A PDF whose pages are images only (no text layer); a str item becomes a real text-layer page,
    drawn invisibly (render mode 3) so that OCR of that page could not find it."""
    import pymupdf

    doc = pymupdf.open()
    for item in pages:
        page = doc.new_page(width=612, height=792)
        if isinstance(item, str):
            page.insert_text((60, 90), item, fontsize=13, render_mode=3)
        else:
            page.insert_image(page.rect, pixmap=item)
    doc.save(path, deflate=True)
    return path


def tiff(path: Path, texts: list[str]) -> Path:
    from PIL import Image

    pixmaps = [text_pixmap(text, dpi=150) for text in texts]
    frames = [Image.frombytes("L", (p.width, p.height), p.samples) for p in pixmaps]
    frames[0].save(path, save_all=True, append_images=frames[1:], compression="tiff_deflate")
    return path


@pytest.fixture(scope="module")
def scanned_page():
    return text_pixmap(SCANNED)


@needs_tesseract
def test_ingest_then_search_finds_ocr_text_in_pdf_png_and_tiff(tmp_path, scanned_page):
    docs = tmp_path / "docs"
    docs.mkdir()
    image_pdf(docs / "scan.pdf", [scanned_page])
    scanned_page.save(docs / "page.png")
    tiff(docs / "frames.tiff", ["The first frame mentions a walrus.", "The second frame mentions a pelican."])
    image_pdf(docs / "mixed.pdf", ["This page has a real text layer about a xylophonist.",
                                   text_pixmap("Page two was scanned and mentions the lighthouse keeper.")])
    ingest = ragchain("ingest", docs, "--index", tmp_path / "idx", "--json")
    assert ingest.returncode == 0, ingest.stderr
    report = json.loads(ingest.stdout)
    assert (report["files_ingested"], report["skipped"], report["pages"]) == (4, [], 5)

    queries = "marmalade\nwalrus\npelican\nxylophonist\nlighthouse\n"
    search = ragchain("search", "-", "--index", tmp_path / "idx", "--retrievers", "bm25", "--json", stdin=queries)
    assert search.returncode == 0, search.stderr
    top = {line["query"]: line["hits"] for line in map(json.loads, search.stdout.splitlines())}
    found = {(h["doc_id"].split("/")[-1], h["page"], h["ocr"]) for h in top["marmalade"]}
    assert found == {("scan.pdf", 1, "tesseract"), ("page.png", None, "tesseract")}
    assert [(h["doc_id"][-11:], h["page"], h["ocr"]) for h in top["walrus"] + top["pelican"]] == [
        ("frames.tiff", 1, "tesseract"), ("frames.tiff", 2, "tesseract")]
    # auto leaves a page with a text layer alone (its text is invisible: OCR could not have read it)
    assert [(h["page"], h["ocr"]) for h in top["xylophonist"]] == [(1, None)]
    assert [(h["page"], h["ocr"]) for h in top["lighthouse"]] == [(2, "tesseract")]


def test_ocr_off_reports_the_scanned_pdf_and_the_image_as_skipped(tmp_path, scanned_page):
    docs = tmp_path / "docs"
    docs.mkdir()
    image_pdf(docs / "scan.pdf", [scanned_page])
    scanned_page.save(docs / "page.png")
    (docs / "fake.png").write_text("not an image at all", encoding="utf-8")
    result = ragchain("ingest", docs, "--ocr", "off", "--index", tmp_path / "idx", "--json")
    assert result.returncode == 3, result.stderr
    reasons = {Path(s["path"]).name: s["reason"] for s in json.loads(result.stdout)["skipped"]}
    assert reasons == {"scan.pdf": "no text on any of 1 page(s) (scanned? see --ocr)",
                       "page.png": "an image needs OCR, which --ocr off turns off",
                       "fake.png": "not a PNG, JPEG or TIFF image (no image signature)"}


@pytest.mark.parametrize("name, data", [("broken.png", b"\x89PNG\r\n\x1a\nbroken"),
                                        ("broken.jpg", b"\xff\xd8\xff\xe0garbage")])
def test_an_image_with_a_valid_signature_and_garbage_after_is_a_loader_error(tmp_path, name, data):
    from ragchain_cli.ingest.loaders.image import open_image_as_pdf

    (tmp_path / name).write_bytes(data)  # MuPDF raises FzError* (not RuntimeError) for these
    with pytest.raises(LoaderError, match="corrupt or unreadable image"):
        open_image_as_pdf(tmp_path / name)


def test_unknown_ocr_mode_is_a_usage_error(tmp_path):
    result = ragchain("ingest", tmp_path, "--ocr", "magic", "--index", tmp_path / "idx")
    assert result.returncode == 2
    assert "unknown OCR mode 'magic'" in result.stderr and "tesseract" in result.stderr


@pytest.mark.parametrize("name", ["tesseract", "rapidocr", "deepdoctection"])
def test_backend_character_accuracy_on_a_rendered_page(name, tmp_path, scanned_page):
    if missing(name):
        pytest.skip(missing(name))
    import pymupdf

    with pymupdf.open(image_pdf(tmp_path / "scan.pdf", [scanned_page])) as doc:
        page = doc.load_page(0)
        text, backend = recognize(page, OcrMode(name))
    assert backend == name
    assert char_accuracy(SCANNED, text) > 0.95, text


@needs_tesseract
@needs_shared_scan
def test_tesseract_reads_the_shared_scanned_page():
    import pymupdf

    with pymupdf.open(SHARED_SCAN) as doc:
        page = doc.load_page(0)
        assert page.get_text().strip() == ""
        text = get_backend("tesseract").recognize(page)
    assert char_accuracy(SHARED_TRUTH, text) > 0.95, text


def test_a_pdf_without_any_text_and_no_backend_says_ocr_is_needed(tmp_path, scanned_page):
    import pymupdf

    with pymupdf.open(image_pdf(tmp_path / "scan.pdf", [scanned_page, scanned_page])) as doc:
        with pytest.raises(LoaderError) as error:
            _report_unreadable(doc.load_page(0), "")
    assert "OCR is needed" in error.value.message and "apt-get install tesseract-ocr" in error.value.message

    with pymupdf.open(image_pdf(tmp_path / "mixed.pdf", ["A page with a text layer.", scanned_page])) as doc:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _report_unreadable(doc.load_page(1), "")
    assert [w.category for w in caught] == [OcrWarning] and "page 2 has no text layer" in str(caught[0].message)


def test_tessdata_found_through_tessdata_prefix(tmp_path, monkeypatch):
    (tmp_path / "tessdata").mkdir()
    (tmp_path / "tessdata" / "zzz.traineddata").write_bytes(b"x")
    monkeypatch.setenv("TESSDATA_PREFIX", str(tmp_path))
    assert find_tessdata("zzz") == tmp_path / "tessdata"
    assert find_tessdata("no-such-language") is None


def test_rapidocr_boxes_come_back_in_reading_order():
    def box(x, top, height=20):
        return [[x, top], [x + 50, top], [x + 50, top + height], [x, top + height]]

    boxes = [box(200, 102), box(10, 40), box(10, 100), box(300, 41, 18)]
    assert reading_order(boxes, ["right", "title", "left", "side"]) == ["title side", "left right"]


def test_deepdoctection_layout_mode_without_weights_fails_clearly(tmp_path):
    try:
        DeepdoctectionBackend.check()
    except DependencyMissing as absent:  # the package, or the tesseract program it runs: the message says which
        pytest.skip(absent.message)
    with pytest.raises(ModelNotFound, match="needs a weights folder"):
        DeepdoctectionBackend.check(layout=True)
    with pytest.raises(ModelNotFound, match="lacks weights/Aryn/deformable-detr-DocLayNet/model.safetensors"):
        DeepdoctectionBackend.check(weights=str(tmp_path))
