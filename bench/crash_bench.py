"""Reliability benchmark: SIGKILL crash rounds and hostile inputs, at a larger scale than CI.

    python bench/crash_bench.py [--files 400] [--kills 24] [--batch 2] [--seed 20] [--skip-hostile]
                                [--skip-crash] [--full-50mb] [--out crash.md]

Crash rounds (the harness of tests/test_reliability_crash.py, run with more files and kills):
the real `ragchain ingest` in a subprocess (Tantivy, LanceDB, MiniLM; only IngestOptions.batch_chunks
is lowered so a run commits many batches) is killed with SIGKILL at seeded random points: a quarter
during start-up, the rest just after a batch's SQLite commit or in the middle of a batch. After
each kill: committed chunks are all still there, the indexes are never ahead of the docstore, and
`ragchain search --retrievers bm25` (hybrid every sixth round) exits 0 with valid JSON and finds
the documents written before the kill. Then one uninterrupted ingest must leave `ragchain check`
at exit 0 with the chunk IDs and counts of a clean ingest.

Hostile inputs (the corpus of tests/test_reliability_hostile.py): time and peak memory of the
ingest, per-file outcome (peak memory is the process's VmHWM); 100,000 empty files; a 50 MB single-line file through loader + chunker
(and, with --full-50mb, the whole ingest including embedding: long on a small CPU).

Results: Markdown on stdout and in bench/out/crash.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from test_reliability_crash import crash_rounds, finish_and_compare, make_corpus  # noqa: E402
from test_reliability_hostile import CHUNK_50MB, make_hostile_corpus, measured  # noqa: E402


def crash(args, work: Path) -> list[str]:
    corpus = work / "notes"
    expected = make_corpus(corpus, files=args.files, seed=args.seed)
    index, log = work / "index", work / "ingest.log"
    started = time.perf_counter()
    stats = crash_rounds(corpus, index, expected, kills=args.kills, seed=args.seed, batch=args.batch,
                         hybrid_rounds=set(range(1, 10_000, 6)), log=log, sample=40)
    kill_seconds = time.perf_counter() - started
    counts = finish_and_compare(corpus, index, work / "clean", batch=args.batch, log=log)
    total = time.perf_counter() - started
    delays = sorted(stats.delays)
    return [
        f"## Crash rounds: {args.files} files, {args.kills} SIGKILLs, batch {args.batch} chunks, seed {args.seed}",
        "",
        "| figure | value |",
        "|---|---|",
        f"| ingests killed with SIGKILL | {stats.kills} (start-up {stats.kills_by_kind['startup']}, "
        f"just after a commit {stats.kills_by_kind['after-commit']}, mid-batch {stats.kills_by_kind['mid-batch']}) |",
        f"| kills survived (search answered, nothing lost, indexes never ahead of the docstore) | {stats.kills} |",
        f"| kills before the first commit | {stats.kills_before_first_commit} |",
        f"| kills that left journal entries pending | {stats.kills_with_pending_journal} |",
        f"| kills that left Tantivy or LanceDB behind the docstore | {stats.kills_with_indexes_behind} |",
        f"| kill times after start, s (min / median / max) | {delays[0]:.1f} / {delays[len(delays) // 2]:.1f} / "
        f"{delays[-1]:.1f} |",
        f"| bm25 searches after kills (exit 0, valid JSON) | {stats.searches} |",
        f"| hybrid searches after kills | {stats.hybrid_searches} |",
        f"| documents looked up by their unique word after kills, all found | {stats.documents_checked} |",
        f"| chunks lost | {stats.chunks_lost} |",
        f"| after one more ingest: `ragchain check` | exit 0 |",
        f"| final counts (files / documents / chunks / Tantivy / LanceDB) | {counts['files']} / "
        f"{counts['documents']} / {counts['chunks']} / {counts['lexical']} / {counts['vectors']} |",
        f"| equal to a clean ingest of the same corpus (chunk IDs and counts) | yes |",
        f"| wall time: kill rounds / total | {kill_seconds:.0f} s / {total:.0f} s |",
        "",
    ]


def hostile(args, work: Path) -> list[str]:
    lines = ["## Hostile inputs", ""]
    corpus = work / "hostile"
    expect = make_hostile_corpus(corpus, blank_pages=args.blank_pages)
    result, seconds, peak = measured(work, "ingest", corpus, "--index", work / "hostile-index", "--json",
                                     timeout=1800)
    report = json.loads(result.stdout)
    reasons = {os.path.relpath(s["path"], corpus): s["reason"] for s in report["skipped"]}
    lines += [f"One ingest of {len(expect)} hostile files (plus symlink loops and a link to a file): exit "
              f"{result.returncode}, {seconds:.1f} s, peak RSS {peak:.0f} MiB, {report['files_ingested']} ingested, "
              f"{len(reasons)} skipped, each with its reason.", "",
              "| file | outcome |", "|---|---|"]
    for name in sorted(expect):
        shown = repr(name)[1:-1].replace("|", "\\|")
        outcome = reasons.get(name, "ingested")
        lines.append(f"| `{shown}` | {outcome.replace('|', '/')[:110]} |")
    lines.append("")

    empty = work / "empty"
    empty.mkdir()
    for number in range(100_000):
        (empty / f"e{number:06d}.txt").touch()
    result, seconds, peak = measured(work, "ingest", empty, "--index", work / "empty-index", "--json", timeout=1800)
    skipped = len(json.loads(result.stdout)["skipped"])
    lines += [f"100,000 empty files: exit {result.returncode}, {seconds:.1f} s, peak RSS {peak:.0f} MiB, "
              f"{skipped} listed in the JSON, {len(result.stderr.splitlines())} lines on stderr.", ""]

    big = work / "big.txt"
    words = ("heron", "inlet", "sampling", "closed", "reed", "channel", "osprey", "current", "anchored", "boat")
    line = " ".join(words[i * 7 % 10] + str(i % 97) for i in range(20_000))
    with big.open("w", encoding="utf-8") as handle:
        while handle.tell() < 50_000_000:
            handle.write(line + " ")
    out = subprocess.run([sys.executable, "-c", CHUNK_50MB, str(big)], capture_output=True, text=True, check=True)
    chunks, _end, _longest, seconds, peak_mb = out.stdout.split()
    lines += [f"50 MB single-line file, loader + chunker: {chunks} chunks, {seconds} s, peak RSS {peak_mb} MiB.", ""]
    if args.full_50mb:
        result, seconds, peak = measured(work, "ingest", big, "--index", work / "big-index", "--json", timeout=36_000)
        added = json.loads(result.stdout)["chunks_added"]
        lines += [f"50 MB single-line file, whole ingest (embedding included): exit {result.returncode}, "
                  f"{added} chunks, {seconds:.0f} s, peak RSS {peak:.0f} MiB.", ""]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=400)
    parser.add_argument("--kills", type=int, default=24)
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--seed", type=int, default=20)
    parser.add_argument("--blank-pages", type=int, default=5000)
    parser.add_argument("--skip-hostile", action="store_true")
    parser.add_argument("--skip-crash", action="store_true")
    parser.add_argument("--full-50mb", action="store_true")
    parser.add_argument("--out", default="crash.md")
    args = parser.parse_args()
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    lines = ["# Reliability benchmark", "",
             f"Machine: {platform.machine()}, {os.cpu_count()} cores, load avg {load} at start, Python "
             f"{platform.python_version()}, {time.strftime('%Y-%m-%d %H:%M')}. Command: `python bench/crash_bench.py "
             f"{' '.join(sys.argv[1:])}`", ""]
    with tempfile.TemporaryDirectory(prefix="crash-bench-") as tmp:
        work = Path(tmp)
        os.chdir(work)  # document IDs relative to the scratch folder
        if not args.skip_crash:
            lines += crash(args, work)
        if not args.skip_hostile:
            lines += hostile(args, work)
    text = "\n".join(lines)
    print(text)
    out = HERE / "out" / args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
