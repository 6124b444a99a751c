"""Query encoder break-even: after how many queries does loading torch pay for itself?

The numpy encoder (stores/numpy_bert.py) loads in ~0.2 s and encodes a query in milliseconds;
sentence-transformers on torch costs seconds to import and load, then encodes a batch faster.
Each side is measured in a fresh process (load = import + model load; then per-query time in
batches of --batch real SciFact queries, median of --repeat runs), side by side in one run:

    break-even queries = (torch load - numpy load) / (numpy per query - torch per query)

DenseRetriever encodes with numpy until the queries it has encoded pass this number (the
ski-rental rule: never more than twice the cost of the better choice made in hindsight), and
with torch at once when torch is already loaded in the process.

    python bench/encoder_breakeven.py --data ../shared/data/scifact --repeat 3
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import machine, median, table, write_report  # noqa: E402

PROBE = """
import json, sys, time
started, cpu = time.perf_counter(), time.process_time()
from ragchain_cli.stores import embedders
from ragchain_cli.stores.numpy_bert import NumpyBertEncoder
kind, batch, texts = sys.argv[1], int(sys.argv[2]), json.loads(sys.stdin.read())
if kind == "numpy":
    encoder = NumpyBertEncoder(embedders.model_folder(embedders.DEFAULT_MODEL))
else:
    encoder = embedders.SentenceTransformerEmbedder(embedders.DEFAULT_MODEL)
encoder.embed(texts[:1])
load, load_cpu = time.perf_counter() - started, time.process_time() - cpu
started, cpu = time.perf_counter(), time.process_time()
for i in range(0, len(texts), batch):
    encoder.embed(texts[i:i + batch])
print(json.dumps({"load": load, "per_query": (time.perf_counter() - started) / len(texts), "load_cpu": load_cpu,
                  "per_query_cpu": (time.process_time() - cpu) / len(texts)}))
"""


def probe(kind: str, batch: int, texts: list[str]) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, kind, str(batch)], input=json.dumps(texts),
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="../shared/data/scifact")
    parser.add_argument("--queries", type=int, default=256)
    parser.add_argument("--batch", type=int, default=64, help="queries per encode call (search - uses 64)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    lines = (Path(args.data) / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    texts = [json.loads(line)["text"] for line in lines[: args.queries]]
    runs: dict[str, list[dict]] = {"numpy": [], "torch": []}
    for _ in range(args.repeat):  # interleaved, so both sides see the same machine load
        for kind in runs:
            runs[kind].append(probe(kind, args.batch, texts))
    keys = ("load", "per_query", "load_cpu", "per_query_cpu")
    stats = {kind: {key: median([r[key] for r in rs]) for key in keys} for kind, rs in runs.items()}
    rows = [[kind, f"{s['load']:.2f}", f"{1000 * s['per_query']:.2f}", f"{s['load_cpu']:.2f}",
             f"{1000 * s['per_query_cpu']:.2f}"] for kind, s in stats.items()]
    lines = []
    for label, load, per_query in (("wall", "load", "per_query"), ("CPU", "load_cpu", "per_query_cpu")):
        gain = stats["numpy"][per_query] - stats["torch"][per_query]
        extra = stats["torch"][load] - stats["numpy"][load]
        lines.append(f"- {label} time: ({extra:.2f} s extra load) / ({1000 * gain:.2f} ms saved per query) = "
                     f"**{extra / gain:.0f} queries**" if gain > 0 else f"- {label} time: torch never catches up")
    report = (f"# Query encoder break-even\n\n{machine()}; {len(texts)} SciFact queries in batches of {args.batch}, "
              f"median of {args.repeat} fresh processes each (interleaved).\n\n"
              f"{table(['encoder', 'load s', 'ms per query', 'load CPU s', 'CPU ms per query'], rows)}\n\n"
              "Break-even:\n" + "\n".join(lines) + "\n")
    print(report)
    write_report("encoder_breakeven.md", report)


if __name__ == "__main__":
    main()
