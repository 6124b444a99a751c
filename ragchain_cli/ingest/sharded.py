"""`ragchain ingest --shards N`: N complete indexes under one folder (stores/shards.py), each
written by its own ingest (pipeline.py, the local engine) of the files that hash to it.

    driver      the manifest (every shard "running"), then one shard ingest per shard:
                --engine ray: Ray tasks, in parallel (one CPU each); --engine local: one after the other
    each shard  the ordinary ingest of one index (lock, journal, discovery, decisions, writes), keeping
                only its own files; a new shard embeds with the model the others were built with
    driver      the global BM25 statistics (shard_stats.py), the version groups over every shard
                (shard_versions.py), then the manifest: each shard's state and
                counts; a shard whose writer failed or died is named in the report and marked
                "failed", and the next ingest (which runs every shard) redoes it

Workers read the files by the driver's paths and write the shard folders: on a shared filesystem.
"""

from __future__ import annotations

import dataclasses
import fcntl
import os
import time
from contextlib import contextmanager
from pathlib import Path

from ..config import DEFAULTS
from ..errors import IndexBusy, IndexMismatch, RagchainError
from ..stores.docstore import DocStore
from ..stores.embedders import model_reference
from ..stores.index import DOCSTORE, exists
from ..stores.shard_stats import write_stats
from ..stores.shards import ShardManifest, is_sharded
from .discover import absolute
from .pipeline import IngestReport, Skipped
from .reshard import remove_strays, reshard
from .shard_versions import write_versions
from .tasks import IngestOptions

LOCK = "shards.lock"
SUMMED = ("files_seen", "files_ingested", "files_unchanged", "files_removed", "documents", "pages",
          "chunks_added", "chunks_removed", "vectors_reused", "replayed")


def ingest_shard(folder: str, paths: list[str], options: IngestOptions) -> IngestReport:
    """One shard's ingest (a Ray task, or a call), by the driver's absolute paths, document IDs relative
    to `options.base` (the driver's working directory); the working directory is left as it is."""
    from .pipeline import ingest_into

    return ingest_into(Path(folder), [Path(p) for p in paths], options)


def ingest_sharded(root: Path, paths: list[Path], options: IngestOptions, count: int | None = None) -> IngestReport:
    """Update (or build) the sharded index at `root` from `paths`; `count`: the shards of a new one,
    or of an existing one that has another count (re-sharded first, reshard.py)."""
    started = time.perf_counter()
    root = Path(root)
    manifest = _manifest_for(root, count, options)
    base = options.base or os.getcwd()  # a worker's own working directory is not the driver's
    common = dataclasses.replace(options, engine="local" if options.engine == "ray" else options.engine,
                                 embed_model=manifest.settings["embed_model"], base=base)  # ray: the shards are the Ray tasks
    root.mkdir(parents=True, exist_ok=True)
    moved: dict = {}
    with _manifest_lock(root, options.wait):
        remove_strays(root, manifest)  # a re-sharding killed before (or after) its switch
        if count is not None and count != manifest.count:
            manifest, moved = reshard(root, manifest, count, paths, common)
        shard_options = [dataclasses.replace(common, shard=(i, manifest.count)) for i in range(manifest.count)]
        for state in manifest.shards:
            state.state, state.error = "running", ""
        manifest.write(root)
        jobs = [(str(absolute(folder)), [str(absolute(p)) for p in paths], opts)
                for folder, opts in zip(manifest.folders(root), shard_options)]
        outcomes = _run_ray(jobs, options) if options.engine == "ray" else [_run_here(job) for job in jobs]
        write_stats(root, manifest.folders(root))
        write_versions(root, manifest.folders(root))
        for state, folder, outcome in zip(manifest.shards, manifest.folders(root), outcomes):
            _record(state, folder, outcome)
        manifest.write(root)
        remove_strays(root, manifest)  # the layout before a re-sharding
    report = _combined([o for o in outcomes if isinstance(o, IngestReport)], manifest, options)
    report.resharded = moved
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def _manifest_for(root: Path, count: int | None, options: IngestOptions) -> ShardManifest:
    if exists(root):
        raise IndexMismatch(f"{root} is an index without shards ({DOCSTORE} is in it)",
                            "ingest without --shards into it, or pass --index with a new folder")
    wanted = {"embed_model": model_reference(options.embed_model or DEFAULTS.embed_model),
              "chunk_size": str(options.chunk_size), "chunk_overlap": str(options.chunk_overlap)}
    if not is_sharded(root):
        return ShardManifest.new(count or 1, wanted)
    manifest = ShardManifest.read(root)
    if not options.embed_model:
        wanted["embed_model"] = manifest.settings.get("embed_model", wanted["embed_model"])
    diffs = [f"{k}: index has {manifest.settings.get(k)!r}, asked for {v!r}" for k, v in wanted.items()
             if manifest.settings.get(k, v) != v]
    if diffs:
        raise IndexMismatch(f"{root} was built with different settings ({'; '.join(diffs)})",
                            "use the settings the index was built with, or a new --index DIR")
    manifest.settings = {**manifest.settings, **wanted}
    return manifest


