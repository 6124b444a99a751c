"""How long the answer judge takes to score 40 (question, sentence) pairs, and to load (issue 44: at
most 0.5 s for 40 pairs on 2 cores).

    python bench/judge_bench.py [--pairs 40] [--repeat 20]

The pairs are the sample corpus's sentences (sample_corpus/*.md, split as `ask` splits them) against
its 15 questions (sample_corpus/queries.jsonl), the first --pairs of them; prints the load time and
the median, fastest and slowest of --repeat timed scorings, as JSON.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from ragchain_cli.judge.model import OnnxJudge, passage
from ragchain_cli.text.sentences import sentences

SAMPLE = Path(__file__).resolve().parent.parent / "sample_corpus"


def pairs(count: int) -> list[tuple[str, str]]:
    questions = [json.loads(line)["text"] for line in (SAMPLE / "queries.jsonl").read_text().splitlines() if line]
    units = [(path.stem, s) for path in sorted(SAMPLE.glob("*.md")) for s in sentences(path.read_text())
             if len(s.split()) >= 6]
    return [(questions[i % len(questions)], passage(*units[(7 * i) % len(units)])) for i in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    started = time.perf_counter()
    judge = OnnxJudge()
    loaded = time.perf_counter() - started
    batch = pairs(args.pairs)
    judge.score(batch)  # warm-up
    times = []
    for _ in range(args.repeat):
        started = time.perf_counter()
        judge.score(batch)
        times.append(time.perf_counter() - started)
    print(json.dumps({"pairs": len(batch), "load_s": round(loaded, 3), "median_s": round(statistics.median(times), 4),
                      "min_s": round(min(times), 4), "max_s": round(max(times), 4), "repeat": args.repeat}))


if __name__ == "__main__":
    main()
