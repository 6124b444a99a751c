"""Prototype: rank DOCUMENTS from document-level evidence, on one index's exported chunks and vectors.

    python bench/doc_evidence_bench.py --data ../shared/data/scifact --index DIR [--out doc_evidence.md]

Outside the product on purpose (cheap to vary): every chunk ID, document ID and vector is read
once from an index built by `ragchain ingest` with the defaults; queries are embedded once with
the index's model; BM25 runs through ragchain's own LexicalIndex (the chunks' index, and a
temporary one over whole documents, title + full text). Then each configuration is a few lines
of numpy/dict work over those lists, fused with ragchain_cli.fusion. Scored per FIXED half of the
train queries (bench/halves.py): choose on half 1, confirm on half 2.

Lists (each truncated to --depth):
  bm25c  BM25 over chunks (title + chunk, as ingested)       densec  cosine over chunk vectors
  bm25d  BM25 over whole documents (title + text)           densed  cosine to the mean chunk vector
Document scores from a chunk list: `max` (max-passage) or `dsum a` (max + a*second + a^2*third ...).

An index that holds only part of the corpus (an ingest still running, or `--limit`) is scored as a
sub-collection: the documents it holds, the judgements on them, the queries with at least one.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import benchlib
import numpy as np
from halves import split

from ragchain_cli.evaluation.compare import randomization_test
from ragchain_cli.evaluation.metrics import evaluate_report
from ragchain_cli.evaluation.readers import read_qrels, read_queries
from ragchain_cli.fusion import collapse_to_documents, fuse
from ragchain_cli.retrieve.pipeline import SearchPipeline
from ragchain_cli.stores.embedders import load_embedder
from ragchain_cli.stores.index import Index
from ragchain_cli.stores.lexical import LexicalIndex
from ragchain_cli.types import Hit


DECAYS = (0.0, 0.3)  # 0.5 lost on every list and fusion in the first run (bench/RESULTS.md)
SHARED = {"bm25 pair 0.3 / dense pair 0.7": {"b": 0.15, "bd": 0.15, "d": 0.35, "dd": 0.35},
          "bm25 pair 0.5 / dense pair 0.5": {"b": 0.25, "bd": 0.25, "d": 0.25, "dd": 0.25}}


def load_index(root: Path):
    index = Index(root)
    rows = index.docstore.conn.execute("SELECT chunk_id, doc_id, ordinal FROM chunks").fetchall()
    table = index.vectors._table_or_none()
    data = table.to_arrow()
    ids = data.column("chunk_id").to_pylist()
    matrix = data.column("vector").combine_chunks().values.to_numpy(zero_copy_only=False).reshape(len(ids), -1)
    owner = {cid: doc for cid, doc, _ in rows}
    keep = [i for i, cid in enumerate(ids) if cid in owner]  # a table ahead of a docstore being written
    return index, [ids[i] for i in keep], matrix[keep].astype(np.float32), owner


def top(scores: np.ndarray, ids: list[str], depth: int) -> list[tuple[str, float]]:
    order = np.argpartition(-scores, depth)[:depth] if depth < len(ids) else np.arange(len(ids))
    order = order[np.argsort(-scores[order], kind="stable")]
    return [(ids[i], float(scores[i])) for i in order]


def doc_vectors(ids, matrix, owner):
    groups = defaultdict(list)
    for row, cid in enumerate(ids):
        groups[owner[cid]].append(row)
    docs = sorted(groups)
    mean = np.stack([matrix[groups[d]].mean(axis=0) for d in docs])
    return docs, mean / np.linalg.norm(mean, axis=1, keepdims=True)


def whole_doc_bm25(corpus: Path, held: set[str], texts: dict[str, str], depth: int, tmp: Path) -> dict[str, list]:
    lexical = LexicalIndex(tmp / "docs")
    docs = [d for d in benchlib.read_jsonl(corpus) if d["_id"] in held]
    lexical.apply([], [(d["_id"], f"{d['title'].strip()}\n{d['text'].strip()}".strip()) for d in docs])
    found = {qid: lexical.search(text, depth) for qid, text in texts.items()}
    lexical.close()
    return found


def collapse(run: list[tuple[str, float]], owner: dict[str, str], decay: float) -> list[tuple[str, float]]:
    """Chunk list -> document list: max + decay * second + decay^2 * third ... (decay 0: max-passage)."""
    per_doc = defaultdict(list)
    for cid, score in run:
        per_doc[owner[cid]].append(score)
    scored = {d: math.fsum(s * decay ** i for i, s in enumerate(sorted(v, reverse=True))) for d, v in per_doc.items()}
    return sorted(scored.items(), key=lambda kv: (-kv[1], kv[0]))


def hits(pairs) -> list[Hit]:
    return [Hit(chunk_id=i, score=s, doc_id=i) for i, s in pairs]


def fuse_docs(lists: dict[str, list], method: str = "cc", weights=None) -> dict[str, float]:
    fused = fuse(method, {name: hits(pairs) for name, pairs in lists.items()}, norm="zscore", k=60, weights=weights)
    return {h.chunk_id: h.score for h in fused[:1000]}


def baseline(bm25c, densec, owner) -> dict[str, float]:
    """Today's default: chunk-level cc z-score, then max-passage."""
    fused = fuse("cc", {"bm25": [Hit(c, s, owner[c]) for c, s in bm25c], "dense": [Hit(c, s, owner[c]) for c, s in densec]},
                 norm="zscore")
    return {h.doc_id: h.score for h in collapse_to_documents(fused)[:1000]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--index", required=True)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--out", default="doc_evidence.md")
    parser.add_argument("--latency", type=int, default=0, help="only time N warm queries per pipeline setting")
    args = parser.parse_args(argv)
    if args.latency:
        return latency(Path(args.index), list(read_queries(Path(args.data) / "queries.jsonl").values())[: args.latency])
    data = Path(args.data)
    queries = read_queries(data / "queries.jsonl")
    qrels = read_qrels(data / "qrels-train.tsv")
    index, ids, matrix, owner = load_index(Path(args.index))
    held = set(owner.values())
    qrels = {q: kept for q, judged in qrels.items() if (kept := {d: g for d, g in judged.items() if d in held})}
    texts = {q: queries[q] for q in qrels}
    qids = list(texts)
    qvec = load_embedder(index.manifest()["embed_model"]).embed([texts[q] for q in qids])
    depth = args.depth
    lists = {"bm25c": {}, "densec": {}, "densed": {}}
    docs, dmatrix = doc_vectors(ids, matrix, owner)
    for q, v in zip(qids, qvec):
        lists["bm25c"][q] = [(c, sc) for c, sc in index.lexical.search(texts[q], depth) if c in owner]
        lists["densec"][q] = top(matrix @ v, ids, depth)
        lists["densed"][q] = top(dmatrix @ v, docs, depth)
    with tempfile.TemporaryDirectory(prefix="docev-") as tmp:
        lists["bm25d"] = whole_doc_bm25(benchlib.corpus_path(args.data), held, texts, depth, Path(tmp))
    runs = configurations(lists, owner, qids)
    report(runs, qrels, args, index, len(held))
    return 0


