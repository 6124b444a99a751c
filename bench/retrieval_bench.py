"""Retrieval benchmark on BEIR SciFact train queries: quality of each retriever/fusion setting, latency.

    python bench/retrieval_bench.py --data ../shared/data/scifact [--configs 200/40,256/48]

For every chunking config (chunk_size/overlap) an index is built once with the real `ingest()`
into bench/out/indexes/scifact-SIZE-OVERLAP/ (reused on later runs when its manifest and
build.json match; `--rebuild` forces a new one). Then, on the train queries (the queries named in
qrels-train.tsv), document-level results (search_options(documents=True): max-passage) are scored
with nDCG@10 and Recall@100 (ragchain_cli.evaluation.metrics, trec_eval definitions, scoring the
order ragchain returns), for bm25, dense, rrf and cc variants at depth 100 and 1000.

Speed-up used (and checked): the retrievers run once per config at depth 1000 and each setting's
SearchPipeline gets them through a cache that returns the first `depth` hits; everything after
retrieval (fusion, Linker hydration, max-passage collapse, top k) is the pipeline's own code.
Tantivy top-k and LanceDB's exhaustive (unindexed) search return the same prefix for any k, which
`--verify N` checks on N queries against uncached pipelines, and the run fails if they differ.

Latency: single-query `SearchPipeline.search()` calls, warm, in-process (chunk level, k=10,
default depth), median and p95 per retriever setting. Cold start: wall time of
`ragchain search "x" --index DIR --retrievers bm25` (and hybrid) subprocesses, median of 5.

Results: Markdown on stdout and in bench/out/retrieval.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import benchlib

from ragchain_cli.evaluation.metrics import evaluate_report
from ragchain_cli.evaluation.readers import read_qrels, read_queries
from ragchain_cli.ingest.pipeline import ingest, ingest_options
from ragchain_cli.offline import freeze_loaded
from ragchain_cli.retrieve.pipeline import SearchOptions, SearchPipeline, search_options
from ragchain_cli.stores.embedders import load_embedder
from ragchain_cli.stores.index import Index
from ragchain_cli.types import Run

MODEL = "all-MiniLM-L6-v2"
INDEXES = benchlib.OUT / "indexes"
MAX_DEPTH = 1000
METRICS = ["ndcg@10", "recall@100"]
REFERENCE = {  # throwaway prototype, same train queries, whole abstracts (no chunking)
    "bm25": 0.701, "dense": 0.660, "rrf k=60": 0.721, "cc zscore 0.5/0.5": 0.740,
}


# -- indexes --------------------------------------------------------------------------------

PREFIX = ["scifact"]


def index_dir(size: int, overlap: int) -> Path:
    return INDEXES / f"{PREFIX[0]}-{size}-{overlap}"


def build_index(corpus: Path, size: int, overlap: int, rebuild: bool) -> dict:
    """Ingest the corpus into its own index (once); return the build record."""
    root = index_dir(size, overlap)
    record_path = root / "build.json"
    if root.exists() and not rebuild and record_path.is_file():
        record = json.loads(record_path.read_text())
        index = Index(root)
        try:
            check = index.check()
        finally:
            index.close()
        if record.get("corpus") == str(corpus.resolve()) and check.consistent and check.docstore == record["chunks"]:
            record["reused"] = True
            return record
    shutil.rmtree(root, ignore_errors=True)
    from ingest_bench import stage_targets

    watch = benchlib.Stopwatch()
    options = ingest_options(embed_model=MODEL, chunk_size=size, chunk_overlap=overlap)
    index = Index(root, create=True)
    try:
        load_s, _ = benchlib.timed(load_embedder, MODEL)
        with watch.active(stage_targets()):
            seconds, report = benchlib.timed(ingest, index, [corpus], options)
        close_s, _ = benchlib.timed(index.close)
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    record = {
        "corpus": str(corpus.resolve()), "chunk_size": size, "chunk_overlap": overlap,
        "documents": report.documents, "chunks": report.chunks_added, "ingest_s": seconds, "close_s": close_s,
        "model_load_s": load_s, "stages": watch.seconds, "load_avg": os.getloadavg(), "reused": False,
        "built": time.strftime("%Y-%m-%d %H:%M"),
    }
    record_path.write_text(json.dumps(record, indent=1))
    return record


# -- evaluation -----------------------------------------------------------------------------

class CachedRetriever:
    """A retriever's results at MAX_DEPTH, served truncated to the asked depth."""

    def __init__(self, name: str, results: dict[str, list]) -> None:
        self.name = name
        self.results = results

    def search(self, query: str, k: int):
        if k > MAX_DEPTH:
            raise ValueError(f"cached at depth {MAX_DEPTH}, asked for {k}")
        return list(self.results[query][:k])

    def search_many(self, queries: list[str], k: int):
        return [self.search(q, k) for q in queries]


