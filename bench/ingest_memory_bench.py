"""Ingest memory: peak RSS of a real `ragchain ingest` of one BEIR JSONL file at growing sizes.

    python bench/ingest_memory_bench.py --data ../shared/data/scifact [--sizes 1000,5183]

Each size is the first N SciFact documents written to one .jsonl.gz (outside the repository) and
ingested into a fresh index by the CLI in a subprocess; the child logs its VmRSS and VmHWM after
every batch it writes. The ingest streams documents and writes a batch (1,024 chunks) at a time,
so memory should level off after the first batches instead of growing with the file (the peak
comes from embedding the batches with the longest chunks). Results: stdout and
bench/out/ingest-memory.md.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import benchlib

# The real CLI; BatchWriter.flush is wrapped only to log the process's memory after each batch.
HARNESS = """
import sys
from ragchain_cli.ingest import writer
log, real = open(sys.argv[1], "w"), writer.BatchWriter.flush
def status():
    fields = dict(line.split(":", 1) for line in open("/proc/self/status"))
    return [int(fields[k].split()[0]) // 1024 for k in ("VmRSS", "VmHWM")]
def flush(self):
    out = real(self)
    log.write(" ".join(map(str, [self.added, *status()])) + chr(10)); log.flush()
    return out
writer.BatchWriter.flush = flush
from ragchain_cli.offline import cli_process
cli_process()  # the switches the `ragchain` entry point sets
from ragchain_cli.cli.app import run
code = run(sys.argv[2:])
log.write(" ".join(map(str, ["end", *status()])) + chr(10)); log.close()
sys.exit(code)
"""


def run_size(corpus: Path, size: int, work: Path) -> tuple[list, list[list[str]]]:
    subset = benchlib.subset_corpus(corpus, size, work / "subsets")
    index, log = work / f"index-{size}", work / f"memory-{size}.log"
    shutil.rmtree(index, ignore_errors=True)
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", HARNESS, str(log), "ingest", str(subset), "--index", str(index),
                             "--json"], capture_output=True, text=True, timeout=36_000)
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"ingest of {size} documents failed: {result.stderr[-500:]}")
    shutil.rmtree(index, ignore_errors=True)
    batches = [line.split() for line in log.read_text().splitlines()]
    peak = batches[-1][2]
    added = json.loads(result.stdout)["chunks_added"]
    written = list(dict.fromkeys(b[0] for b in batches[:-1]))  # flush() logs even when it had nothing to write
    return [size, added, len(written), round(seconds, 1), batches[-1][1], peak], batches[:-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--sizes", default="1000,5183")
    args = parser.parse_args()
    work = benchlib.OUT / "ingest-memory"
    work.mkdir(parents=True, exist_ok=True)
    corpus = benchlib.corpus_path(args.data)
    results = [run_size(corpus, int(n), work) for n in args.sizes.split(",")]
    batches = results[-1][1]
    report = (f"## Ingest memory, {benchlib.machine()}\n\n`python bench/ingest_memory_bench.py --data {args.data} "
              f"--sizes {args.sizes}` (one JSONL file per size, CLI in a subprocess)\n\n"
              + benchlib.table(["documents", "chunks", "batches", "seconds", "RSS at end MiB", "peak RSS MiB"],
                               [r for r, _ in results])
              + f"\n\nAfter each batch of the largest ({args.sizes.split(',')[-1]} documents):\n\n"
              + benchlib.table(["chunks written", "RSS MiB", "peak so far MiB"], batches) + "\n")
    print(report)
    benchlib.write_report("ingest-memory.md", report)


if __name__ == "__main__":
    main()
