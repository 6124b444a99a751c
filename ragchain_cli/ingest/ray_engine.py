"""`ragchain ingest --engine ray`: loading, OCR, chunking and embedding on a Ray cluster (Ray Data).

What runs where:

    driver (this process)  lock, journal replay, discovery, content hashes, skip/replace/delete
                           decisions (pipeline.py), then the files to (re)ingest -> a Dataset
    Ray tasks              map_batches(load_files): loaders, OCR, chunking, one task per file, a
                           big file streamed DOCS_PER_BLOCK documents at a time
    Ray actors             map_batches(Embed) on an ActorPoolStrategy(size=workers) pool: the
                           model loaded once per actor; chunks the index already has are not embedded
    driver                 iter_batches -> Sink -> BatchWriter: docstore + journal, Tantivy (chunks and
                           whole documents), LanceDB, batch by batch, as the local engine writes (same
                           chunk IDs, same repair)

Files arrive in any order, a file's documents possibly across several batches; a file is finished
when its "end" row and all its documents are in. A file that fails on a worker is reported with
the reason and skipped; a file the cluster lost (its task failed every retry) is reported too.
Workers read the files by the driver's absolute paths: they must be on a shared filesystem.
"""

from __future__ import annotations

import logging
import warnings
from collections import Counter
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..cluster import import_ray, session
from ..errors import LoaderError, UsageError
from .ray_workers import Embed, encode_task, load_files
from .tasks import FileTask, IngestOptions

if TYPE_CHECKING:
    from .sink import Sink

RETRIES = 3  # a dead load task, or a dead actor and the batch it held, is retried this often
EMBED_BATCH = 32  # document rows per embedding call
MAX_BLOCKS = 2000  # one input block (one load task) per file, up to this many
ACTOR_START_S = 600  # a pool that cannot start (too few resources) is an error after this, not a hang


@dataclass(frozen=True)
class Placement:
    workers: int  # embedding actors
    gpus: float  # per actor
    load_cpus: float  # per load task (0 when the actors hold every CPU: loading is light next to embedding)

    @property
    def device(self) -> str:
        return "cuda" if self.gpus else "cpu"


def placement(resources: dict[str, float], wanted: int) -> Placement:
    """One actor per GPU when the cluster has GPUs, else one per CPU (each actor: 1 CPU, 1 thread)."""
    gpus, cpus = int(resources.get("GPU", 0)), int(resources.get("CPU", 0))
    if gpus:
        return Placement(wanted or gpus, 1.0, 1.0)
    if wanted > cpus:
        raise UsageError(f"--workers {wanted} asks for more embedding actors than the cluster's {cpus} CPUs",
                         f"pass --workers {max(1, cpus)} or fewer, or add nodes")
    return Placement(wanted or max(1, cpus), 0.0, 0.0 if (wanted or cpus) >= cpus else 1.0)


class RayEngine:
    def __init__(self, options: IngestOptions) -> None:
        self.options = options
        self.ray = import_ray()

    def run(self, tasks: Iterable[FileTask], sink: "Sink", progress=None) -> None:
        tasks = list(tasks)  # every decision (and hash) is made before the cluster gets work
        sink.note = None
        sink.report.workers = 0
        if not tasks:
            return
        with session(self.ray, self.options.ray_address):
            where = placement(self.ray.cluster_resources(), self.options.workers)
            sink.report.workers = where.workers
            rows = [encode_task(t, sink.docstore.file_chunk_ids(t.key)) for t in tasks]
            batches = _dataset(self.ray, rows, self.options, where).iter_batches(batch_size=None,
                                                                                  batch_format="numpy")
            collector = Collector(tasks, sink, progress)
            with _quiet():
                collector.consume(batches)
        sink.report.nodes = collector.nodes()


