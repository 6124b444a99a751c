"""`ragchain ingest PATH...`: parse flags, run the ingest pipeline, render the summary."""

from __future__ import annotations

import dataclasses
import os
from functools import partial
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..errors import UsageError
from ..ingest.loaders import SUFFIXES
from .common import ConfigOpt, IndexOpt, JsonOpt, default, settings_from
from .output import Output, shown, stderr, warn


def ingest_command(
    paths: Annotated[list[Path], typer.Argument(metavar="PATH", help="Files or folders to ingest")],
    index: IndexOpt = None,
    as_json: JsonOpt = None,
    config: ConfigOpt = None,
    embed_model: Annotated[Optional[str], typer.Option(
        "--embed-model", metavar="NAME|DIR",
        help=f"Embedding model name or folder; an existing index keeps its own {default('embed_model')}")] = None,
    chunk_size: Annotated[Optional[int], typer.Option(
        "--chunk-size", metavar="N", help=f"Tokens per chunk {default('chunk_size')}")] = None,
    chunk_overlap: Annotated[Optional[int], typer.Option(
        "--chunk-overlap", metavar="N", help=f"Tokens shared by neighbours {default('chunk_overlap')}")] = None,
    pdf_password: Annotated[str, typer.Option("--pdf-password", metavar="TEXT", envvar="RAGCHAIN_PDF_PASSWORD",
                                              help="Password for encrypted PDFs")] = "",
    ocr: Annotated[Optional[str], typer.Option("--ocr", metavar="ENGINE", help="OCR for pages without text and images: auto, off, "
                                                             f"tesseract, rapidocr, nougat, deepdoctection {default('ocr')}")] = None,
    nougat_model: Annotated[str, typer.Option("--nougat-model", metavar="DIR", envvar="RAGCHAIN_NOUGAT_MODEL",
                                              help="Local Nougat model folder (for --ocr nougat)")] = "",
    wait: Annotated[bool, typer.Option("--wait", help="Wait for another ingest instead of failing")] = False,
    engine: Annotated[Optional[str], typer.Option("--engine", metavar="local|ray", help="local (this process) or ray (load, chunk "
                                                  f"and embed on a Ray cluster; the ray extra) {default('engine')}")] = None,
    ray_address: Annotated[Optional[str], typer.Option("--ray-address", metavar="ADDRESS", help="--engine ray: join this cluster "
                                                       "(host:port, or auto for RAY_ADDRESS); default: start Ray "
                                                       "on this machine for the run")] = None,
    workers: Annotated[Optional[int], typer.Option("--workers", metavar="N", help="--engine ray: embedding actors "
                                                   "[default: one per GPU, else one per CPU]")] = None,
    shards: Annotated[Optional[int], typer.Option("--shards", metavar="N", help="Build N indexes under --index, "
                                                  "files spread by a hash of their path, searched as one (--engine "
                                                  "ray writes them in parallel); a sharded index keeps its N")] = None,
) -> None:
    """Load, chunk and index files into the three linked stores (incremental)."""
    from ..ingest.ocr import check_mode
    from ..ingest.pipeline import ingest_into, ingest_options
    from ..stores.index import exists
    from ..stores.shards import is_sharded

    _require_paths(paths)
    settings = settings_from(config, index=index, embed_model=embed_model, chunk_size=chunk_size,
                             chunk_overlap=chunk_overlap, ocr=ocr, engine=engine, ray_address=ray_address,
                             workers=workers)
    options = ingest_options(settings, pdf_password=pdf_password, nougat_model=nougat_model, wait=wait)
    check_mode(options.ocr)
    out = Output(as_json)
    root = Path(settings.index)
    had_index = exists(root) or is_sharded(root)
    # a new index nothing went into is removed again; --shards N (or a sharded index): one ingest per shard
    report = _run(root, paths, options, partial(ingest_into, shards=shards))
    empty = not had_index and not exists(root) and not is_sharded(root)
    payload = {"index": settings.index, **dataclasses.asdict(report)}
    if out.json or not _nothing(report):  # on a terminal, nothing to ingest is one message, not a table of zeros
        out.data(payload, lambda console: _render(console, payload))
    _report_upgrade(report.upgraded)
    _report_problems(report)
    _report_nothing(report, paths, empty)
    if report.skipped:
        raise typer.Exit(3)


UPGRADES = {"reanalyze": "its word index was rebuilt with this version's analyzer (accents folded)",
            "renormalize": "its files are read again once, each at its next ingest, to store normalised text"}


def _report_upgrade(steps: list[str]) -> None:
    """Say what an index built by an earlier version was given (Index.upgrade)."""
    if steps:
        stderr.print("the index was built by an earlier version: " + "; ".join(UPGRADES[s] for s in steps))


def _nothing(report) -> bool:
    return report.files_seen == 0 and not report.files_removed


