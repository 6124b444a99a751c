"""Latency at scale: synthetic collections of 10k, 100k and 1M chunks in a real ragchain index.

Text is generated (Zipf-distributed synthetic words, 40 a chunk); vectors are cheap clustered
Gaussians of the embedding's dimension (384), L2-normalised. Everything is written in batches
(docstore rows, Tantivy, LanceDB), never all at once. Above the ANN threshold the vector table
gets its IVF-SQ index from the product's own optimize(). Reported per size: build seconds,
ANN recall@10 against exact search (numpy over a memory-mapped copy of the vectors, 100
queries near the data), and warm in-process latency p50/p95 of the real SearchPipeline for
bm25, dense (including query encoding) and hybrid (bm25 + dense, cc fusion, hydration), at the
product's default depth unless --depth says otherwise. --reuse measures a collection built before.

    python bench/scale_bench.py --sizes 10000,100000,1000000
"""

from __future__ import annotations

import argparse
import gc
import json
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import ragchain_cli  # noqa: E402,F401  (first: it sets the thread settings numpy reads on import)
import numpy as np  # noqa: E402

from benchlib import OUT, machine, median, percentile, table, write_report  # noqa: E402

from ragchain_cli.config import Settings  # noqa: E402
from ragchain_cli.stores.docstore import DocStore  # noqa: E402
from ragchain_cli.stores.index import Index  # noqa: E402
from ragchain_cli.types import Chunk, Document, Block  # noqa: E402

DIM, WORDS, BATCH, VOCAB = 384, 40, 50_000, 30_000


def vocabulary(rng) -> tuple[np.ndarray, np.ndarray]:
    words = np.array([f"w{np.base_repr(i, 36).lower()}" for i in range(VOCAB)])
    weights = 1.0 / np.arange(1, VOCAB + 1) ** 1.07
    return words, weights / weights.sum()


