"""`ingest --engine ray` against `--engine local` on the same SciFact abstracts, side by side in one run.

    python bench/ray_bench.py --data ../shared/data/scifact --limit 2000 --files 8 \
        --scratch /work/scratch/ray [--rounds 1] [--cluster-limit 500]

The first `--limit` abstracts are split into `--files` JSONL files under --scratch (outside the repo).
Each run is a fresh `ragchain ingest` process into a fresh index, wrapped only to time where the
driver spends its time: Ray start-up and shutdown, the writer (BatchWriter.flush: SQLite, journal,
Tantivy, LanceDB; for the local engine it also embeds, timed apart), so the rest of a ray run is
the driver waiting for the cluster. Runs alternate local, ray, ray, local, ... (one round = one
of each, in alternating order), and the table gives medians. With --cluster-limit, a one-node
(2 CPUs) and a two-node (head + worker, 1 CPU each; ray.cluster_utils.Cluster) cluster ingest
the first N abstracts with 2 actors: that shows the distribution, not a speed-up (both nodes
share this machine's 2 cores).
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import benchlib

HARNESS = r"""
import json, sys, time
from ragchain_cli.ingest import writer
from ragchain_cli.stores import embedders
times = {"ray_start": 0.0, "ray_stop": 0.0, "flush": 0.0, "driver_embed": 0.0}
def timing(owner, attr, key):
    real = getattr(owner, attr)
    def wrapped(*args, **kwargs):
        started = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            times[key] += time.perf_counter() - started
    setattr(owner, attr, wrapped)
timing(writer.BatchWriter, "flush", "flush")
timing(embedders.SentenceTransformerEmbedder, "embed", "driver_embed")
out, nodes, args = sys.argv[1], sys.argv[2], sys.argv[3:]
try:
    import ray
    timing(ray, "init", "ray_start")
    timing(ray, "shutdown", "ray_stop")
except ImportError:
    pass
cluster = None
if nodes in ("1", "2"):  # a simulated cluster on this machine, made before the ingest joins it
    from ray.cluster_utils import Cluster
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 2 if nodes == "1" else 1,
                                                           "include_dashboard": False})
    if nodes == "2":
        cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    args += ["--ray-address", cluster.address]
from ragchain_cli.offline import cli_process
cli_process()  # the switches the `ragchain` entry point sets
from ragchain_cli.cli.app import run
started = time.perf_counter()
code = run(args)
times["wall"] = time.perf_counter() - started
if cluster is not None:
    cluster.shutdown()
