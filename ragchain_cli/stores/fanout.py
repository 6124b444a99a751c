"""Every shard asked at once: one call per shard on a thread pool, the answers in shard order.

Tantivy, LanceDB, SQLite and numpy release the GIL in their own code, so a query's per-shard
searches and lookups overlap on threads in one process (bench/shards_bench.py measures them
against one after the other, and against shards served by Ray actors). The calls handed to a
Fanout are leaves: they never hand work to the same pool, so the pool cannot deadlock, and a
sharded index's retrievers (which run side by side, retrieve/pipeline.py) share it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

MODES = ("threads", "serial")


class Fanout:
    """`map(call, parts)`: call(part) for every part, at once ("threads") or in turn ("serial")."""

    def __init__(self, width: int, mode: str = "threads") -> None:
        self.mode = mode
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


__all__ = ["MODES", "Fanout"]