def settings() -> list[tuple[str, SearchOptions]]:
    """(label, options) for every retrieval setting, both depths; document level, k=100."""
    base = search_options(documents=True, k=100)
    rows: list[tuple[str, SearchOptions]] = []
    for depth in (100, 300, MAX_DEPTH):
        d = replace(base, depth=depth)
        rows += [
            ("bm25", replace(d, retrievers=["bm25"])),
            ("dense", replace(d, retrievers=["dense"])),
            ("rrf k=60", replace(d, fusion="rrf", rrf_k=60)),
        ]
        for norm in ("zscore", "minmax", "dbsf"):
            rows.append((f"cc {norm} 0.5/0.5", replace(d, fusion="cc", norm=norm)))
        if depth == 300:  # the in-between depth: equal weights only
            continue
        for norm in ("zscore", "minmax", "dbsf"):
            for w in (0.3, 0.4, 0.6):
                rows.append((f"cc {norm} {w}/{1 - w:.1f}", replace(d, fusion="cc", norm=norm,
                                                                    weights={"bm25": w, "dense": round(1 - w, 2)})))
    return rows


def run_of(results: list[list], qids: list[str]) -> Run:
    """Document-level hits -> {qid: {doc_id: score}}, scored in the order the pipeline returned them."""
    run = {}
    for qid, hits in zip(qids, results):
        n = len(hits)
        run[qid] = {h.doc_id: float(n - i) for i, h in enumerate(hits)}  # rank-preserving scores
    return run


def hydrate_once(index: Index, raw: dict[str, dict[str, list]]) -> None:
    """Fill each cached hit's chunk and doc_id from the docstore once, as the Linker would.

    The pipeline's Linker then skips them (it only fetches hits whose chunk is None), so the
    30-odd settings do not each re-read the same ~1.6M chunk rows from SQLite. Hits whose ID
    the docstore lacks keep chunk None and the Linker drops them as usual.
    """
    ids = sorted({h.chunk_id for lists in raw.values() for hits in lists.values() for h in hits})
    chunks = index.docstore.chunks(ids)
    for lists in raw.values():
        for hits in lists.values():
            for hit in hits:
                chunk = chunks.get(hit.chunk_id)
                if chunk is not None:
                    hit.chunk, hit.doc_id = chunk, chunk.doc_id


def ir_measures_check(qrels, run) -> dict[str, float]:
    """The same run scored by ir_measures (pytrec_eval), as an independent check of the metric code."""
    import ir_measures
    from ir_measures import R, nDCG

    return {str(k): v for k, v in ir_measures.calc_aggregate([nDCG @ 10, R @ 100], qrels, run).items()}


