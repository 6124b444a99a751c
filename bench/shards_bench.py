"""Query time over 1, 2, 4 and 8 shards of one SciFact corpus, side by side in one run.

    python bench/run.py shards --data ../shared/data/scifact --out /tmp/shards [--queries 200] [--counts 2,4,8]

Builds (once, kept in --out) one index and one sharded index per count from the same corpus split
into --files JSONL files, through the real ingest (loader, chunker, writer, Tantivy, LanceDB,
statistics and version passes). The chunk vectors are seeded unit vectors drawn from the chunk ID
(no embedding: 12k chunks would take ~15 minutes on 2 cores), or with --vectors-from the real ones
an index of the same split folder holds; queries are embedded by the real model, so a dense search
costs what it costs either way. Then the first
--queries SciFact train queries of one fixed half (--half) go through the default search (BM25 + dense, document fusion) of every
configuration, alternating query by query so all see the same load: one index; each sharded index
searched one shard after the other ("serial"), all shards at once ("threads"), and every shard held
by a Ray actor on a local Ray ("ray": the process variant, asked at once too). Reports p50 and
p95 ms (warm: each configuration answers 5 queries first), the p50 ratio to one index, and the share
of queries whose top 10 documents equal one index's.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import time
from pathlib import Path

import benchlib
import numpy as np

WARM = 5
DIM = 384
MODEL = "all-MiniLM-L6-v2"


def split_corpus(corpus: Path, files: int, limit: int, folder: Path) -> Path:
    """The corpus (its first `limit` documents, 0: all) as `files` JSONL files, round robin."""
    target = folder / f"corpus-{files}files-{limit or 'all'}"
    if target.exists():
        return target
    target.mkdir(parents=True)
    handles = [open(target / f"part{i:05d}.jsonl", "w", encoding="utf-8") for i in range(files)]
    with gzip.open(corpus, "rt", encoding="utf-8") as src:
        for number, line in enumerate(src):
            if limit and number >= limit:
                break
            handles[number % files].write(line)
    for handle in handles:
        handle.close()
    return target


def seeded_vector(chunk_id: str) -> np.ndarray:
    seed = int.from_bytes(hashlib.blake2b(chunk_id.encode(), digest_size=8).digest(), "little")
    vector = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
    return vector / np.linalg.norm(vector)


class SeededEngine:
    """An ingest engine that loads and chunks for real and hands each chunk a seeded vector, or the
    vector an index built by `ragchain ingest` of the same files holds for it (`stored`)."""

    stored = None  # a VectorIndex to read real vectors from (--vectors-from)

    def __init__(self, options) -> None:
        self.options = options

    def run(self, tasks, sink, progress=None) -> None:
        from ragchain_cli.ingest.tasks import prepared

        for task in tasks:
            for doc, chunks in prepared(task, self.options):
                found = self.stored.vectors([c.chunk_id for c in chunks]) if self.stored is not None else {}
                sink.document(task.key, doc, chunks, {c.chunk_id: found.get(c.chunk_id, seeded_vector(c.chunk_id))
                                                      for c in chunks})
            sink.finish(task)


def build(out: Path, data: str, counts: list[int], files: int, limit: int, vectors_from: Path | None = None) -> dict[str, Path]:
    from ragchain_cli.ingest.engines import ENGINES
    from ragchain_cli.ingest.pipeline import ingest_into, ingest_options
    from ragchain_cli.ingest.sharded import ingest_sharded

    folder = split_corpus(benchlib.corpus_path(data), files, limit, out).resolve()
    if "seeded" not in ENGINES.names():
        ENGINES.register("seeded", SeededEngine, "bench: real chunks, seeded vectors")
    options = ingest_options(embed_model=MODEL, engine="seeded")
    if vectors_from is not None:
        from ragchain_cli.stores.index import Index

        SeededEngine.stored = Index(vectors_from).vectors
    indexes = {"1": out / "single"}
    if not (indexes["1"] / "docstore.sqlite").exists():
        seconds, _ = benchlib.timed(ingest_into, indexes["1"], [folder], options)
        print(f"built {indexes['1']} in {seconds:.0f} s", flush=True)
    for count in counts:
        indexes[str(count)] = out / f"shards-{count}"
        if not (indexes[str(count)] / "shards.json").exists():
            seconds, _ = benchlib.timed(ingest_sharded, indexes[str(count)], [folder], options, count)
            print(f"built {indexes[str(count)]} in {seconds:.0f} s", flush=True)
    return indexes


def top_documents(hits) -> list[str]:
    return [hit.doc_id for hit in hits[:10]]


def latency(indexes: dict[str, Path], queries: list[str], modes: list[str]) -> str:
    from ragchain_cli.config import load_settings
    from ragchain_cli.retrieve.pipeline import SearchPipeline, search_options
    from ragchain_cli.stores.index import Index
    from ragchain_cli.stores.sharded import ShardedIndex

    options = search_options(load_settings({}, config_files=[]))
    opened = {"1 (one index)": Index(indexes["1"])}
    for count, path in indexes.items():
        if count != "1":
            opened.update({f"{count} {mode}": ShardedIndex(path, fanout="threads" if mode == "ray" else mode,
                                                           engine="ray" if mode == "ray" else "local") for mode in modes})
    pipelines = {name: SearchPipeline(index, options) for name, index in opened.items()}
    times: dict[str, list[float]] = {name: [] for name in pipelines}
    tops: dict[str, list[list[str]]] = {name: [] for name in pipelines}
    for pipeline in pipelines.values():
        for query in queries[:WARM]:
            pipeline.search(query)
    for query in queries:
        for name, pipeline in pipelines.items():
            started = time.perf_counter()
            hits = pipeline.search(query)
            times[name].append((time.perf_counter() - started) * 1000)
            tops[name].append(top_documents(hits))
    for index in opened.values():
        index.close()
    if "ray" in modes:
        import ray

        ray.shutdown()
    base = benchlib.median(times["1 (one index)"])
    rows = [[name, f"{benchlib.median(ms):.1f}", f"{benchlib.percentile(ms, 95):.1f}",
             f"{benchlib.median(ms) / base:.2f}",
             f"{sum(a == b for a, b in zip(tops[name], tops['1 (one index)']))}/{len(queries)}"]
            for name, ms in times.items()]
    return benchlib.table(["shards, fan-out", "p50 ms", "p95 ms", "p50 / one index", "same top-10 documents"], rows)


def queries(data: Path, number: int) -> list[str]:
    """The texts of the SciFact train queries (those qrels-train.tsv judges) in one fixed half."""
    from halves import half

    judged = {line.split("\t")[0] for line in (data / "qrels-train.tsv").read_text(encoding="utf-8").splitlines()[1:]}
    return [row["text"] for row in benchlib.read_jsonl(data / "queries.jsonl")
            if row["_id"] in judged and half(row["_id"]) == number]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default="../shared/data/scifact")
    parser.add_argument("--out", type=Path, required=True, help="where the indexes are built (kept for the next run)")
    parser.add_argument("--counts", default="2,4,8")
    parser.add_argument("--files", type=int, default=64)
    parser.add_argument("--limit", type=int, default=0, help="the first N documents only (0: all)")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--vectors-from", type=Path, help="an index `ragchain ingest` built of the --out split "
                        "folder (corpus-64files-all): its real vectors instead of seeded ones")
    parser.add_argument("--half", type=int, default=2, choices=(1, 2),
                        help="the train queries of this fixed half (bench/halves.py): 1 to choose on, 2 to report")
    parser.add_argument("--rescored", type=int, default=0, help="entries the BM25 merge scores again exactly "
                        "(stores/sharded_lexical.RESCORED; 0: its own)")
    parser.add_argument("--modes", default="serial,threads,ray", help="serial, threads (this process), ray (an actor a shard)")
    args = parser.parse_args()
    counts = [int(c) for c in args.counts.split(",") if c]
    indexes = build(args.out, args.data, counts, args.files, args.limit, args.vectors_from)
    texts = queries(Path(args.data), args.half)[: args.queries]
    if args.rescored:
        from ragchain_cli.stores import sharded_lexical

        sharded_lexical.RESCORED = args.rescored
    modes = args.modes.split(",")
    if "ray" in modes:  # one local Ray that every sharded index's actors share (each would start its own)
        import ray

        ray.init(include_dashboard=False, logging_level="WARNING")
    report = latency(indexes, texts, modes)
    text = (f"# Shards at query time\n\n{benchlib.machine()}\n\n{report}\n\n"
            f"{len(texts)} SciFact train queries of half {args.half}, default search (BM25 + dense, document fusion), "
            f"{'real vectors from ' + str(args.vectors_from) if args.vectors_from else 'seeded chunk vectors'}, "
            f"BM25 head scored again exactly: {args.rescored or 'default'}")
    print(text)
    benchlib.write_report("shards.md", text)


if __name__ == "__main__":
    main()