def configurations(lists, owner, qids) -> dict[str, dict]:
    runs: dict[str, dict] = {}

    def per_query(fn):
        return {q: fn(q) for q in qids}

    L = lists
    runs["baseline: chunk cc -> max-passage (today)"] = per_query(lambda q: baseline(L["bm25c"][q], L["densec"][q], owner))
    for decay in DECAYS:
        tag = "max" if decay == 0 else f"dsum {decay}"
        runs[f"bm25c {tag}"] = per_query(lambda q: dict(collapse(L["bm25c"][q], owner, decay)))
        runs[f"densec {tag}"] = per_query(lambda q: dict(collapse(L["densec"][q], owner, decay)))
        runs[f"doc cc(bm25c, densec) {tag}"] = per_query(lambda q: fuse_docs(
            {"b": collapse(L["bm25c"][q], owner, decay), "d": collapse(L["densec"][q], owner, decay)}))
        runs[f"doc cc(bm25c, densec, bm25d) {tag}"] = per_query(lambda q: fuse_docs(
            {"b": collapse(L["bm25c"][q], owner, decay), "d": collapse(L["densec"][q], owner, decay),
             "bd": L["bm25d"][q]}))
        runs[f"doc cc(bm25c, densec, bm25d, densed) {tag}"] = per_query(lambda q: fuse_docs(
            {"b": collapse(L["bm25c"][q], owner, decay), "d": collapse(L["densec"][q], owner, decay),
             "bd": L["bm25d"][q], "dd": L["densed"][q]}))
        runs[f"doc cc(bm25c, densec, densed) {tag}"] = per_query(lambda q: fuse_docs(
            {"b": collapse(L["bm25c"][q], owner, decay), "d": collapse(L["densec"][q], owner, decay),
             "dd": L["densed"][q]}))
    runs["bm25d"] = per_query(lambda q: dict(L["bm25d"][q]))
    runs["densed"] = per_query(lambda q: dict(L["densed"][q]))
    runs["doc cc(bm25d, densec max)"] = per_query(lambda q: fuse_docs(
        {"bd": L["bm25d"][q], "d": collapse(L["densec"][q], owner, 0.0)}))
    runs["doc cc(bm25d, densed)"] = per_query(lambda q: fuse_docs({"bd": L["bm25d"][q], "dd": L["densed"][q]}))
    for label, weights in SHARED.items():
        runs[f"doc cc(bm25c, densec, bm25d, densed) max, {label}"] = per_query(lambda q: fuse_docs(
            {"b": collapse(L["bm25c"][q], owner, 0.0), "d": collapse(L["densec"][q], owner, 0.0),
             "bd": L["bm25d"][q], "dd": L["densed"][q]}, weights=weights))
    runs["doc cc(bm25c, densec, bm25d) max, bm25c/bm25d share 0.5"] = per_query(lambda q: fuse_docs(
        {"b": collapse(L["bm25c"][q], owner, 0.0), "d": collapse(L["densec"][q], owner, 0.0), "bd": L["bm25d"][q]},
        weights={"b": 0.25, "bd": 0.25, "d": 0.5}))
    runs["doc cc(bm25c, densec, densed) max, densec/densed share 0.5"] = per_query(lambda q: fuse_docs(
        {"b": collapse(L["bm25c"][q], owner, 0.0), "d": collapse(L["densec"][q], owner, 0.0), "dd": L["densed"][q]},
        weights={"b": 0.5, "d": 0.25, "dd": 0.25}))
    for w in (0.2, 0.33, 0.5):  # today's fused ranking, then the mean-vector list beside it
        runs[f"doc cc(today, densed), densed weight {w}"] = per_query(lambda q: fuse_docs(
            {"t": list(baseline(L["bm25c"][q], L["densec"][q], owner).items()), "dd": L["densed"][q]},
            weights={"t": 1 - w, "dd": w}))
    for label, weights in {"b 0.4 / d 0.3 / dd 0.3": {"b": 0.4, "d": 0.3, "dd": 0.3},
                           "b 0.5 / d 0.3 / dd 0.2": {"b": 0.5, "d": 0.3, "dd": 0.2}}.items():
        runs[f"doc cc(bm25c, densec, densed) max, {label}"] = per_query(lambda q: fuse_docs(
            {"b": collapse(L["bm25c"][q], owner, 0.0), "d": collapse(L["densec"][q], owner, 0.0),
             "dd": L["densed"][q]}, weights=weights))
    runs["doc rrf(bm25c, densec, bm25d, densed) max"] = per_query(lambda q: fuse_docs(
        {"b": collapse(L["bm25c"][q], owner, 0.0), "d": collapse(L["densec"][q], owner, 0.0),
         "bd": L["bm25d"][q], "dd": L["densed"][q]}, method="rrf"))
    return runs