def same_ranking(a: list, b: list, tol: float = 1e-4) -> bool:
    """Same documents in the same order, scores equal up to float noise; a swap is allowed only
    between near-tied scores (a query embedded alone vs in a batch differs in the last digits)."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if abs(x.score - y.score) > tol:
            return False
        if x.doc_id != y.doc_id and not any(h.doc_id == x.doc_id and abs(h.score - x.score) <= tol for h in b):
            return False
    return {h.doc_id for h in a} == {h.doc_id for h in b}


def evaluate_config(root: Path, queries: dict[str, str], qrels, verify: int) -> tuple[list[dict], dict]:
    index = Index(root)
    qids = list(qrels)
    texts = [queries[q] for q in qids]
    timings = {}
    try:
        raw = {}
        for name in ("bm25", "dense"):
            pipe = SearchPipeline(index, search_options(retrievers=[name]))
            retriever = pipe.retrievers[name]
            started = time.perf_counter()
            lists = (retriever.search_many(texts, MAX_DEPTH) if hasattr(retriever, "search_many")
                     else [retriever.search(t, MAX_DEPTH) for t in texts])
            timings[f"{name} batch depth {MAX_DEPTH}"] = time.perf_counter() - started
            raw[name] = dict(zip(texts, lists))
        started = time.perf_counter()
        hydrate_once(index, raw)
        timings["hydrate cached hits once"] = time.perf_counter() - started
        cached = {name: CachedRetriever(name, lists) for name, lists in raw.items()}

        rows = []
        started = time.perf_counter()
        for label, options in settings():
            pipe = SearchPipeline(index, options)
            pipe.retrievers = {name: cached[name] for name in options.retrievers}
            results = pipe.search_many(texts)
            report = evaluate_report(qrels, run_of(results, qids), METRICS, ties="ragchain")
            rows.append({"setting": label, "depth": options.depth, **report.means,
                         "per_query": report.per_query["ndcg@10"], "run": run_of(results, qids)})
        timings["fuse+hydrate+collapse+score all settings"] = time.perf_counter() - started

        if verify:
            sample = random.Random(0).sample(range(len(texts)), verify)
            for label, options in settings():
                if label not in ("bm25", "dense", "rrf k=60", "cc zscore 0.5/0.5", "cc minmax 0.4/0.6"):
                    continue
                real = SearchPipeline(index, options)
                fake = SearchPipeline(index, options)
                fake.retrievers = {name: cached[name] for name in options.retrievers}
                for i in sample:
                    a = real.search(texts[i])
                    b = fake.search(texts[i])
                    if not same_ranking(a, b):
                        raise SystemExit(f"cached retrieval differs from the real pipeline: {label} "
                                         f"depth {options.depth} query {qids[i]}:\n"
                                         f"{[(h.doc_id, h.score) for h in a[:12]]}\n"
                                         f"{[(h.doc_id, h.score) for h in b[:12]]}")
            timings[f"verified {verify} queries x 10 settings"] = 1
    finally:
        index.close()
    return rows, timings


def significance(rows: list[dict], qids: list[str]) -> list[str]:
    """Paired randomization test (10,000 sign flips) of the best settings against the current default."""
    from ragchain_cli.evaluation.compare import randomization_test

    base = next(r for r in rows if r["setting"] == "cc zscore 0.5/0.5" and r["depth"] == 100)
    best = sorted(rows, key=lambda r: -r["ndcg@10"])[:6]
    others = [r for r in rows if (r["setting"], r["depth"]) in {("rrf k=60", 100), ("cc zscore 0.5/0.5", MAX_DEPTH),
                                                                ("bm25", 100), ("dense", 100)}]
    body = []
    for r in best + [o for o in others if o not in best]:
        if r is base:
            continue
        a = [r["per_query"][q] for q in qids]
        b = [base["per_query"][q] for q in qids]
        body.append([r["setting"], r["depth"], r["ndcg@10"], r["ndcg@10"] - base["ndcg@10"],
                     randomization_test(a, b, 10_000, 0)])
    return [f"Against the current default (cc zscore 0.5/0.5, depth 100: nDCG@10 {base['ndcg@10']:.3f}), "
            "paired randomization test on per-query nDCG@10:", "",
            benchlib.table(["setting", "depth", "nDCG@10", "diff", "p"], body)]


# -- latency --------------------------------------------------------------------------------

def latency(root: Path, texts: list[str], n: int) -> list[list]:
    """Warm single-query search() latency (ms) for bm25, dense and the default hybrid."""
    index = Index(root)
    rows = []
    try:
        for label, options in (("bm25", search_options(retrievers=["bm25"])),
                               ("dense", search_options(retrievers=["dense"])),
                               ("hybrid cc zscore (defaults)", search_options()),
                               ("hybrid rrf k=60", search_options(fusion="rrf")),
                               ("hybrid cc zscore depth 300, documents", search_options(depth=300, documents=True)),
                               ("hybrid cc zscore depth 1000, documents", search_options(depth=1000,
                                                                                       documents=True))):
            pipe = SearchPipeline(index, options)
            freeze_loaded()  # as the CLI does once a command has loaded
            for text in texts[:5]:  # warm-up
                pipe.search(text)
            pipe.timings.clear()
            samples, cpu = [], []
            for text in texts[:n]:
                started, cpu_started = time.perf_counter(), time.process_time()
                pipe.search(text)
                samples.append(1000 * (time.perf_counter() - started))
                cpu.append(1000 * (time.process_time() - cpu_started))
            stages = ", ".join(f"{k} {1000 * v / n:.1f}" for k, v in pipe.timings.items() if not k.startswith("load"))
            rows.append([label, options.depth, n, benchlib.median(samples), benchlib.percentile(samples, 95),
                         benchlib.median(cpu), benchlib.percentile(cpu, 95), stages])
    finally:
        index.close()
    return rows


def cold_start(root: Path, repeat: int) -> list[list]:
    cli = Path(sys.executable).with_name("ragchain")
    rows = []
    variants = (("bm25", ["--retrievers", "bm25"]), ("hybrid (bm25,dense cc)", ["--retrievers", "bm25,dense"]))
    for label, extra in variants:
        command = [str(cli), "search", "x", "--index", str(root), "--json", *extra]
        samples, cpu = [], []
        for _ in range(repeat):
            before = os.times()
            started = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True)
            samples.append(time.perf_counter() - started)
            after = os.times()
            cpu.append(after.children_user + after.children_system - before.children_user - before.children_system)
            if done.returncode != 0:
                raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr[-500:]}")
        rows.append([label, f"`ragchain search \"x\" {' '.join(extra)}`", repeat, benchlib.median(samples),
                     min(samples), max(samples), benchlib.median(cpu)])
    return rows


# -- report ---------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, help="BEIR folder: corpus.jsonl.gz, queries.jsonl, qrels-train.tsv")
    parser.add_argument("--configs", default="200/40,256/48", help="chunk_size/overlap list, comma-separated")
    parser.add_argument("--rebuild", action="store_true", help="ingest again even if a matching index exists")
    parser.add_argument("--build-only", action="store_true")
    parser.add_argument("--verify", type=int, default=20, help="queries checked against the uncached pipeline")
    parser.add_argument("--latency-queries", type=int, default=200)
    parser.add_argument("--cold-repeat", type=int, default=5)
    parser.add_argument("--limit", type=int, default=0, help="smoke test: first N documents only (scores meaningless)")
    parser.add_argument("--out", default="retrieval.md")
    args = parser.parse_args(argv)

    data = Path(args.data)
    corpus = benchlib.corpus_path(args.data)
    if args.limit:
        corpus = benchlib.subset_corpus(corpus, args.limit, Path(tempfile.gettempdir()) / "ragchain-bench-subsets")
        PREFIX[0] = f"scifact-first{args.limit}"
    configs = [tuple(int(x) for x in c.split("/")) for c in args.configs.split(",") if c.strip()]
    builds = {}
    for size, overlap in configs:
        print(f"index {size}/{overlap} ...", file=sys.stderr, flush=True)
        builds[(size, overlap)] = record = build_index(corpus, size, overlap, args.rebuild)
        print(f"  {'reused' if record['reused'] else 'built'}: {record['chunks']} chunks, "
              f"ingest {record['ingest_s']:.0f}s", file=sys.stderr, flush=True)
    if args.build_only:
        return 0

    queries = read_queries(data / "queries.jsonl")
    qrels = read_qrels(data / "qrels-train.tsv")
    missing = [q for q in qrels if q not in queries]
    if missing:
        raise SystemExit(f"{len(missing)} train queries have no text, e.g. {missing[:3]}")

    out = ["# Retrieval benchmark: BEIR SciFact, train queries", "",
           f"Machine: {benchlib.machine()}. {len(qrels)} train queries (qrels-train.tsv), "
           f"{sum(len(v) for v in qrels.values())} judgements. Document level (documents=True, max-passage), "
           f"k=100; nDCG@10 and Recall@100 with trec_eval definitions over the order ragchain returns. "
           f"Weights a/b = bm25/dense. Command: `{' '.join(['python', *sys.argv])}`", "",
           "## Indexes (one real ingest per chunk config)", "",
           benchlib.table(["chunk size/overlap", "documents", "chunks", "ingest s", "chunks/s", "embed share",
                           "built"],
                          [[f"{s}/{o}", r["documents"], r["chunks"], r["ingest_s"], r["chunks"] / r["ingest_s"],
                            f"{100 * r['stages'].get('  embed', 0) / r['ingest_s']:.1f}%",
                            r["built"] + (" (reused)" if r["reused"] else "")]
                           for (s, o), r in builds.items()]), ""]
    all_rows = {}
    for (size, overlap) in configs:
        print(f"evaluating {size}/{overlap} ...", file=sys.stderr, flush=True)
        rows, timings = evaluate_config(index_dir(size, overlap), queries, qrels, args.verify)
        all_rows[(size, overlap)] = rows
        out += [f"## Quality, chunks {size}/{overlap}", "",
                benchlib.table(["setting", "depth", "nDCG@10", "Recall@100", "reference nDCG@10 (whole abstracts)"],
                               [[r["setting"], r["depth"], r["ndcg@10"], r["recall@100"],
                                 REFERENCE.get(r["setting"], "") if r["depth"] == MAX_DEPTH else ""]
                                for r in rows]), "",
                "Evaluation timings (s): " + ", ".join(f"{k} {v:.1f}" for k, v in timings.items()), ""]
        check = ir_measures_check(qrels, rows[0]["run"])
        out += [f"Cross-check, bm25 depth 100 scored by ir_measures: {check} "
                f"(ours: nDCG@10 {rows[0]['ndcg@10']:.4f}, R@100 {rows[0]['recall@100']:.4f}).", ""]
        out += significance(rows, list(qrels)) + [""]
        print(f"  done: {', '.join(f'{k} {v:.1f}' for k, v in timings.items())}", file=sys.stderr, flush=True)

    if len(configs) > 1:
        labels = [(r["setting"], r["depth"]) for r in next(iter(all_rows.values()))]
        header = ["setting", "depth"] + [f"nDCG@10 {s}/{o}" for s, o in configs]
        body = []
        for i, (label, depth) in enumerate(labels):
            body.append([label, depth] + [all_rows[c][i]["ndcg@10"] for c in configs])
        out += ["## nDCG@10 by chunk config", "", benchlib.table(header, body), ""]
    # cross-config significance: each config's best vs the first config's current default
    if len(configs) > 1:
        from ragchain_cli.evaluation.compare import randomization_test

        qids = list(qrels)
        base = next(r for r in all_rows[configs[0]] if r["setting"] == "cc zscore 0.5/0.5" and r["depth"] == 100)
        body = []
        for (s, o), rows in all_rows.items():
            for r in sorted(rows, key=lambda r: -r["ndcg@10"])[:3]:
                body.append([f"{s}/{o}", r["setting"], r["depth"], r["ndcg@10"], r["ndcg@10"] - base["ndcg@10"],
                             randomization_test([r["per_query"][q] for q in qids],
                                                [base["per_query"][q] for q in qids], 10_000, 0)])
        out += [f"## Best settings per chunk config against {configs[0][0]}/{configs[0][1]} cc zscore 0.5/0.5 "
                "depth 100 (paired randomization test, nDCG@10)", "",
                benchlib.table(["chunks", "setting", "depth", "nDCG@10", "diff", "p"], body), ""]
    (size, overlap) = configs[0]
    default_root = index_dir(size, overlap)
    queries_list = [queries[q] for q in qrels]
    print("latency ...", file=sys.stderr, flush=True)
    if args.latency_queries:
        out += [f"## Warm per-query latency, single search() calls (index {size}/{overlap}, k=10)", "",
                benchlib.table(["setting", "depth", "queries", "median ms", "p95 ms", "CPU median ms",
                                "CPU p95 ms", "mean wall ms per stage"],
                               latency(default_root, queries_list, args.latency_queries)), ""]
    if args.cold_repeat:
        out += [f"## Cold start: `ragchain search` subprocess wall time (index {size}/{overlap})", "",
                benchlib.table(["retrievers", "command", "runs", "median s", "min s", "max s",
                                "median CPU s (user+sys)"],
                               cold_start(default_root, args.cold_repeat)), ""]
    per_query = {f"{s}/{o} {r['setting']} d{r['depth']}": r["per_query"] for (s, o), rows in all_rows.items()
                 for r in rows}
    benchlib.OUT.mkdir(parents=True, exist_ok=True)
    (benchlib.OUT / "retrieval-per-query-ndcg10.json").write_text(json.dumps(per_query))
    text = "\n".join(out)
    path = benchlib.write_report(args.out, text)
    print(text)
    print(f"\nwritten to {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
