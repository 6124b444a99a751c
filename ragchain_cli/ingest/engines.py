"""Ingest engines: what turns the files the driver chose into documents, chunks and vectors.

An engine has one method, `run(tasks, sink, progress)`: it loads and chunks each FileTask (the
shared code in tasks.py), hands every document to the Sink (optionally with its vectors), and
then finishes or fails the file there. Decisions and writes stay with the driver (pipeline.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Protocol

from ..errors import LoaderError
from ..registry import Registry
from .tasks import FileTask, IngestOptions, failure_reason, prepared

if TYPE_CHECKING:
    from .sink import Sink


class Engine(Protocol):
    def run(self, tasks: Iterable[FileTask], sink: "Sink", progress: Callable[[int, int, str], None] | None) -> None:
        ...


class LocalEngine:
    """Everything in this process, one file after the other; the writer embeds each batch."""

    def __init__(self, options: IngestOptions) -> None:
        self.options = options

    def run(self, tasks: Iterable[FileTask], sink: "Sink", progress=None) -> None:
        for task in tasks:
            try:
                for doc, chunks in prepared(task, self.options):
                    sink.document(task.key, doc, chunks)
            except (LoaderError, OSError) as exc:
                sink.fail(task.key, failure_reason(exc))
                continue
            sink.finish(task)


ENGINES = Registry("engine")
ENGINES.register("local", LocalEngine, "this process: load, chunk, embed and write one file after the other")
ENGINES.register("ray", "ragchain_cli.ingest.ray_engine:RayEngine",
                 "a Ray cluster loads, chunks and embeds (Ray Data); this process decides and writes")