def _report_nothing(report, paths: list[Path], no_index: bool) -> None:
    """Say so when there was nothing to ingest, or nothing could be: a silent exit looks like success."""
    if _nothing(report):
        stderr.print(f"nothing to ingest: no supported files found in {shown(', '.join(map(str, paths)))} "
                     f"(supported: {', '.join(sorted(SUFFIXES))})" + ("; no index was created" if no_index else ""))
    elif no_index:
        stderr.print("no file could be ingested (each is listed above with its reason); no index was created")


def _require_paths(paths: list[Path]) -> None:
    """A path that does not exist at all is a typing mistake, not a file to skip (a dangling link is)."""
    missing = [str(p) for p in paths if not os.path.lexists(p)]
    if missing:
        raise UsageError(f"no such file or folder: {', '.join(missing)}", "check the path(s) given to ingest")


SHOWN_SKIPPED = 50


def _report_problems(report) -> None:
    """Warnings, then each skipped file on stderr, up to SHOWN_SKIPPED; then one count per reason
    (the JSON lists all)."""
    from collections import Counter

    for item in report.warnings:
        warn(f"{shown(item.path)}: {shown(item.reason)}")
    skipped = report.skipped
    for item in skipped[:SHOWN_SKIPPED]:
        kept = " (its last good version stays in the index)" if item.kept_previous else ""
        stderr.print(f"[yellow]skipped[/] {shown(item.path)}: {shown(item.reason)}{kept}")
    rest = Counter(item.reason for item in skipped[SHOWN_SKIPPED:])
    if rest:
        reasons = "; ".join(f"{n} {shown(reason)}" for reason, n in rest.most_common(5))
        more = "; ..." if len(rest) > 5 else ""
        stderr.print(f"[yellow]skipped[/] {rest.total()} more files ({reasons}{more}); the JSON output lists every one")


BAR_WIDTH = 16


def _run(root: Path, paths, options, ingest):
    if not stderr.is_terminal:
        return ingest(root, paths, options)
    from rich.progress import BarColumn, Progress, TextColumn

    columns = (TextColumn("ingest"), BarColumn(bar_width=BAR_WIDTH), TextColumn("{task.description}"))
    with Progress(*columns, console=stderr, transient=True, redirect_stdout=False, redirect_stderr=False) as bar:
        task = bar.add_task("", total=None)

        def progress(state) -> None:
            width = min(stderr.width, 80) - len("ingest") - BAR_WIDTH - 3  # the columns and their spaces
            bar.update(task, completed=state.chunks_done, total=state.chunks_total or None,
                       description=progress_label(state, width))

        return ingest(root, paths, options, progress)


def progress_label(state, width: int) -> str:
    """'1,024/about 5,600 chunks  31/s  2:27 left  file 3/12 name.pdf', cut to `width` characters:
    what is done and left first, the file last."""
    if state.chunks_total is None:
        parts = [f"{state.chunks_done:,} chunks so far"]
    else:
        parts = [f"{state.chunks_done:,}/{'about ' if state.estimated else ''}{state.chunks_total:,} chunks"]
    if state.stage:
        parts.append(state.stage)
    elif state.rate:
        parts.append(f"{state.rate:.0f}/s" if state.rate >= 10 else f"{state.rate:.1f}/s")
        if state.seconds_left is not None:
            parts.append(f"{_clock(state.seconds_left)} left")
    if state.files_total:
        parts.append(f"file {state.files_done}/{state.files_total}")
    label = parts[0]
    for part in parts[1:]:  # each whole or not at all
        if len(label) + 2 + len(part) <= width:
            label += "  " + part
    name = shown(Path(state.path).name) if state.path else ""
    room = width - len(label) - 1
    if name and room >= 8 and "file " in label:
        label += " " + (name if len(name) <= room else name[: room - 3] + "...")
    return label[:width]


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds + 0.5), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def _render(console, payload: dict) -> None:
    from rich.table import Table

    table = Table(title=f"ingest into {payload['index']}", show_header=False)
    for key in ("files_seen", "files_ingested", "files_unchanged", "files_removed", "documents", "pages",
                "chunks_added", "chunks_removed", "vectors_reused", "seconds", "engine", "workers"):
        table.add_row(key.replace("_", " "), str(payload[key]))
    for node in payload["nodes"]:
        table.add_row(f"node {node['node_id'][:12]}", f"{node['chunks']} chunks, {node['files']} files")
    if payload.get("shards"):
        table.add_row("shards", ", ".join(f"{s['name']} {s['chunks']} chunks" + ("" if s["state"] == "complete" else
                                                                                f" ({s['state']})") for s in payload["shards"]))
    moved = payload.get("resharded")
    if moved:
        table.add_row("re-sharded", f"{moved['from']} -> {moved['to']} shards: {moved['files']} files, "
                                    f"{moved['chunks']} chunks moved with their vectors")
    table.add_row("skipped", str(len(payload["skipped"])))
    console.print(table)
