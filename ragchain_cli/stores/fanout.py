"""Every shard asked at once: one call per shard on a thread pool, the answers in shard order.

Tantivy, LanceDB, SQLite and numpy release the GIL in their own code, so a query's per-shard
searches and lookups overlap on threads in one process. On 2 CPUs, with SciFact-sized shards (a
few thousand chunks each), asking them in turn was faster (bench/shards_bench.py: the per-shard work
is small and the threads' own costs and GIL hand-offs are not), so "auto" asks in turn there and
on threads with more CPUs (not measured: no such machine was at hand). The calls handed to a
Fanout are leaves: they never hand work to the same pool, so the pool cannot deadlock, and a
sharded index's retrievers (which run side by side, retrieve/pipeline.py) share it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

MODES = ("auto", "threads", "serial")
MOST_CPUS_FOR_SERIAL = 2  # "auto" asks in turn on this many CPUs or fewer (measured faster there; RESULTS.md)


def resolved(mode: str) -> str:
    """"auto": "threads" on more than MOST_CPUS_FOR_SERIAL CPUs, else "serial"."""
    if mode != "auto":
        return mode
    return "threads" if (os.cpu_count() or 1) > MOST_CPUS_FOR_SERIAL else "serial"


class Fanout:
    """`map(call, parts)`: call(part) for every part, at once ("threads") or in turn ("serial"; "auto":
    resolved())."""

    def __init__(self, width: int, mode: str = "auto") -> None:
        self.mode = mode = resolved(mode)
        # two retrievers fan out at once (BM25 and dense run side by side), so two calls a shard
        self._pool = ThreadPoolExecutor(2 * width, thread_name_prefix="shard") \
            if mode == "threads" and width > 1 else None

    def map(self, call: Callable[[T], R], parts: Iterable[T]) -> list[R]:
        parts = list(parts)
        if self._pool is None or len(parts) < 2:
            return [call(part) for part in parts]
        return list(self._pool.map(call, parts))

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None


__all__ = ["MODES", "Fanout", "resolved"]
