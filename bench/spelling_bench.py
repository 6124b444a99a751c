"""Which queries the spelling step corrects, and to what: every query of a file against one index.

    python bench/spelling_bench.py --index DIR --queries FILE [--queries FILE ...]

FILE is JSONL with "question" (the QA sets) or "text" (BEIR queries). Prints each corrected query
with its changes, then per file: queries, corrected, and the median time of the step per query.
The quality effect is measured with the tools that measure quality: `ragchain eval` with two
configs (`spelling = false` / `spelling = true`) side by side, and `ask` on the corrected questions
(bench/RESULTS.md, "Spelling").
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ragchain_cli.retrieve.spelling import speller_for  # noqa: E402
from ragchain_cli.stores.index import Index  # noqa: E402


def queries_of(path: Path) -> list[str]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [row.get("question") or row.get("text") or "" for row in rows]


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--queries", type=Path, action="append", required=True)
    args = parser.parse_args(argv)
    index = Index(args.index)
    try:
        speller = speller_for(index)
        for path in args.queries:
            corrected, seconds = 0, []
            for query in queries_of(path):
                started = time.perf_counter()
                spelling = speller.correct(query)
                seconds.append(time.perf_counter() - started)
                if spelling.changes:
                    corrected += 1
                    print(f"{json.dumps(spelling.changes, ensure_ascii=False)}  {query}")
            print(f"# {path.name}: {len(seconds)} queries, {corrected} corrected, "
                  f"median {statistics.median(seconds) * 1000:.2f} ms a query\n")
    finally:
        index.close()


if __name__ == "__main__":
    main(sys.argv[1:])
