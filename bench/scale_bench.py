"""Latency and ANN recall at scale: synthetic collections of 10k to 1M chunks in a real ragchain index.

Text is generated (Zipf-distributed synthetic words, 40 a chunk); vectors are cheap clustered
Gaussians of the embedding's dimension (384), L2-normalised. Everything is written in batches
(docstore rows, Tantivy, LanceDB), never all at once. Above the ANN threshold the vector table
gets its IVF-SQ index from the product's own optimize().

Recall: IVF training varies between builds, so each size is built once per --seeds value, and
recall@10 against exact search (numpy over a memory-mapped copy of the vectors) is measured on
fresh draws from the data's own distribution (a cluster centre plus noise, as the stored vectors
were made), not stored vectors plus a little noise (near-duplicates, which an IVF finds too
easily). Every (probes, refine rows) pair of --probes x --refine is measured on every build; the
report gives each pair's worst and mean build and picks the cheapest pair whose worst build
reaches --target.

Latency: warm in-process p50/p95 of the real SearchPipeline for bm25, dense (including query
encoding) and hybrid (bm25 + dense, cc fusion, hydration) on the first build, at the product's
default depth unless --depth says otherwise. The warm-up pass uses its own queries; the timed
queries are a fresh set, so no timed query was seen before. --reuse measures collections built before.

    python bench/scale_bench.py --sizes 100000 --seeds 0,1,2 --queries 100
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

from benchlib import OUT, machine, median, percentile, table, write_report  # noqa: E402  (first: thread settings)

import numpy as np  # noqa: E402

from ragchain_cli.config import Settings  # noqa: E402
from ragchain_cli.stores.docstore import DocStore  # noqa: E402
from ragchain_cli.stores.index import Index  # noqa: E402
from ragchain_cli.types import Chunk, Document, Block  # noqa: E402

DIM, WORDS, BATCH, VOCAB = 384, 40, 50_000, 30_000
SPREAD = 0.35  # noise around a cluster centre, per dimension (--spread; larger: clusters overlap, harder for IVF)


def vocabulary(rng) -> tuple[np.ndarray, np.ndarray]:
    words = np.array([f"w{np.base_repr(i, 36).lower()}" for i in range(VOCAB)])
    weights = 1.0 / np.arange(1, VOCAB + 1) ** 1.07
    return words, weights / weights.sum()


def centers(n: int, rng, latent: int = 0) -> np.ndarray:
    """Cluster centres; or, with `latent` dimensions, the basis of a continuous low-rank distribution."""
    rows = latent or min(5000, max(16, n // 200))
    return rng.normal(size=(rows, DIM)).astype(np.float32)


def batch_vectors(count: int, centre: np.ndarray, rng, spread: float = SPREAD, latent: int = 0) -> np.ndarray:
    """Clustered Gaussians (a centre plus noise), or, with `latent`, a low-rank Gaussian plus noise: no
    clusters, so IVF partitions cut through neighbourhoods as they do with real text embeddings."""
    base = (rng.normal(size=(count, latent)).astype(np.float32) @ centre / np.sqrt(latent) if latent
            else centre[rng.integers(0, len(centre), count)])
    v = base + spread * rng.normal(size=(count, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def build(root: Path, n: int, memmap: np.ndarray, seed: int = 0, spread: float = SPREAD,
          latent: int = 0) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    words, p = vocabulary(rng)
    centre = centers(n, rng, latent)  # the first draws of rng(seed): recall_queries() makes the same centres
    index = Index(root, create=True)
    index.bind("all-MiniLM-L6-v2", DIM, 200, 40)
    spent = {"docstore": 0.0, "lexical": 0.0, "vectors": 0.0}
    for start in range(0, n, BATCH):
        count = min(BATCH, n - start)
        ids = [f"s{i:08d}" for i in range(start, start + count)]
        texts = [" ".join(row) for row in words[rng.choice(VOCAB, size=(count, WORDS), p=p)]]
        vectors = batch_vectors(count, centre, rng, spread, latent)
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


def recall_queries(n: int, seed: int, count: int, spread: float, latent: int) -> np.ndarray:
    """Fresh vectors from the build's own distribution (its centres, new noise): not stored vectors."""
    centre = centers(n, np.random.default_rng(seed), latent)
    return batch_vectors(count, centre, np.random.default_rng(10_000 + seed), spread, latent).astype(np.float32)


