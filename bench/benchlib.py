"""Small helpers shared by the benchmark scripts: paths, subsets, statistics, Markdown tables.

Not part of the package; the scripts run as `python bench/<name>.py` from the project root.
"""

from __future__ import annotations

import gzip
import json
import os
import platform
import statistics
import time
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from pathlib import Path

from ragchain_cli.offline import cli_process

cli_process()  # the CLI's process switches (offline, one BLAS thread), so bench/ measures what the CLI runs

OUT = Path(__file__).resolve().parent / "out"


def corpus_path(data: str) -> Path:
    path = Path(data) / "corpus.jsonl.gz"
    if not path.is_file():
        raise SystemExit(f"no corpus at {path}: pass --data pointing at the BEIR SciFact folder")
    return path


def subset_corpus(corpus: Path, limit: int, folder: Path) -> Path:
    """The first `limit` documents written to a scratch .jsonl.gz (outside the repository)."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"corpus-first{limit}.jsonl.gz"
    if not target.exists():
        with gzip.open(corpus, "rt", encoding="utf-8") as src, gzip.open(target, "wt", encoding="utf-8") as dst:
            for number, line in enumerate(src):
                if number >= limit:
                    break
                dst.write(line)
    return target


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (numpy's default), q in [0, 100]."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    pos = (len(ordered) - 1) * q / 100
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    def cell(value: object) -> str:
        if isinstance(value, float):
            return f"{value:.3f}"
        return str(value)

    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def machine() -> str:
    try:
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        load = "?"
    return f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, load avg {load}, " \
           f"Python {platform.python_version()}, {time.strftime('%Y-%m-%d %H:%M')}"


class Stopwatch:
    """Accumulated wall time per stage, filled by wrapping callables in place (bench process only)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.cpu: dict[str, float] = {}  # process CPU time (all threads), robust to other jobs' load
        self.calls: dict[str, int] = {}
        self._undo: list[tuple[object, str, object]] = []

    def wrap(self, owner: object, attr: str, stage: str) -> None:
        original = getattr(owner, attr)
        watch = self

        def timed(*args, **kwargs):
            started, cpu = time.perf_counter(), time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                watch.seconds[stage] = watch.seconds.get(stage, 0.0) + time.perf_counter() - started
                watch.cpu[stage] = watch.cpu.get(stage, 0.0) + time.process_time() - cpu
                watch.calls[stage] = watch.calls.get(stage, 0) + 1

        self._undo.append((owner, attr, owner.__dict__.get(attr, original) if hasattr(owner, "__dict__") else original))
        setattr(owner, attr, timed)

    def restore(self) -> None:
        for owner, attr, original in reversed(self._undo):
            setattr(owner, attr, original)
        self._undo.clear()

    @contextmanager
    def active(self, targets: Sequence[tuple[object, str, str]]):
        for owner, attr, stage in targets:
            self.wrap(owner, attr, stage)
        try:
            yield self
        finally:
            self.restore()


def write_report(name: str, text: str) -> Path:
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / name
    path.write_text(text.rstrip() + "\n", encoding="utf-8")
    return path


def timed(fn: Callable, *args, **kwargs) -> tuple[float, object]:
    started = time.perf_counter()
    result = fn(*args, **kwargs)
    return time.perf_counter() - started, result


def timed_cpu(fn: Callable, *args, **kwargs) -> tuple[float, float, object]:
    """(wall seconds, process CPU seconds over all threads, result)."""
    started, cpu = time.perf_counter(), time.process_time()
    result = fn(*args, **kwargs)
    return time.perf_counter() - started, time.process_time() - cpu, result


def read_jsonl(path: Path) -> list[dict]:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]
