"""`ragchain ingest PATH...`: parse flags, run the ingest pipeline, render the summary."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated, Optional

import typer

from .common import ConfigOpt, IndexOpt, JsonOpt, settings_from
from .output import Output, shown, stderr


def ingest_command(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders to ingest")],
    index: IndexOpt = None,
    as_json: JsonOpt = None,
    config: ConfigOpt = None,
    embed_model: Annotated[Optional[str], typer.Option("--embed-model", help="Embedding model name or folder")] = None,
    chunk_size: Annotated[Optional[int], typer.Option("--chunk-size", help="Tokens per chunk")] = None,
    chunk_overlap: Annotated[Optional[int], typer.Option("--chunk-overlap", help="Tokens shared by neighbours")] = None,
    pdf_password: Annotated[str, typer.Option("--pdf-password", envvar="RAGCHAIN_PDF_PASSWORD",
                                              help="Password for encrypted PDFs")] = "",
    ocr: Annotated[Optional[str], typer.Option("--ocr", help="OCR for pages without text and images: auto, off, "
                                                             "tesseract, rapidocr, nougat, deepdoctection")] = None,
    nougat_model: Annotated[str, typer.Option("--nougat-model", envvar="RAGCHAIN_NOUGAT_MODEL",
                                              help="Local Nougat model folder (for --ocr nougat)")] = "",
    wait: Annotated[bool, typer.Option("--wait", help="Wait for another ingest instead of failing")] = False,
) -> None:
    """Load, chunk and index files into the three linked stores (incremental)."""
    from ..ingest.ocr import OcrMode, check_mode
    from ..ingest.pipeline import IngestOptions, ingest
    from ..stores.index import Index

    settings = settings_from(config, index=index, embed_model=embed_model, chunk_size=chunk_size,
                             chunk_overlap=chunk_overlap, ocr=ocr)
    check_mode(OcrMode(settings.ocr, nougat={"model": nougat_model}))
    out = Output(as_json)
    options = IngestOptions(embed_model=settings.embed_model, chunk_size=settings.chunk_size,
                            chunk_overlap=settings.chunk_overlap, pdf_password=pdf_password, ocr=settings.ocr,
                            nougat_model=nougat_model, wait=wait)
    store = Index(Path(settings.index), create=True)
    try:
        report = _run(store, paths, options, ingest)
    finally:
        store.close()
    payload = {"index": settings.index, **dataclasses.asdict(report)}
    out.data(payload, lambda console: _render(console, payload))
    _report_skipped(report.skipped)
    if report.skipped:
        raise typer.Exit(3)


SHOWN_SKIPPED = 50


def _report_skipped(skipped) -> None:
    """Each skipped file on stderr, up to SHOWN_SKIPPED; then one count per reason (the JSON lists all)."""
    from collections import Counter

    for item in skipped[:SHOWN_SKIPPED]:
        stderr.print(f"[yellow]skipped[/] {shown(item.path)}: {shown(item.reason)}")
    rest = Counter(item.reason for item in skipped[SHOWN_SKIPPED:])
    if rest:
        reasons = "; ".join(f"{n} {shown(reason)}" for reason, n in rest.most_common(5))
        more = "; ..." if len(rest) > 5 else ""
        stderr.print(f"[yellow]skipped[/] {rest.total()} more files ({reasons}{more}); the JSON output lists every one")


def _run(store, paths, options, ingest):
    if not stderr.is_terminal:
        return ingest(store, paths, options)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("ingest"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("{task.description}"))
    with Progress(*columns, console=stderr, transient=True) as bar:
        task = bar.add_task("", total=None)

        def progress(done: int, total: int, path: str) -> None:
            bar.update(task, completed=done, total=total, description=shown(Path(path).name[-40:]))

        return ingest(store, paths, options, progress)


def _render(console, payload: dict) -> None:
    from rich.table import Table

    table = Table(title=f"ingest into {payload['index']}", show_header=False)
    for key in ("files_seen", "files_ingested", "files_unchanged", "files_removed", "documents", "pages",
                "chunks_added", "chunks_removed", "vectors_reused", "seconds"):
        table.add_row(key.replace("_", " "), str(payload[key]))
    table.add_row("skipped", str(len(payload["skipped"])))
    console.print(table)
