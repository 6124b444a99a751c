"""Peers on the same SciFact corpus, train queries and machine, in one run.

BM25: ragchain's Tantivy index vs rank_bm25 (what the original RAGchain used) and bm25s, all
over whole documents (title + text) so the unit is the same: index build seconds, warm
single-query latency (median, p95) and nDCG@10 / Recall@100 on the train queries.
Hybrid: ragchain's search pipeline vs LanceDB's built-in hybrid search (its own FTS index +
vector search + RRF) over the same chunks and the same embeddings read from a ragchain index.

    python bench/peers_bench.py --data ../shared/data/scifact --index bench/out/indexes/scifact-200-40
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchlib import corpus_path, machine, median, percentile, read_jsonl, table, write_report  # noqa: E402

from ragchain_cli.evaluation import evaluate, read_qrels, read_queries  # noqa: E402

METRICS = ["ndcg@10", "recall@100"]
TOKEN = re.compile(r"\w+")


def load_corpus(data: str) -> list[dict]:
    return read_jsonl(corpus_path(data))


def judged_queries(data: str) -> tuple[dict, dict]:
    qrels = read_qrels(Path(data) / "qrels-train.tsv")
    queries = {q: t for q, t in read_queries(Path(data) / "queries.jsonl").items() if q in qrels}
    return qrels, queries


def run_timed(search, queries: dict[str, str]) -> tuple[dict, list[float]]:
    """Warm single-query calls: a run {qid: {docid: score}} and per-query seconds."""
    search(next(iter(queries.values())))
    run, seconds = {}, []
    for qid, text in queries.items():
        started = time.perf_counter()
        run[qid] = search(text)
        seconds.append(time.perf_counter() - started)
    return run, seconds


def ours_bm25(corpus: list[dict], folder: Path):
    from ragchain_cli.stores.lexical import LexicalIndex

    started = time.perf_counter()
    index = LexicalIndex(folder)
    index.apply([], ((d["_id"], f"{d.get('title', '')}\n{d['text']}") for d in corpus))
    build = time.perf_counter() - started
    return build, lambda q: dict(index.search(q, 100))


def rank_bm25_peer(corpus: list[dict]):
    from rank_bm25 import BM25Okapi

    ids = [d["_id"] for d in corpus]
    started = time.perf_counter()
    bm25 = BM25Okapi([TOKEN.findall(f"{d.get('title', '')} {d['text']}".lower()) for d in corpus])
    build = time.perf_counter() - started

    def search(q: str) -> dict:
        scores = bm25.get_scores(TOKEN.findall(q.lower()))
        top = sorted(range(len(ids)), key=lambda i: -scores[i])[:100]
        return {ids[i]: float(scores[i]) for i in top}

    return build, search


def bm25s_peer(corpus: list[dict]):
    import bm25s

    ids = [d["_id"] for d in corpus]
    try:
        import Stemmer

        stemmer = Stemmer.Stemmer("english")
    except ImportError:
        stemmer = None
    started = time.perf_counter()
    tokens = bm25s.tokenize([f"{d.get('title', '')} {d['text']}" for d in corpus], stopwords="en",
                            stemmer=stemmer, show_progress=False)
    retriever = bm25s.BM25()
    retriever.index(tokens, show_progress=False)
    build = time.perf_counter() - started

    def search(q: str) -> dict:
        qt = bm25s.tokenize([q], stopwords="en", stemmer=stemmer, show_progress=False)
        docs, scores = retriever.retrieve(qt, k=100, show_progress=False, n_threads=1)
        return {ids[int(i)]: float(s) for i, s in zip(docs[0], scores[0])}

    return build, search, stemmer is not None


def bm25_rows(corpus, qrels, queries, scratch: Path) -> list[list]:
    rows = []
    build, search = ours_bm25(corpus, scratch / "tantivy")
    rows.append(row("ragchain (Tantivy, en_stem)", build, *run_timed(search, queries), qrels))
    build, search = rank_bm25_peer(corpus)
    rows.append(row("rank_bm25 BM25Okapi", build, *run_timed(search, queries), qrels))
    build, search, stemmed = bm25s_peer(corpus)
    rows.append(row(f"bm25s ({'stemmed' if stemmed else 'no stemmer'}, en stopwords)", build,
                    *run_timed(search, queries), qrels))
    return rows


def row(name: str, build: float, run: dict, seconds: list[float], qrels: dict) -> list:
    scores = evaluate(qrels, run, METRICS)
    ms = [s * 1000 for s in seconds]
    return [name, build, median(ms), percentile(ms, 95), len(seconds) / sum(seconds), scores["ndcg@10"],
            scores["recall@100"]]


def ours_hybrid(index_dir: Path, depth: int | None = None):
    """The CLI's hybrid search (its defaults: depth 1000 per retriever), or at another depth."""
    from ragchain_cli.fusion import collapse_to_documents
    from ragchain_cli.offline import freeze_loaded
    from ragchain_cli.retrieve.pipeline import SearchPipeline, search_options
    from ragchain_cli.stores.index import Index

    overrides = {"depth": depth} if depth else {}
    pipeline = SearchPipeline(Index(index_dir), search_options(k=100, documents=True, **overrides))
    freeze_loaded()  # as the CLI does once a command has loaded
    return lambda q: {h.doc_id: h.score for h in collapse_to_documents(pipeline.search(q))}