def exact_top(memmap: np.ndarray, queries: np.ndarray, k: int = 10) -> list[set[str]]:
    tops = []
    for q in queries:
        scores = np.concatenate([memmap[s : s + 200_000] @ q for s in range(0, len(memmap), 200_000)])
        tops.append({f"s{i:08d}" for i in np.argpartition(-scores, k)[:k]})
    return tops


def recall_grid(root: Path, queries: np.ndarray, exact: list[set[str]], probes: list[int],
                refine: list[int]) -> tuple[dict[tuple[int, int], float], bool, int]:
    """recall@10 for each (probes, refine rows); whether there is an ANN index; the product's probes."""
    index = Index(root)
    vectors = index.vectors
    ann = vectors.has_ann()
    grid = {}
    try:
        for n_probes in probes if ann else [0]:
            for rows in refine if ann else [0]:
                vectors.nprobes, vectors.refine_rows = (n_probes, rows) if ann else (None, 200)
                found = [{cid for cid, _ in vectors.search(q, 10)} for q in queries]
                grid[(n_probes, rows)] = float(np.mean([len(e & f) / 10 for e, f in zip(exact, found)]))
        return grid, ann, vectors._probes
    finally:
        index.close()


def latencies(root: Path, warm: list[str], timed: list[str], depth: int) -> dict[str, tuple[float, float]]:
    from ragchain_cli.offline import freeze_loaded
    from ragchain_cli.retrieve.pipeline import SearchPipeline, search_options

    out = {}
    for name, retrievers in (("bm25", ["bm25"]), ("dense", ["dense"]), ("hybrid", ["bm25", "dense"])):
        pipeline = SearchPipeline(Index(root), search_options(retrievers=retrievers, k=10, depth=depth))
        for text in warm:  # pulls the index's pages into the OS cache; these queries are not timed
            pipeline.search(text)
        freeze_loaded()  # as the CLI does once everything is loaded
        seconds = []
        for text in timed:
            started = time.perf_counter()
            pipeline.search(text)
            seconds.append((time.perf_counter() - started) * 1000)
        out[name] = (median(seconds), percentile(seconds, 95))
        gc.unfreeze()
    return out


