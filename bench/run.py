"""The benchmark suite: run the benchmarks in one go and collect their reports.

    python bench/run.py --data ../shared/data/scifact            # the default suites
    python bench/run.py --data ../shared/data/scifact --only peers,startup
    python bench/run.py --data ../shared/data/scifact --all      # also the slow LLM suites

Each suite is a script in bench/ that measures side by side in one process run and reports
medians; this runner builds the shared SciFact index once (bench/out/indexes/scifact-200-40),
runs the suites one after another (never in parallel: they would share 2 cores), and writes
their Markdown reports, with the command and the machine, to bench/out/suite.md. Curated
results live in bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
INDEX = BENCH / "out" / "indexes" / "scifact-200-40"

SUITES = {
    "ingest": (["ingest_bench.py", "--data", "{data}", "--limit", "300", "--repeat", "3"], False),
    "retrieval": (["retrieval_bench.py", "--data", "{data}"], False),
    "peers": (["peers_bench.py", "--data", "{data}", "--index", "{index}"], False),
    "startup": (["startup_bench.py", "--index", "{index}", "--repeat", "7"], False),
    "scale": (["scale_bench.py"], False),
    "ingest-memory": (["ingest_memory_bench.py", "--data", "{data}"], False),
    "ocr": (["ocr_bench.py"], False),
    "rerank": (["rerank_bench.py", "--data", "{data}", "--index", "{index}"], True),
    "query-ext": (["query_ext_bench.py", "--data", "{data}", "--index", "{index}"], True),
}


def ensure_index(data: str) -> None:
    if (INDEX / "docstore.sqlite").is_file():
        return
    script = str(Path(sys.executable).with_name("ragchain"))
    corpus = str(Path(data) / "corpus.jsonl.gz")
    subprocess.run([script, "ingest", corpus, "--index", str(INDEX), "--json"], check=True, cwd=ROOT)


def run_suite(name: str, argv: list[str], data: str) -> str:
    args = [a.format(data=data, index=str(INDEX)) for a in argv]
    started = time.perf_counter()
    done = subprocess.run([sys.executable, str(BENCH / args[0]), *args[1:]], cwd=ROOT, capture_output=True,
                          text=True)
    seconds = time.perf_counter() - started
    status = "ok" if done.returncode == 0 else f"FAILED (exit {done.returncode})"
    body = done.stdout.strip() if done.returncode == 0 else done.stderr.strip()[-2000:]
    return f"<!-- suite {name}: {status}, {seconds:.0f}s -->\n{body}\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="../shared/data/scifact")
    parser.add_argument("--only", default="", help="comma-separated suite names: " + ", ".join(SUITES))
    parser.add_argument("--all", action="store_true", help="include the slow LLM suites")
    args = parser.parse_args()
    chosen = [s for s in args.only.split(",") if s] or [n for n, (_, slow) in SUITES.items() if args.all or not slow]
    unknown = sorted(set(chosen) - set(SUITES))
    if unknown:
        raise SystemExit(f"unknown suite(s) {', '.join(unknown)}; choose from {', '.join(SUITES)}")
    ensure_index(args.data)
    reports = []
    for name in chosen:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        reports.append(run_suite(name, SUITES[name][0], args.data))
    out = BENCH / "out" / "suite.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    command = "python bench/run.py " + " ".join(sys.argv[1:])
    out.write_text(f"# Benchmark suite\n\n`{command}`\n\n" + "\n".join(reports), encoding="utf-8")
    print(out.read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()