def lancedb_hybrid(index_dir: Path, scratch: Path):
    """LanceDB's own hybrid search over the same chunks and vectors as the ragchain index."""
    import lancedb
    import numpy as np

    from ragchain_cli.stores.embedders import load_query_encoder
    from ragchain_cli.stores.index import Index

    index = Index(index_dir)
    vectors = index.vectors._ensure_table().to_arrow()
    ids = vectors.column("chunk_id").to_pylist()
    chunks = index.docstore.chunks(ids)
    data = [{"chunk_id": cid, "doc_id": chunks[cid].doc_id, "text": chunks[cid].index_text(),
             "vector": np.asarray(v, dtype=np.float32)}
            for cid, v in zip(ids, vectors.column("vector").to_pylist())]
    started = time.perf_counter()
    table_ = lancedb.connect(str(scratch / "lancedb")).create_table("peer", data=data, mode="overwrite")
    table_.create_fts_index("text", replace=True)
    build = time.perf_counter() - started
    manifest = index.manifest()
    encoder = load_query_encoder(manifest["embed_model"], manifest.get("query_encoder", ""))

    def search(q: str) -> dict:
        vector = encoder.embed([q])[0]
        result = (table_.search(query_type="hybrid").vector(vector).text(q).limit(100)
                  .select(["doc_id"]).to_arrow())
        best: dict[str, float] = {}
        for doc_id, score in zip(result.column("doc_id").to_pylist(), result.column("_relevance_score").to_pylist()):
            best[doc_id] = max(best.get(doc_id, float("-inf")), float(score))
        return best

    return build, search


def hybrid_rows(index_dir: Path, qrels, queries, scratch: Path) -> tuple[list[list], str]:
    """Ours at the CLI's depth and at 100, and LanceDB's; a paired test of each of ours against it."""
    from ragchain_cli.config import Settings
    from ragchain_cli.evaluation.compare import randomization_test
    from ragchain_cli.evaluation.metrics import evaluate_report

    build, search = lancedb_hybrid(index_dir, scratch)
    theirs = run_timed(search, queries)
    ours = {f"ragchain hybrid (bm25+dense, cc z-score), depth {Settings().depth} (CLI default)":
            run_timed(ours_hybrid(index_dir), queries),
            "ragchain hybrid, depth 100": run_timed(ours_hybrid(index_dir, 100), queries)}
    rows = [row(name, 0.0, *timed, qrels) for name, timed in ours.items()]
    rows.append(row("LanceDB built-in hybrid (FTS + vector + RRF)", build, *theirs, qrels))
    per_query = {name: evaluate_report(qrels, run, ["ndcg@10"]).per_query["ndcg@10"]
                 for name, (run, _) in {**ours, "lancedb": theirs}.items()}
    qids = sorted(per_query["lancedb"])
    tests = [f"- {name} vs LanceDB: nDCG@10 difference "
             f"{sum(per_query[name][q] - per_query['lancedb'][q] for q in qids) / len(qids):+.4f}, paired "
             f"randomisation test p = {randomization_test([per_query[name][q] for q in qids], [per_query['lancedb'][q] for q in qids]):.4f}"
             for name in ours]
    return rows, "\n".join(tests)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="../shared/data/scifact")
    parser.add_argument("--index", default="bench/out/indexes/scifact-200-40", help="a ragchain SciFact index")
    parser.add_argument("--limit", type=int, default=0, help="first N judged queries only (0 = all)")
    args = parser.parse_args()
    corpus = load_corpus(args.data)
    qrels, queries = judged_queries(args.data)
    if args.limit:
        queries = dict(list(queries.items())[: args.limit])
        qrels = {qid: qrels[qid] for qid in queries}
    headers = ["system", "build s", "p50 ms", "p95 ms", "queries/s", "nDCG@10", "R@100"]
    with tempfile.TemporaryDirectory() as tmp:
        bm25 = table(headers, bm25_rows(corpus, qrels, queries, Path(tmp)))
        hybrid_table, tests = hybrid_rows(Path(args.index), qrels, queries, Path(tmp))
        hybrid = f"{table(headers, hybrid_table)}\n\n{tests}"
    report = (f"## Peers on SciFact train ({len(queries)} queries), {machine()}\n\n"
              f"`python bench/peers_bench.py --data {args.data} --index {args.index}`\n\n"
              f"### BM25, whole documents\n\n{bm25}\n\n### Hybrid, same chunks and embeddings\n\n{hybrid}\n")
    print(report)
    write_report("peers.md", report)


if __name__ == "__main__":
    main()