json.dump({"code": code, **times}, open(out, "w"))
sys.exit(code)
"""


def split_corpus(data: str, limit: int, files: int, folder: Path) -> Path:
    """The first `limit` abstracts, round-robin into `files` JSONL files (so loading is parallel too)."""
    target = folder / f"scifact-{limit}x{files}"
    if target.is_dir():
        return target
    target.mkdir(parents=True)
    handles = [(target / f"part{i:02d}.jsonl").open("w", encoding="utf-8") for i in range(files)]
    with gzip.open(benchlib.corpus_path(data), "rt", encoding="utf-8") as source:
        for number, line in enumerate(source):
            if number >= limit:
                break
            handles[number % files].write(line)
    for handle in handles:
        handle.close()
    return target


def ingest_once(corpus: Path, engine: str, workers: int, scratch: Path, nodes: str = "") -> dict:
    index = Path(tempfile.mkdtemp(prefix=f"{engine}-", dir=scratch))
    timing = index.with_suffix(".timing.json")
    args = ["ingest", str(corpus), "--index", str(index / "idx"), "--engine", engine, "--json"]
    if engine == "ray":
        args += ["--workers", str(workers)]
    done = subprocess.run([sys.executable, "-c", HARNESS, str(timing), nodes, *args], capture_output=True,
                          text=True, timeout=7200)
    if done.returncode != 0:
        raise SystemExit(f"{engine} ingest failed ({done.returncode}): {done.stderr[-2000:]}")
    report = json.loads(done.stdout)
    shutil.rmtree(index, ignore_errors=True)
    return {"engine": engine, "workers": workers, "nodes": nodes, "report": report,
            **json.loads(timing.read_text())}


def writer_ceiling(chunks: int, scratch: Path, per_file: int = 1000) -> dict:
    """The single writer alone, fed documents with their vectors (what the Ray driver does): ~150-word
    one-chunk documents, random unit vectors, into a fresh index; chunks/s of writes and of optimize."""
    import random
    import time

    import numpy as np

    from ragchain_cli.ingest.chunking import chunk_id
    from ragchain_cli.ingest.writer import BatchWriter
    from ragchain_cli.stores.docstore import FileRecord
    from ragchain_cli.stores.index import Index
    from ragchain_cli.types import Block, Chunk, Document

    root = Path(tempfile.mkdtemp(prefix="writer-", dir=scratch))
    index = Index(root, create=True)
    rng, words = np.random.default_rng(0), [f"w{i}" for i in range(20000)]
    pick = random.Random(0)
    writer = BatchWriter(index, lambda: None, lambda dim: index.bind("all-MiniLM-L6-v2", dim, 200, 40))
    started = time.perf_counter()
    for number in range(chunks):
        path = f"/bench/file{number // per_file}.jsonl"
        text = " ".join(pick.choice(words) for _ in range(150))
        doc = Document(f"d{number}", path, (Block(text),))
        chunk = Chunk(chunk_id(doc.doc_id, 0, text), doc.doc_id, text, source=path)
        vector = rng.standard_normal(384).astype(np.float32)
        writer.add(path, [doc], [chunk], {chunk.chunk_id: vector / np.linalg.norm(vector)})
        if (number + 1) % per_file == 0 or number + 1 == chunks:
            writer.finish_file(FileRecord(path, "h", 1, 1))
    writer.flush()
    written = time.perf_counter() - started
    optimize_started = time.perf_counter()
    writer.optimize()
    optimized = time.perf_counter() - optimize_started
    index.close()
    shutil.rmtree(root, ignore_errors=True)
    return {"chunks": chunks, "write_s": written, "optimize_s": optimized}


def row(run: dict) -> list:
    chunks = run["report"]["chunks_added"]
    writes = run["flush"] - run["driver_embed"]
    rest = run["wall"] - run["flush"] - run["ray_start"] - run["ray_stop"]
    label = run["engine"] if run["engine"] == "local" else f"ray, {run['workers']} actors"
    return [label, round(run["wall"], 1), chunks, round(chunks / run["wall"], 1),
            round(run["ray_start"] + run["ray_stop"], 1), round(run["driver_embed"], 1), round(writes, 1),
            f"{writes / run['wall']:.1%}", round(rest, 1)]


HEADERS = ["run", "wall s", "chunks", "chunks/s", "ray start+stop s", "embedding in the driver s",
           "writes s", "writes' share", "rest s (local: hash, load, chunk; ray: also waiting on the cluster)"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, help="BEIR folder holding corpus.jsonl.gz")
    parser.add_argument("--limit", type=int, default=2000)
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--scratch", default=tempfile.gettempdir())
    parser.add_argument("--cluster-limit", type=int, default=0, help="abstracts for the 1- vs 2-node table (0: skip)")
    parser.add_argument("--log", default="", help="append every run as a JSON line here")
    parser.add_argument("--writer-chunks", type=int, default=0, help="also time the single writer alone on N chunks")
    args = parser.parse_args(argv)

    scratch = Path(args.scratch)
    corpus = split_corpus(args.data, args.limit, args.files, scratch)
    runs: list[dict] = []
    for number in range(args.rounds):
        order = [("local", 1), ("ray", 2)] if number % 2 == 0 else [("ray", 2), ("local", 1)]
        for engine, workers in order:
            runs.append(ingest_once(corpus, engine, workers, scratch))
            log(args.log, runs[-1])
    cluster_runs = []
    if args.cluster_limit:
        small = split_corpus(args.data, args.cluster_limit, args.files, scratch)
        for nodes in ("1", "2"):
            cluster_runs.append(ingest_once(small, "ray", 2, scratch, nodes))
            log(args.log, cluster_runs[-1])
    print(report(runs, cluster_runs, args))
    if args.writer_chunks:
        alone = writer_ceiling(args.writer_chunks, scratch)
        log(args.log, alone)
        print(f"\nsingle writer alone: {alone['chunks']} chunks written in {alone['write_s']:.1f} s "
              f"({alone['chunks'] / alone['write_s']:.0f} chunks/s), optimize {alone['optimize_s']:.1f} s")
    return 0


def log(path: str, run: dict) -> None:
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(run) + "\n")


def report(runs: list[dict], cluster_runs: list[dict], args) -> str:
    lines = [f"{args.limit} SciFact abstracts in {args.files} JSONL files, {args.rounds} round(s); "
             f"{benchlib.machine()}", "", benchlib.table(HEADERS, [row(r) for r in runs])]
    walls = {e: benchlib.median([r["wall"] for r in runs if r["engine"] == e]) for e in ("local", "ray")}
    if all(walls.values()):
        lines += ["", f"median wall: local {walls['local']:.1f} s, ray {walls['ray']:.1f} s, "
                      f"ray/local = {walls['ray'] / walls['local']:.3f}"]
    if cluster_runs:
        lines += ["", f"{args.cluster_limit} abstracts, 2 actors, simulated cluster on this machine:", ""]
        lines.append(benchlib.table(["nodes", "wall s", "chunks", "per node: chunks (files loaded)"], [
            [r["nodes"], round(r["wall"], 1), r["report"]["chunks_added"],
             "; ".join(f"{n['node_id'][:8]}: {n['chunks']} ({n['files']})" for n in r["report"]["nodes"])]
            for r in cluster_runs]))
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