@contextmanager
def _manifest_lock(root: Path, wait: bool):
    """One sharded ingest at a time writes the manifest and the statistics (each shard has its own lock too)."""
    with open(root / LOCK, "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise IndexBusy(f"another ingest is writing to {root}",
                            "wait for it to finish, or pass --wait to queue behind it") from None
        yield


def _run_here(job: tuple) -> IngestReport | str:
    try:
        return ingest_shard(*job)
    except RagchainError as exc:
        return exc.message


def _run_ray(jobs: list[tuple], options: IngestOptions) -> list[IngestReport | str]:
    """Every shard's ingest as a Ray task (not retried: the next ingest redoes a failed shard)."""
    from ..cluster import import_ray, session

    ray = import_ray()
    outcomes: list[IngestReport | str] = []
    with session(ray, options.ray_address):
        task = ray.remote(num_cpus=1, max_retries=0)(ingest_shard)
        refs = [task.remote(*job) for job in jobs]
        for ref in refs:
            try:
                outcomes.append(ray.get(ref))
            except ray.exceptions.RayError as exc:  # the task raised, or its worker died
                cause = getattr(exc, "cause", None)
                outcomes.append(cause.message if isinstance(cause, RagchainError) else _first_line(exc))
    return outcomes


def _first_line(exc: BaseException) -> str:
    lines = [line for line in str(exc).splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[0] if lines else ''}".strip()


def _record(state, folder: Path, outcome: IngestReport | str) -> None:
    """The shard's state and what its docstore holds now."""
    if (folder / DOCSTORE).is_file():
        store = DocStore(folder / DOCSTORE, readonly=True)
        try:
            counts = store.counts()
        finally:
            store.close()
        state.files, state.documents, state.chunks = counts["files"], counts["documents"], counts["chunks"]
    else:
        state.files = state.documents = state.chunks = 0
    state.state, state.error = ("failed", outcome) if isinstance(outcome, str) else ("complete", "")


def _combined(reports: list[IngestReport], manifest: ShardManifest, options: IngestOptions) -> IngestReport:
    """One report for the whole index: counts summed, problems once each, failed shards as skipped."""
    report = IngestReport(engine=options.engine, workers=manifest.count)
    for part in reports:
        for name in SUMMED:
            setattr(report, name, getattr(report, name) + getattr(part, name))
        report.upgraded = sorted(set(report.upgraded) | set(part.upgraded))
        report.skipped = _once_each(report.skipped + part.skipped)
        report.warnings += [w for w in part.warnings if w not in report.warnings]
    for state in manifest.shards:
        if state.state == "failed":
            report.skipped.append(Skipped(state.name, f"the shard's writer failed ({state.error}); "
                                          "the next ingest redoes it"))
    report.shards = [dataclasses.asdict(state) for state in manifest.shards]
    return report



def _once_each(skipped: list[Skipped]) -> list[Skipped]:
    """One entry a path and reason: a file no shard could read is found by each, and kept_previous
    is true when the shard that held it kept its last good version."""
    merged: dict[tuple[str, str], Skipped] = {}
    for item in skipped:
        seen = merged.setdefault((item.path, item.reason), item)
        if item.kept_previous and not seen.kept_previous:
            merged[(item.path, item.reason)] = item
    return list(merged.values())


__all__ = ["ingest_shard", "ingest_sharded"]
