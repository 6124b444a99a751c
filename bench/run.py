"""The one entry point to the benchmarks: run one by name, or the default suite.

    python bench/run.py --list                                   # the benchmarks, one a line
    python bench/run.py NAME [ARGS...]                           # run one; ARGS go to its script
    python bench/run.py NAME --help                              # its own options
    python bench/run.py suite --data ../shared/data/scifact      # the default suite, one after another
    python bench/run.py suite --data ../shared/data/scifact --only peers,startup

Each benchmark is a script in bench/ that measures side by side in one process run and reports
medians. The suite builds the shared SciFact index once (bench/out/indexes/scifact-200-40), runs
its benchmarks one after another (never in parallel: they would share 2 cores), and writes their
Markdown reports, with the command and the machine, to bench/out/suite.md. The current figures,
each with its command, are in bench/RESULTS.md. (`python bench/run.py --data ...`, the suite's
old spelling, still runs the suite.)
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

# name -> (script under bench/, what it measures)
BENCHMARKS = {
    "peers": ("peers_bench.py", "retrieval quality and latency against rank_bm25, bm25s and LanceDB's hybrid, SciFact"),
    "halves": ("halves.py", "the two fixed halves of a query set's qrels, for choosing on one and confirming on the other"),
    "scale": ("scale_bench.py", "latency and ANN recall on synthetic indexes of 10k to 1M chunks"),
    "startup": ("startup_bench.py", "cold start: `--help`, a BM25 and a hybrid search in fresh processes (CI runs it)"),
    "ingest": ("ingest_bench.py", "the whole ingest against the embedding model alone on the same chunks"),
    "ingest-memory": ("ingest_memory_bench.py", "peak memory of `ragchain ingest` on one JSONL file of growing size"),
    "ray": ("ray_bench.py", "`ingest --engine ray` against `--engine local`, side by side"),
    "shards": ("shards_bench.py", "query time over 1, 2, 4 and 8 shards: one after the other, threads, Ray actors"),
    "crash": ("crash_bench.py", "ingests killed with SIGKILL, and hostile inputs, at a larger scale than the tests"),
    "versions": ("versions_bench.py", "`ask --versions` on the versioned test corpus; the version step's cost"),
    "ask-served": ("ask_served.py", "`ask` drafting in-process against through a llama.cpp server, same GGUF: "
                   "one-shot and warm seconds, agreement, clients at once"),
    "ask-pair": ("ask_pair.py", "`ask` of two checkouts (or two settings) side by side: seconds a question, answers"),
    "qa-sets": ("qa/make_sets.py", "the fixed halves A and B of the CMU QA data, and their subsets in bench/qa/"),
    "squad2-halves": ("squad2_halves.py", "the fixed halves of SQuAD 2.0 dev used to choose and report abstention"),
    "answer-modes": ("answer_modes.py", "who decides answerable and verified (judge, both), side by side"),
    "judge": ("judge_bench.py", "the answer judge's load time and time to score 40 pairs"),
    "judge-compare": ("judge_compare.py", "judge weights side by side on a training run's held-out pairs"),
    "polar-sides": ("polar_sides.py", "whether a claim judge tells a yes/no reply's side: AUC, right against wrong sides"),
}

# the default suite: name -> its arguments ({data}: --data, {index}: the shared SciFact index)
SUITES = {
    "ingest": ["--data", "{data}", "--limit", "300", "--repeat", "3"],
    "peers": ["--data", "{data}", "--index", "{index}"],
    "startup": ["--index", "{index}", "--repeat", "7"],
    "scale": [],
    "ingest-memory": ["--data", "{data}"],
}


def listing() -> str:
    width = max(len(name) for name in BENCHMARKS)
    lines = [f"{name:<{width}}  bench/{script:<24} {what}" for name, (script, what) in BENCHMARKS.items()]
    lines.append(f"{'suite':<{width}}  {'(this runner)':<30} the default suite: {', '.join(SUITES)}")
    return "\n".join(lines)


def run_one(name: str, args: list[str]) -> int:
    script = BENCH / BENCHMARKS[name][0]
    return subprocess.run([sys.executable, str(script), *args], cwd=ROOT).returncode


def ensure_index(data: str) -> None:
    if (INDEX / "docstore.sqlite").is_file():
        return
    script = str(Path(sys.executable).with_name("ragchain"))
    corpus = str(Path(data) / "corpus.jsonl.gz")
    subprocess.run([script, "ingest", corpus, "--index", str(INDEX), "--json"], check=True, cwd=ROOT)


def run_suite(name: str, data: str) -> str:
    args = [a.format(data=data, index=str(INDEX)) for a in SUITES[name]]
    started = time.perf_counter()
    done = subprocess.run([sys.executable, str(BENCH / BENCHMARKS[name][0]), *args], cwd=ROOT,
                          capture_output=True, text=True)
    seconds = time.perf_counter() - started
    status = "ok" if done.returncode == 0 else f"FAILED (exit {done.returncode})"
    body = done.stdout.strip() if done.returncode == 0 else done.stderr.strip()[-2000:]
    return f"<!-- suite {name}: {status}, {seconds:.0f}s -->\n{body}\n"


def suite(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python bench/run.py suite", description="the default benchmark suite")
    parser.add_argument("--data", default="../shared/data/scifact")
    parser.add_argument("--only", default="", help="comma-separated names: " + ", ".join(SUITES))
    parser.add_argument("--all", action="store_true", help="(kept for old commands: the suite has no slow part now)")
    args = parser.parse_args(argv)
    chosen = [s for s in args.only.split(",") if s] or list(SUITES)
    unknown = sorted(set(chosen) - set(SUITES))
    if unknown:
        raise SystemExit(f"unknown suite(s) {', '.join(unknown)}; choose from {', '.join(SUITES)}")
    ensure_index(args.data)
    reports = []
    for name in chosen:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        reports.append(run_suite(name, args.data))
    out = BENCH / "out" / "suite.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    command = "python bench/run.py " + " ".join(sys.argv[1:])
    out.write_text(f"# Benchmark suite\n\n`{command}`\n\n" + "\n".join(reports), encoding="utf-8")
    print(out.read_text(encoding="utf-8"))
    return 0


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip() + "\n\nBenchmarks:\n" + listing())
        return 0
    if argv[0] == "--list":
        print(listing())
        return 0
    if argv[0] == "suite":
        return suite(argv[1:])
    if argv[0].startswith("--"):  # the suite's old spelling: python bench/run.py --data ... [--only ...]
        return suite(argv)
    if argv[0] not in BENCHMARKS:
        print(f"unknown benchmark {argv[0]!r}; `python bench/run.py --list` names them", file=sys.stderr)
        return 2
    return run_one(argv[0], argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
