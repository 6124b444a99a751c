"""Progress of an ingest for people: chunks embedded out of the chunks to embed, with rate and
time left.

The chunks to embed are known once every file to (re)ingest is chunked. Until then the total is
an estimate ("about"): the chunks of the files read so far, plus the rest of the bytes at the
chunks-per-byte of the files already finished. Before any file is finished, the one being read
gives the ratio when its loader says how far it has read (a JSONL corpus does: one big file is
otherwise read to its end without a total); else there is no total, only the count so far. A
chunk whose stored vector is reused counts as done, as it needs no embedding. The engine reads,
embeds and writes in turn, so the estimate firms up as it goes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class IngestProgress:
    files_done: int  # files considered (read, unchanged or failed)
    files_total: int
    path: str  # the file being read
    chunks_done: int  # embedded in this run, or their stored vector reused
    chunks_total: int | None  # None: not estimated yet
    estimated: bool  # chunks_total is an estimate (files are still being read)
    rate: float | None  # chunks a second since embedding started
    stage: str = ""  # what happens before embedding starts ("loading all-MiniLM-L6-v2")

    @property
    def seconds_left(self) -> float | None:
        if not self.rate or self.chunks_total is None:
            return None
        return max(0.0, self.chunks_total - self.chunks_done) / self.rate


Callback = Callable[[IngestProgress], None]


def estimate(chunks: int, read: int, unread: int) -> int:
    """The chunks still to come in `unread` bytes, at the `chunks` made from the `read` bytes read so far."""
    return round(chunks / read * max(unread, 0)) if read > 0 else 0


class Tracker:
    """Counts what the pipeline reports (files considered, chunks queued, chunks embedded) and
    hands a fresh IngestProgress to the callback at each change."""

    def __init__(self, callback: Callback | None, clock: Callable[[], float] = time.perf_counter) -> None:
        self.callback, self.clock = callback, clock
        self.files_total, self.files_done, self.path, self.stage = 0, 0, "", ""
        self.bytes_total = 0  # every file found
        self.bytes_closed = 0  # files considered and done with (unchanged, finished or failed)
        self.bytes_read = 0  # files finished: what the chunks-per-byte ratio is taken over
        self.chunks_read = 0  # chunks of the finished files
        self.queued = 0  # chunks handed to the writer in this run
        self.reading = False  # a file is being read
        self.read_in_open = 0  # bytes of the file being read that its loader has read (0: not known)
        self.embedded, self.reused = 0, 0
        self._started: tuple[float, int] | None = None  # (time, chunks done) when embedding started
        self._open: dict[str, int] = {}  # key -> size of a file being read
        self._queued_at_open = 0

    def found(self, sizes: list[int]) -> None:
        self.files_total, self.bytes_total = len(sizes), sum(sizes)

    def file(self, done: int, path: str) -> None:
        self.files_done, self.path = done, path
        self._emit()

    def opened(self, key: str, size: int) -> None:
        self._open[key] = size
        self._queued_at_open, self.read_in_open = self.queued, 0

    def unchanged(self, size: int) -> None:
        self.bytes_closed += size

    def chunks(self, count: int, read_to: int = 0) -> None:
        """`count` chunks queued, of a document that ends `read_to` bytes into its file (0: not known)."""
        self.queued += count
        self.read_in_open = read_to or self.read_in_open

    def closed(self, key: str, finished: bool) -> None:
        size = self._open.pop(key, 0)
        self.bytes_closed += size
        if finished:
            self.bytes_read += size
            self.chunks_read += self.queued - self._queued_at_open
        self._emit()

    def say(self, stage: str) -> None:
        self.stage = stage
        self._emit()

    def progress(self, embedded: int, reused: int) -> None:
        """The writer's counters: chunks embedded and stored vectors reused in this run."""
        self.embedded, self.reused, self.stage = embedded, reused, ""
        if self._started is None:
            self._started = (self.clock(), self.done)
        self._emit()

    def embedded_so_far(self, embedded: int) -> None:
        """The writer's count of chunks embedded in this run (the reused ones come from the Sink)."""
        self.progress(embedded, self.reused)

    @property
    def done(self) -> int:
        return self.embedded + self.reused

    def snapshot(self) -> IngestProgress:
        total, estimated = self._total()
        rate = None
        if self._started is not None:
            seconds = self.clock() - self._started[0]
            if seconds > 0.5 and self.done > self._started[1]:
                rate = (self.done - self._started[1]) / seconds
        return IngestProgress(self.files_done, self.files_total, self.path, self.done, total, estimated, rate,
                              self.stage)

    def _total(self) -> tuple[int | None, bool]:
        left = self.bytes_total - self.bytes_closed
        if left <= 0 and not self._open:
            return self.queued, False
        in_open = self.queued - self._queued_at_open if self._open else 0  # chunks of the file being read
        if not self.bytes_read:
            read = self.read_in_open if len(self._open) == 1 else 0  # one file read at a time: its position
            return (None, True) if not read else (self.queued + estimate(in_open, read, left - read), True)
        ahead = round(self.chunks_read / self.bytes_read * left)  # the file being read and those not read yet
        return self.queued - in_open + max(ahead, in_open), True

    def _emit(self) -> None:
        if self.callback is not None:
            self.callback(self.snapshot())
