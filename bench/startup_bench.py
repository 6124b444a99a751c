"""Cold start of the CLI: wall time of whole `ragchain` processes, medians over repeated runs.

Measures `ragchain --help`, a BM25-only search, a hybrid search and (when a model is installed)
nothing else, on an index given with --index; also records which heavy modules each command
imported, since start-up is mostly import time.

    python bench/startup_bench.py --index bench/out/indexes/scifact-200-40 --repeat 7
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import machine, median, percentile, table, write_report  # noqa: E402

HEAVY = ("torch", "sentence_transformers", "transformers", "lancedb", "llama_cpp")
PROBE = (
    "import sys, time\nfrom ragchain_cli.cli.app import run\n"
    "code = run(sys.argv[1:])\n"
    f"print('HEAVY=' + ','.join(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))), file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def wall(args: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({done.returncode}): {done.stderr[-500:]}")
    return elapsed


def heavy_imports(args: list[str]) -> str:
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True)
    line = [l for l in done.stderr.splitlines() if l.startswith("HEAVY=")]
    return line[-1][6:] or "none" if line else "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", default="bench/out/indexes/scifact-200-40")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    script = str(Path(sys.executable).with_name("ragchain"))
    query = "vitamin D deficiency and bone density"
    cases = {
        "ragchain --help": ["--help"],
        "search, bm25 only": ["search", query, "--retrievers", "bm25", "--index", args.index, "--json"],
        "search, hybrid (bm25+dense)": ["search", query, "--index", args.index, "--json"],
    }
    rows = []
    for name, argv in cases.items():
        wall([script, *argv])  # warm the page cache once
        times = [wall([script, *argv]) for _ in range(args.repeat)]
        rows.append([name, median(times), percentile(times, 95), min(times), heavy_imports(argv)])
    report = (f"## Cold start, {machine()}\n\n`python bench/startup_bench.py --index {args.index} "
              f"--repeat {args.repeat}` (each a fresh process; medians of {args.repeat})\n\n"
              + table(["command", "median s", "p95 s", "min s", "heavy modules imported"], rows) + "\n")
    print(report)
    write_report("startup.md", report)
    print(json.dumps({r[0]: r[1] for r in rows}), file=sys.stderr)


if __name__ == "__main__":
    main()