def centers(n: int, rng) -> np.ndarray:
    return rng.normal(size=(min(5000, max(16, n // 200)), DIM)).astype(np.float32)


def batch_vectors(count: int, centre: np.ndarray, rng) -> np.ndarray:
    v = centre[rng.integers(0, len(centre), count)] + 0.35 * rng.normal(size=(count, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def build(root: Path, n: int, memmap: np.ndarray, seed: int = 0) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    words, p = vocabulary(rng)
    centre = centers(n, rng)
    index = Index(root, create=True)
    index.bind("all-MiniLM-L6-v2", DIM, 200, 40)
    spent = {"docstore": 0.0, "lexical": 0.0, "vectors": 0.0}
    for start in range(0, n, BATCH):
        count = min(BATCH, n - start)
        ids = [f"s{i:08d}" for i in range(start, start + count)]
        texts = [" ".join(row) for row in words[rng.choice(VOCAB, size=(count, WORDS), p=p)]]
        vectors = batch_vectors(count, centre, rng)
        memmap[start : start + count] = vectors
        spent["docstore"] += _timed(_put_rows, index, ids, texts)
        spent["lexical"] += _timed(index.lexical.apply, [], list(zip(ids, texts)))
        spent["vectors"] += _timed(index.vectors.apply, [], ids, vectors)
    spent["optimize+ann"] = _timed(index.vectors.optimize)
    index.close()
    return spent


def _timed(fn, *args) -> float:
    started = time.perf_counter()
    fn(*args)
    return time.perf_counter() - started


def _put_rows(index: Index, ids: list[str], texts: list[str]) -> None:
    docs = [Document(f"doc-{cid}", "synthetic", (Block(""),), date="2024-01-01") for cid in ids[::10]]
    chunks = [Chunk(cid, f"doc-{ids[i - i % 10]}", text, ordinal=i % 10) for i, (cid, text) in enumerate(zip(ids, texts))]
    with index.docstore.transaction() as tx:
        DocStore.put_documents(tx, "synthetic", docs)
        DocStore.put_chunks(tx, chunks)


def ann_recall(root: Path, memmap: np.ndarray, queries: np.ndarray) -> tuple[float, bool]:
    index = Index(root)
    vectors = index.vectors
    recalls = []
    for q in queries:
        scores = np.concatenate([memmap[s : s + 200_000] @ q for s in range(0, len(memmap), 200_000)])
        exact = {f"s{i:08d}" for i in np.argpartition(-scores, 10)[:10]}
        recalls.append(len(exact & {cid for cid, _ in vectors.search(q, 10)}) / 10)
    return float(np.mean(recalls)), vectors.has_ann()


def latencies(root: Path, texts: list[str], depth: int) -> dict[str, tuple[float, float]]:
    from ragchain_cli.cli.common import settle
    from ragchain_cli.retrieve.pipeline import SearchPipeline, search_options

    out = {}
    for name, retrievers in (("bm25", ["bm25"]), ("dense", ["dense"]), ("hybrid", ["bm25", "dense"])):
        pipeline = SearchPipeline(Index(root), search_options(retrievers=retrievers, k=10, depth=depth))
        for text in texts:  # warm: the first pass pulls the index's pages into the OS cache
            pipeline.search(text)
        settle(pipeline)  # as the CLI does once everything is loaded
        seconds = []
        for text in texts:
            started = time.perf_counter()
            pipeline.search(text)
            seconds.append((time.perf_counter() - started) * 1000)
        out[name] = (median(seconds), percentile(seconds, 95))
        gc.unfreeze()
    return out


def query_set(memmap: np.ndarray, n_queries: int, seed: int = 7) -> tuple[np.ndarray, list[str]]:
    rng = np.random.default_rng(seed)
    words, p = vocabulary(rng)
    picks = memmap[rng.integers(0, len(memmap), n_queries)] + 0.1 * rng.normal(size=(n_queries, DIM))
    vectors = (picks / np.linalg.norm(picks, axis=1, keepdims=True)).astype(np.float32)
    texts = [" ".join(words[rng.choice(VOCAB, size=5, p=p)]) for _ in range(n_queries)]
    return vectors, texts


def run_size(n: int, scratch: Path, n_queries: int, depth: int, reuse: bool = False) -> list:
    root, saved = scratch / f"scale-{n}", scratch / f"build-{n}.json"
    if reuse and saved.is_file() and (root / "docstore.sqlite").is_file():
        spent = json.loads(saved.read_text())
        memmap = np.load(scratch / f"vectors-{n}.npy", mmap_mode="r")
    else:
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        memmap = np.lib.format.open_memmap(scratch / f"vectors-{n}.npy", mode="w+", dtype=np.float32,
                                           shape=(n, DIM))
        spent = build(root, n, memmap)
        saved.write_text(json.dumps(spent))
    vectors, texts = query_set(memmap, n_queries)
    recall, ann = ann_recall(root, memmap, vectors)
    lat = latencies(root, texts, depth)
    return [f"{n:,}", round(sum(spent.values()), 1), round(spent["optimize+ann"], 1), "IVF-SQ" if ann else "flat",
            recall, *lat["bm25"], *lat["dense"], *lat["hybrid"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--scratch", default=str(OUT / "scale"))
    parser.add_argument("--depth", type=int, default=Settings().depth,
                        help="candidates per retriever (default: the product's default)")
    parser.add_argument("--reuse", action="store_true", help="reuse a collection built by an earlier run")
    args = parser.parse_args()
    scratch = Path(args.scratch)
    rows = [run_size(int(n), scratch, args.queries, args.depth, args.reuse) for n in args.sizes.split(",")]
    headers = ["chunks", "build s", "of which ANN s", "vector index", "recall@10 vs exact", "bm25 p50 ms",
               "bm25 p95 ms", "dense p50 ms", "dense p95 ms", "hybrid p50 ms", "hybrid p95 ms"]
    reuse = " --reuse" if args.reuse else ""
    report = (f"## Scale, {machine()}\n\n`python bench/scale_bench.py --sizes {args.sizes} --queries "
              f"{args.queries} --depth {args.depth}{reuse}` (warm, in-process, {args.queries} queries, "
              f"{args.depth} candidates per retriever; dense includes query encoding)\n\n"
              + table(headers, rows) + "\n")
    print(report)
    write_report(f"scale-depth{args.depth}.md", report)


if __name__ == "__main__":
    main()
