"""Reading order of stored PDF text (issue 28), checked against an independent extractor.

For each PDF in --data, poppler's `pdftotext` (Debian: poppler-utils; it lays out columns
itself) gives the reference sentences: per page and paragraph, the sentences that start with a
capital, end with . ! or ?, and have at least --min-words words. The folder is ingested with the
real pipeline into a fresh index, and each sentence must be found word for word in the stored
chunks of its file: in one chunk or in two neighbouring chunks joined (their overlap once).

"Word for word" compares the letters and digits in order, lower-cased, accents and ligatures
folded (NFKD), spaces and punctuation ignored: pdftotext and MuPDF differ in those without the
order being wrong (pdftotext writes small capitals "SciBERT" as "S CI B ERT", drops the hyphen of
"BERT-Base" broken at a line end, and composes "F¨arber"). Words still split by a line-end
hyphen are counted apart ("hyphen splits left": a letter, "-", a line break, a lower-case letter).
"In order" is the share of consecutive found sentences whose chunks do not go backwards.

    python bench/reading_order_bench.py --data ../shared/data/pdfs/text [--scratch DIR]

Targets: >= 0.95 of the sentences over all files, >= 0.85 for each file.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

import benchlib

from ragchain_cli.ingest.pipeline import ingest, ingest_options
from ragchain_cli.stores.index import Index

SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
WORD = re.compile(r"[^\W_]+")
HYPHEN_SPLIT = re.compile(r"[^\W\d_]-\n[a-z]")


def letters(text: str) -> str:
    """Letters and digits only, lower-cased, accents and compatibility forms folded."""
    text = unicodedata.normalize("NFKD", text)
    return "".join(WORD.findall("".join(c for c in text if not unicodedata.combining(c)))).lower()


def reference_sentences(pdf: Path, min_words: int) -> list[str]:
    out = subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, text=True, check=True)
    sentences = []
    for page in out.stdout.split("\f"):
        for paragraph in re.split(r"\n\s*\n", page):
            for sentence in SENTENCE_END.split(" ".join(paragraph.split())):
                if sentence[:1].isupper() and sentence.endswith((".", "!", "?")) and len(sentence.split()) >= min_words:
                    sentences.append(sentence)
    return sentences


def joined(a: str, b: str) -> str:
    """Two neighbouring chunks as one text, their shared overlap once."""
    for k in range(min(len(a), len(b)), 0, -1):
        if a.endswith(b[:k]):
            return a + b[k:]
    return a + b


def score_file(sentences: list[str], chunks: list[str]) -> tuple[int, int]:
    """(sentences found, consecutive found pairs in order)."""
    texts = [letters(c) for c in chunks]
    windows = [joined(a, b) for a, b in zip(texts, texts[1:])] or texts
    found, where = 0, []
    for sentence in sentences:
        needle = letters(sentence)
        spot = next((i for i, w in enumerate(windows) if needle in w), None)
        if spot is None and texts and needle in texts[-1]:
            spot = len(texts) - 1
        if spot is not None:
            found += 1
            where.append(spot)
    in_order = sum(1 for x, y in zip(where, where[1:]) if y >= x)
    return found, in_order


def stored_chunks(index: Index) -> dict[str, list[str]]:
    """Chunk texts per source file, in document order (by doc ID, then ordinal)."""
    chunks = index.docstore.chunks(sorted(index.docstore.chunk_ids()))
    by_file: dict[str, list] = {}
    for chunk in sorted(chunks.values(), key=lambda c: (c.doc_id, c.ordinal)):
        by_file.setdefault(Path(chunk.source).name, []).append(chunk.text)
    return by_file


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="../shared/data/pdfs/text")
    parser.add_argument("--scratch", default="", help="folder for the index (default: a temporary one)")
    parser.add_argument("--min-words", type=int, default=8)
    args = parser.parse_args(argv)
    if shutil.which("pdftotext") is None:
        raise SystemExit("pdftotext not found: apt-get install poppler-utils")
    pdfs = sorted(Path(args.data).glob("*.pdf"))
    scratch = Path(args.scratch or tempfile.mkdtemp(prefix="reading-order-"))
    root = scratch / "index"
    shutil.rmtree(root, ignore_errors=True)
    index = Index(root, create=True)
    started = time.perf_counter()
    report = ingest(index, [Path(args.data)], ingest_options())
    seconds = time.perf_counter() - started
    stored = stored_chunks(index)
    index.close()
    rows, total_found, total = [], 0, 0
    for pdf in pdfs:
        sentences = reference_sentences(pdf, args.min_words)
        chunks = stored.get(pdf.name, [])
        found, in_order = score_file(sentences, chunks)
        splits = sum(len(HYPHEN_SPLIT.findall(c)) for c in chunks)
        total_found, total = total_found + found, total + len(sentences)
        rows.append([pdf.name, len(sentences), found, found / max(1, len(sentences)),
                     f"{in_order}/{max(0, found - 1)}", len(chunks), splits])
    rows.append(["all", total, total_found, total_found / max(1, total), "", sum(len(c) for c in stored.values()), ""])
    print(f"{benchlib.machine()}\ningest of {len(pdfs)} PDFs: {report.chunks_added} chunks in {seconds:.1f} s\n")
    print(benchlib.table(["file", "sentences", "found", "share", "in order", "chunks", "hyphen splits left"], rows))
    worst = min((r[3] for r in rows[:-1]), default=0.0)
    met = total_found / max(1, total) >= 0.95 and worst >= 0.85
    print(f"\ntargets (>= 0.95 overall, >= 0.85 per file): {'met' if met else 'NOT met'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