def report(runs, qrels, args, index, documents: int) -> None:
    halves = split(qrels)
    base_name = next(iter(runs))
    rows = []
    base = [evaluate_report(h, runs[base_name], ["ndcg@10"]).per_query["ndcg@10"] for h in halves]
    for name, run in runs.items():
        row = [name]
        for number, half in enumerate(halves):
            rep = evaluate_report(half, run, ["ndcg@10", "recall@100"])
            values = rep.per_query["ndcg@10"]
            p = randomization_test([values[q] for q in half], [base[number][q] for q in half], 2000)
            row += [rep.means["ndcg@10"], rep.means["ndcg@10"] - np.mean(list(base[number].values())), p,
                    rep.means["recall@100"]]
        rows.append(row)
    text = "\n".join([
        "# Document-level evidence prototype (SciFact train, fixed halves)", "",
        f"Machine: {benchlib.machine()}. Index: {args.index} ({index.manifest()}), "
        f"{documents} documents. Queries: {len(halves[0])} / {len(halves[1])}. Depth {args.depth}. "
        f"Command: `{' '.join(['python', *sys.argv])}`", "",
        benchlib.table(["configuration", "h1 nDCG@10", "h1 delta", "h1 p", "h1 R@100",
                        "h2 nDCG@10", "h2 delta", "h2 p", "h2 R@100"], rows),
    ])
    benchlib.write_report(args.out, text)
    print(text)


def latency(root: Path, texts: list[str]) -> int:
    """Warm single-query SearchPipeline.search() p50/p95 per setting, settings interleaved query by
    query (side by side, one process); builds documents/ first if the index predates it."""
    import time

    from ragchain_cli.config import Settings
    from ragchain_cli.retrieve.pipeline import search_options

    index = Index(root)
    with index.write_lock(wait=True):
        index.backfill_documents()
    base = Settings()
    settings = {"chunks (`search`, `ask`)": search_options(base),
                "--documents: chunk fusion, then max-passage": search_options(
                    base, documents=True, document_fusion=False, whole_documents=False),
                "--documents: document_fusion": search_options(
                    base, documents=True, document_fusion=True, whole_documents=False),
                "--documents: document_fusion + whole_documents": search_options(
                    base, documents=True, document_fusion=True, whole_documents=True)}
    pipelines = {name: SearchPipeline(index, options) for name, options in settings.items()}
    times: dict[str, list[float]] = {name: [] for name in pipelines}
    for text in texts[:5]:  # warm-up
        for pipeline in pipelines.values():
            pipeline.search(text)
    for text in texts:
        for name, pipeline in pipelines.items():
            started = time.perf_counter()
            pipeline.search(text)
            times[name].append((time.perf_counter() - started) * 1000)
    rows = [[name, f"{benchlib.median(t):.1f}", f"{benchlib.percentile(t, 95):.1f}"] for name, t in times.items()]
    text = "\n".join([f"Machine: {benchlib.machine()}. {len(texts)} queries, depth {base.depth}, k {base.k}. "
                      f"Command: `{' '.join(['python', *sys.argv])}`", "",
                      benchlib.table(["setting", "p50 ms", "p95 ms"], rows)])
    benchlib.write_report("doc_evidence_latency.md", text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