def _dataset(ray, rows: list[dict], options: IngestOptions, where: Placement):
    from ray.data import ActorPoolStrategy, TaskPoolStrategy

    files = ray.data.from_items(rows, override_num_blocks=min(len(rows), MAX_BLOCKS))
    files.context.max_errored_blocks = -1  # a file that kills its worker every retry is reported, not fatal
    files.context.enable_progress_bars = False  # ragchain's own progress is on stderr
    files.context.wait_for_min_actors_s = ACTOR_START_S  # every actor ready before work is handed out
    with warnings.catch_warnings():
        # Ray 2.60 still takes retry limits as ray_remote_args (deprecated for 2.64, which the pin excludes);
        # without them a file or a model that kills its process is retried forever
        warnings.simplefilter("ignore", DeprecationWarning)
        loaded = files.map_batches(load_files, fn_kwargs={"options": options}, batch_size=1,
                                   compute=TaskPoolStrategy(size=where.workers), num_cpus=where.load_cpus,
                                   max_retries=RETRIES)
        return loaded.map_batches(Embed, fn_constructor_args=(options.embed_model, where.device),
                                  batch_size=EMBED_BATCH, compute=ActorPoolStrategy(size=where.workers), num_cpus=1, num_gpus=where.gpus,
                                  max_restarts=RETRIES, max_task_retries=RETRIES)


@contextmanager
def _quiet():
    """Ray Data's own execution log lines (INFO on stderr) off for the run: ragchain reports progress."""
    logger = logging.getLogger("ray.data")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


class Collector:
    """Turns the rows coming back from the cluster into Sink calls, and counts who did what."""

    def __init__(self, tasks: list[FileTask], sink: "Sink", progress: Callable | None) -> None:
        self.tasks = {t.key: t for t in tasks}
        self.sink, self.progress = sink, progress
        self.expected: dict[str, int] = {}  # key -> documents, from its "end" row
        self.closed: set[str] = set()  # finished or failed
        self.chunks: Counter[str] = Counter()  # node -> chunks its actors handled
        self.files: Counter[str] = Counter()  # node -> files its tasks loaded

    def consume(self, batches) -> None:
        for batch in batches:
            for row in zip(*(batch[c] for c in ("kind", "path", "payload", "vectors", "node", "loader",
                                                 "documents", "reason"))):
                self._row(*row)
        for key in self.tasks.keys() - self.closed:  # its task or its documents never came back
            self._close(key, "lost on the Ray cluster (a worker died on it every retry)")

    def _row(self, kind, key, payload, vectors, node, loader, documents, reason) -> None:
        if key in self.closed:
            return  # a failed file's late documents
        if kind == "doc":
            self._document(key, payload, vectors, node)
        elif kind == "end":
            self.expected[key] = int(documents)
            self.files[loader] += 1
        else:
            self.files[loader] += 1
            self._close(key, reason)
        if key not in self.closed and self.expected.get(key) == self.sink.documents(key):
            self._close(key)

    def _document(self, key: str, payload: bytes, vectors: bytes, node: str) -> None:
        import pickle

        doc, chunks, need = pickle.loads(payload)
        block = np.frombuffer(vectors, dtype=np.float32).reshape(len(need), -1) if need else None
        given = {chunks[i].chunk_id: block[j] for j, i in enumerate(need)}
        try:
            self.sink.document(key, doc, chunks, given)
        except LoaderError as exc:  # its document ID belongs to another file
            self._close(key, exc.message)
            return
        self.chunks[node] += len(chunks)

    def _close(self, key: str, reason: str | None = None) -> None:
        if reason is None:
            self.sink.finish(self.tasks[key])
        else:
            self.sink.fail(key, reason)
        self.closed.add(key)
        if self.progress is not None:
            self.progress(len(self.closed), len(self.tasks), f"{key} ({sum(self.chunks.values()):,} chunks)")

    def nodes(self) -> list[dict]:
        """Which nodes did work: chunks embedded (or passed through) by their actors, files loaded."""
        names = sorted(set(self.chunks) | set(self.files))
        return [{"node_id": n, "chunks": self.chunks[n], "files": self.files[n]} for n in names]
