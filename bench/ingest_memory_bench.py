"""Ingest memory: peak RSS of a real `ragchain ingest` of one BEIR JSONL file at growing sizes.

    python bench/ingest_memory_bench.py --data ../shared/data/scifact [--sizes 250,1000,4000]

Each size is the first N SciFact documents written to one .jsonl.gz (outside the repository) and
ingested into a fresh index by the CLI in a subprocess; peak memory is the child's VmHWM. The
ingest streams documents and writes a batch (1,024 chunks) at a time, so the peak should not
grow with the file; the baseline is the model and libraries. Results: stdout and
bench/out/ingest-memory.md.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import benchlib

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from test_reliability_hostile import measured  # noqa: E402


def run_size(corpus: Path, size: int, work: Path) -> list:
    subset = benchlib.subset_corpus(corpus, size, work / "subsets")
    index = work / f"index-{size}"
    shutil.rmtree(index, ignore_errors=True)
    result, seconds, peak = measured(work, "ingest", subset, "--index", index, "--json", timeout=36_000)
    if result.returncode != 0:
        raise SystemExit(f"ingest of {size} documents failed: {result.stderr[-500:]}")
    report = json.loads(result.stdout)
    shutil.rmtree(index, ignore_errors=True)
    return [size, report["chunks_added"], round(seconds, 1), round(peak)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--sizes", default="250,1000,4000")
    args = parser.parse_args()
    work = benchlib.OUT / "ingest-memory"
    work.mkdir(parents=True, exist_ok=True)
    corpus = benchlib.corpus_path(args.data)
    rows = [run_size(corpus, int(n), work) for n in args.sizes.split(",")]
    report = (f"## Ingest memory, {benchlib.machine()}\n\n`python bench/ingest_memory_bench.py --data {args.data} "
              f"--sizes {args.sizes}` (one JSONL file per size, CLI in a subprocess)\n\n"
              + benchlib.table(["documents", "chunks", "seconds", "peak RSS MiB"], rows) + "\n")
    print(report)
    benchlib.write_report("ingest-memory.md", report)


if __name__ == "__main__":
    main()
