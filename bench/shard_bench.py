"""A sharded index against one index of the same files: the same top 10, and query latency.

    ragchain eval QRELS --queries Q --index ONE --run-out one.run       # nDCG@10 of each, and its run
    ragchain eval QRELS --queries Q --index SHARDED --run-out sharded.run
    python bench/shard_bench.py --runs one.run sharded.run              # same top 10, per query
    python bench/shard_bench.py --latency 200 --queries Q --single ONE --sharded SHARDED [--retrievers bm25]
    python bench/shard_bench.py --build DIR --data ../shared/data/scifact --shards 4 [--files 64]

`--build DIR`: DIR/single and DIR/sharded from the corpus split into `--files` JSONL files, with
write_bench.py's seeded vectors (no embedding: a unit vector drawn from the chunk ID), the shards
written one after the other in this process; the write seconds of each. BM25 parity needs no
real vectors; dense lists merge by cosine unchanged.

`--runs A B`: the share of queries whose top 10 documents are the same in both runs (as a set,
and in the same order). `--latency N`: N queries (the first N of Q) searched in one process on
both indexes, alternating query by query so both see the same machine load; p50 and p95 per
query, warm (each pipeline answers 5 queries first), and their ratio.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import benchlib

from ragchain_cli.config import load_settings
from ragchain_cli.evaluation.runs import read_trec_run
from ragchain_cli.retrieve.pipeline import SearchPipeline, search_options
from ragchain_cli.stores.sharded import open_index

WARM = 5


def top(run: dict, qid: str, k: int = 10) -> list[str]:
    return [d for d, _ in sorted(run.get(qid, {}).items(), key=lambda item: (-item[1], item[0]))[:k]]


def compare_runs(first: Path, second: Path) -> str:
    a, b = read_trec_run(first), read_trec_run(second)
    qids = sorted(set(a) | set(b))
    as_set = sum(set(top(a, q)) == set(top(b, q)) for q in qids)
    in_order = sum(top(a, q) == top(b, q) for q in qids)
    return (f"{len(qids)} queries: same top-10 set {as_set} ({as_set / len(qids):.1%}), "
            f"same top-10 order {in_order} ({in_order / len(qids):.1%})")


def latency(queries: list[str], single: Path, sharded: Path, retrievers: str) -> str:
    flags = {"retrievers": retrievers} if retrievers else {}
    options = search_options(load_settings(flags))
    times: dict[str, list[float]] = {"single": [], "sharded": []}
    with open_index(single) as one, open_index(sharded) as many:
        pipelines = {"single": SearchPipeline(one, options), "sharded": SearchPipeline(many, options)}
        for pipeline in pipelines.values():
            for query in queries[:WARM]:
                pipeline.search(query)
        for query in queries:
            for name, pipeline in pipelines.items():
                started = time.perf_counter()
                pipeline.search(query)
                times[name].append((time.perf_counter() - started) * 1000)
    rows = [[name, f"{benchlib.median(ms):.1f}", f"{benchlib.percentile(ms, 95):.1f}"] for name, ms in times.items()]
    ratio = benchlib.median(times["sharded"]) / benchlib.median(times["single"])
    return (benchlib.table(["index", "p50 ms", "p95 ms"], rows)
            + f"\nsharded / single p50: {ratio:.2f} ({len(queries)} queries, retrievers {retrievers or 'default'})")


def build(target: Path, data: str, shards: int, files: int) -> str:
    import write_bench

    from ragchain_cli.ingest.engines import ENGINES
    from ragchain_cli.ingest.pipeline import ingest_into, ingest_options
    from ragchain_cli.ingest.sharded import ingest_sharded

    folder = write_bench.split_corpus(benchlib.corpus_path(data), files, 0, target)
    write_bench.CachedEngine.prepared = {path: docs for path, docs in write_bench.prepare(folder, "")}
    ENGINES.register("cached", write_bench.CachedEngine, "bench: documents, chunks and vectors prepared in advance")
    options = ingest_options(embed_model=write_bench.MODEL, engine="cached")
    rows = []
    for name, run in (("single", lambda: ingest_into(target / "single", [folder], options)),
                      ("sharded", lambda: ingest_sharded(target / "sharded", [folder], options, shards))):
        seconds, report = benchlib.timed(run)
        rows.append([name, report.chunks_added, f"{seconds:.1f}", f"{report.chunks_added / seconds:.0f}"])
    return benchlib.table(["index", "chunks", "write s", "chunks/s"], rows) + f"\n{shards} shards, written one after the other"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", nargs=2, type=Path, metavar=("ONE", "SHARDED"))
    parser.add_argument("--latency", type=int, default=0, metavar="N")
    parser.add_argument("--queries", type=Path)
    parser.add_argument("--single", type=Path)
    parser.add_argument("--sharded", type=Path)
    parser.add_argument("--retrievers", default="")
    parser.add_argument("--build", type=Path, metavar="DIR")
    parser.add_argument("--data", default="../shared/data/scifact")
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--files", type=int, default=64)
    args = parser.parse_args()
    if args.build:
        print(build(args.build, args.data, args.shards, args.files))
    if args.runs:
        print(compare_runs(*args.runs))
    if args.latency:
        if not (args.queries and args.single and args.sharded):
            sys.exit("--latency needs --queries, --single and --sharded")
        texts = [row["text"] for row in benchlib.read_jsonl(args.queries)][: args.latency]
        print(latency(texts, args.single, args.sharded, args.retrievers))


if __name__ == "__main__":
    main()