def query_texts(n_queries: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    words, p = vocabulary(rng)
    return [" ".join(words[rng.choice(VOCAB, size=5, p=p)]) for _ in range(n_queries)]


def built(n: int, seed: int, scratch: Path, args) -> tuple[Path, np.ndarray, dict]:
    name = f"{n}-seed{seed}-spread{args.spread}-latent{args.latent}"
    root, saved = scratch / f"scale-{name}", scratch / f"build-{name}.json"
    if args.reuse and saved.is_file() and (root / "docstore.sqlite").is_file():
        return root, np.load(scratch / f"vectors-{name}.npy", mmap_mode="r"), json.loads(saved.read_text())
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    memmap = np.lib.format.open_memmap(scratch / f"vectors-{name}.npy", mode="w+", dtype=np.float32, shape=(n, DIM))
    spent = build(root, n, memmap, seed, args.spread, args.latent)
    saved.write_text(json.dumps(spent))
    return root, memmap, spent


def run_size(n: int, args, scratch: Path) -> tuple[list, dict]:
    """The size's latency row (first build) and {seed: recall grid}."""
    grids, row = {}, []
    for seed in args.seeds:
        root, memmap, spent = built(n, seed, scratch, args)
        queries = recall_queries(n, seed, args.queries, args.spread, args.latent)
        grids[seed], ann, product_probes = recall_grid(root, queries, exact_top(memmap, queries),
                                                       args.probes, args.refine)
        print(f"{n:,} seed {seed}: built in {sum(spent.values()):.1f}s, recall {grids[seed]}", file=sys.stderr)
        if not row and not args.no_latency:
            lat = latencies(root, query_texts(args.queries, 7), query_texts(args.queries, 8), args.depth)
            row = [f"{n:,}", round(sum(spent.values()), 1), round(spent["optimize+ann"], 1),
                   f"IVF-SQ, {product_probes} probes" if ann else "flat", *lat["bm25"], *lat["dense"], *lat["hybrid"]]
    return row, grids


def recall_table(n: int, grids: dict, target: float) -> tuple[str, tuple | None]:
    pairs = sorted(next(iter(grids.values())))
    rows, chosen = [], None
    for pair in pairs:
        values = [grids[seed][pair] for seed in grids]
        rows.append([f"{n:,}", pair[0], pair[1], *values, min(values), float(np.mean(values))])
        if chosen is None and min(values) >= target:
            chosen = pair  # pairs are sorted by probes, then refine rows: the first that holds is the cheapest
    headers = ["chunks", "probes", "refine rows", *[f"seed {s}" for s in grids], "worst", "mean"]
    return table(headers, rows), chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--seeds", default="0,1,2", help="one build per seed (at least 3 for recall)")
    parser.add_argument("--probes", default="16,24,32,48,64", help="IVF probes to measure recall at")
    parser.add_argument("--refine", default="100,200,400", help="refine rows to measure recall at")
    parser.add_argument("--target", type=float, default=0.95, help="recall@10 the worst build must reach")
    parser.add_argument("--scratch", default=str(OUT / "scale"))
    parser.add_argument("--depth", type=int, default=Settings().depth,
                        help="candidates per retriever (default: the product's default)")
    parser.add_argument("--reuse", action="store_true", help="reuse collections built by an earlier run")
    parser.add_argument("--spread", type=float, default=SPREAD, help="noise around cluster centres (harder: larger)")
    parser.add_argument("--latent", type=int, default=0, help="low-rank vectors of this many latent dimensions "
                        "instead of clusters (0: clusters)")
    parser.add_argument("--no-latency", action="store_true", help="recall only")
    args = parser.parse_args()
    args.seeds = [int(s) for s in args.seeds.split(",")]
    args.probes, args.refine = ([int(x) for x in v.split(",")] for v in (args.probes, args.refine))
    scratch = Path(args.scratch)
    latency_rows, recall_parts = [], []
    for n in (int(x) for x in args.sizes.split(",")):
        row, grids = run_size(n, args, scratch)
        if row:
            latency_rows.append(row)
        text, chosen = recall_table(n, grids, args.target)
        verdict = f"cheapest with worst build >= {args.target}: probes {chosen[0]}, refine rows {chosen[1]}" \
            if chosen else f"no measured pair reaches {args.target} on every build"
        recall_parts.append(f"{text}\n\n{n:,} chunks: {verdict}.")
    headers = ["chunks", "build s", "of which ANN s", "vector index", "bm25 p50 ms", "bm25 p95 ms",
               "dense p50 ms", "dense p95 ms", "hybrid p50 ms", "hybrid p95 ms"]
    command = " ".join(["python bench/scale_bench.py", *sys.argv[1:]])
    report = (f"## Scale, {machine()}\n\n`{command}`\n\nrecall@10 against exact search, {args.queries} fresh "
              f"in-distribution query vectors per build, one build per seed:\n\n" + "\n\n".join(recall_parts)
              + f"\n\nLatency on the seed-{args.seeds[0]} build with the product's settings (warm, in-process, "
              f"{args.queries} timed queries not used for warm-up, {args.depth} candidates per retriever; dense "
              f"includes query encoding):\n\n" + table(headers, latency_rows) + "\n")
    print(report)
    write_report(f"scale-depth{args.depth}.md", report)


if __name__ == "__main__":
    main()
