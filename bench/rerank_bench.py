"""Reranker benchmark on BEIR SciFact train queries: nDCG@10 before/after each offline reranker
over the same fused candidates, and seconds per query; plus the cost of UPR per passage.

    python bench/rerank_bench.py --data ../shared/data/scifact [--index DIR] [--queries 50]
        [--llm-queries 20] [--few-queries 10] [--only upr,llm] [--cost] [--fresh]

Index: --index DIR, else bench/out/scifact-index, else bench/out/indexes/scifact-200-40 (built
by retrieval_bench.py), else `ragchain ingest CORPUS --index bench/out/scifact-index`. Existing
indexes are only read.

Queries: the first --queries train queries in qrels-train.tsv order (a fixed subset); the slow
LLM rerankers use the first --llm-queries of them, and the variants run only to show a trend
(other passage budgets, prompt order, the 0.5B model) the first --few-queries. For every query the fused candidates are
computed once with the default search settings (bm25 + dense, cc/zscore, depth 100); each
reranker then runs through SearchPipeline.finish() (rerank the first N chunks, tail below,
max-passage collapse to documents), exactly as `ragchain search --documents` does.

Seconds per query are the reranker's own time (model load excluded). UPR is pointwise, so it is
run once at the largest depth; a smaller depth reuses the first N passages' scores (identical
by construction) and its time is N x the measured seconds per passage.

Results accumulate in bench/out/rerank-results.jsonl (one line per configuration; reused unless
--fresh) and the Markdown tables go to stdout and bench/out/rerank.md.
"""

from __future__ import annotations

import os

# torch (dense retrieval) and llama.cpp share one libgomp; unless it starts with PASSIVE waiting,
# torch's idle OpenMP workers spin and llama.cpp runs ~20x slower on a busy 2-core machine.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from dataclasses import replace  # noqa: E402
from pathlib import Path  # noqa: E402

import benchlib  # noqa: E402

from ragchain_cli.evaluation.metrics import evaluate_per_query  # noqa: E402
from ragchain_cli.evaluation.readers import read_qrels, read_queries  # noqa: E402
from ragchain_cli.fusion import fuse  # noqa: E402
from ragchain_cli.rerank import RERANKERS  # noqa: E402
from ragchain_cli.rerank._common import reranked  # noqa: E402
from ragchain_cli.retrieve.pipeline import SearchPipeline, search_options  # noqa: E402
from ragchain_cli.stores.index import Index  # noqa: E402
from ragchain_cli.types import Run  # noqa: E402

RESULTS = benchlib.OUT / "rerank-results.jsonl"
SMOL, QWEN = "smollm2-135m-instruct", "qwen2.5-coder-0.5b-instruct"
DEPTHS = (10, 20)
# (label, registry name, options, pointwise, tier): tier 0 runs on --queries, 1 on --llm-queries,
# 2 on --few-queries (the variants that only show a trend; the machine is shared and slow)
CONFIGS = [
    ("bm25", "bm25", {}, False, 0),
    ("upr smollm2 p128", "upr", {"llm": SMOL, "passage_tokens": 128}, True, 0),
    ("llm smollm2", "llm", {"llm": SMOL}, False, 1),
    ("upr smollm2 p128", "upr", {"llm": SMOL, "passage_tokens": 128}, True, 2),  # reference for the variants
    ("upr smollm2 p64", "upr", {"llm": SMOL, "passage_tokens": 64}, True, 2),
    ("upr smollm2 p256", "upr", {"llm": SMOL, "passage_tokens": 256}, True, 2),
    ("upr smollm2 p128 original-order", "upr", {"llm": SMOL, "passage_tokens": 128, "prompt": "original"}, True, 2),
    ("upr qwen0.5b p128", "upr", {"llm": QWEN, "passage_tokens": 128}, True, 0),
    ("llm qwen0.5b", "llm", {"llm": QWEN}, False, 2),
]
DENSE_ONLY = [  # the case bm25 reranking is meant for: candidates from dense retrieval alone
    ("bm25 after dense-only", "bm25", {}, False, 0),
    ("upr smollm2 p128 after dense-only", "upr", {"llm": SMOL, "passage_tokens": 128}, True, 2),
]


class Replay:
    """A pointwise reranker's recorded scores, served again for a smaller depth."""

    def __init__(self, scores: dict[str, dict[str, float]]) -> None:
        self.scores = scores

    def rerank(self, query: str, hits):
        return reranked(hits, [self.scores[query][h.chunk_id] for h in hits])


class Recorder:
    """Wraps a reranker: times it and keeps every score it gives."""

    def __init__(self, inner) -> None:
        self.inner, self.seconds = inner, 0.0
        self.scores: dict[str, dict[str, float]] = {}

    def rerank(self, query: str, hits):
        started = time.perf_counter()
        out = self.inner.rerank(query, hits)
        self.seconds += time.perf_counter() - started
        self.scores.setdefault(query, {}).update({h.chunk_id: h.score for h in out})
        return out


# -- data -----------------------------------------------------------------------------------

def find_index(args) -> Path:
    candidates = [(Path(args.index).resolve(), "docstore.sqlite")] if args.index else [
        (benchlib.OUT / "scifact-index", "docstore.sqlite"), (benchlib.OUT / "indexes" / "scifact-200-40", "build.json")]
    for path, marker in candidates:
        if (path / marker).is_file():
            return path
    if args.index:
        raise SystemExit(f"no finished index at {args.index}")
    target = benchlib.OUT / "scifact-index"
    corpus = benchlib.corpus_path(args.data)
    subprocess.run([sys.executable, "-m", "ragchain_cli", "ingest", str(corpus), "--index", str(target),
                    "--json"], check=True)
    return target


def load_queries(data: str, limit: int) -> tuple[list[str], dict[str, str], dict]:
    judged = read_qrels(Path(data) / "qrels-train.tsv")
    texts = read_queries(Path(data) / "queries.jsonl")
    qids = [q for q in judged if q in texts][:limit]
    return qids, {q: texts[q] for q in qids}, {q: judged[q] for q in qids}


def fused_candidates(pipeline: SearchPipeline, texts: dict[str, str]) -> dict[str, list]:
    """Each query's fused, hydrated chunk list (the reranker input), computed once."""
    qids = list(texts)
    runs = pipeline.retrieve_runs([texts[q] for q in qids])
    opts = pipeline.options
    out = {}
    for qid, lists in zip(qids, runs):
        fused = fuse(opts.fusion, lists, k=opts.rrf_k, norm=opts.norm, weights=opts.weights or None)
        out[qid] = pipeline.linker.hydrate(fused)
    return out


def copies(hits: list) -> list:
    return [replace(h, explain=dict(h.explain)) for h in hits]


# -- evaluation -----------------------------------------------------------------------------

def run_with(pipeline, reranker, depth: int, texts, candidates) -> Run:
    """{qid: {doc_id: rank-preserving score}} after reranking the first `depth` chunks."""
    pipeline.reranker = reranker
    pipeline.options.rerank_depth = depth
    run = {}
    for qid, text in texts.items():
        docs = pipeline.finish(text, copies(candidates[qid]))
        run[qid] = {h.doc_id: float(len(docs) - i) for i, h in enumerate(docs)}
    return run


def ndcg(judged, run) -> dict[str, float]:
    return dict(evaluate_per_query(judged, run, ["ndcg@10"])["ndcg@10"])


def paired_p(base: dict, after: dict, samples: int = 10_000) -> float:
    """Two-sided paired randomisation (sign-flip) test on the per-query differences, fixed seed."""
    import random

    diffs = [after[q] - base[q] for q in after]
    observed = abs(sum(diffs))
    rng = random.Random(0)
    hits = sum(abs(sum(d if rng.random() < 0.5 else -d for d in diffs)) >= observed - 1e-12 for _ in range(samples))
    return (hits + 1) / (samples + 1)


def row(label, depth, queries, base: dict, after: dict, seconds: float, passages: int) -> dict:
    qids = list(after)
    base = {q: base[q] for q in qids}
    mean = lambda d: sum(d[q] for q in qids) / len(qids)  # noqa: E731
    return {"reranker": label, "depth": depth, "queries": len(qids), "ndcg_before": mean(base),
            "ndcg_after": mean(after), "better": sum(after[q] > base[q] + 1e-9 for q in qids),
            "worse": sum(after[q] < base[q] - 1e-9 for q in qids), "s_per_query": seconds / len(qids),
            "s_per_passage": seconds / max(1, passages), "queries_used": queries, "per_query": after,
            "p_value": paired_p(base, after)}


def evaluate_config(config, pipeline, texts, judged, candidates, base) -> list[dict]:
    """Rows (one per depth, largest first) for one reranker configuration."""
    label, name, options, pointwise, _tier = config
    started = time.perf_counter()
    recorder = Recorder(RERANKERS.create(name, **options))
    load_s = time.perf_counter() - started
    rows = []
    for depth in sorted(DEPTHS, reverse=True):
        passages = sum(min(depth, len(candidates[q])) for q in texts)
        if pointwise and rows:  # same scores as the deeper run; time = passages x measured s/passage
            run = run_with(pipeline, Replay(recorder.scores), depth, texts, candidates)
            seconds = rows[0]["s_per_passage"] * passages
        else:
            before = recorder.seconds
            run = run_with(pipeline, recorder, depth, texts, candidates)
            seconds = recorder.seconds - before
        rows.append(row(label, depth, len(texts), base, ndcg(judged, run), seconds, passages))
        rows[-1].update(load_s=load_s, derived_time=bool(pointwise and len(rows) > 1), options=options)
    return rows


def cached_rows(fresh: bool) -> dict[tuple, dict]:
    if fresh or not RESULTS.is_file():
        return {}
    rows = [json.loads(line) for line in RESULTS.read_text().splitlines() if line.strip()]
    return {(r["index"], r["reranker"], r["depth"], r["queries"]): r for r in rows}


def save_rows(rows: list[dict]) -> None:
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    with RESULTS.open("a", encoding="utf-8") as out:
        for r in rows:
            out.write(json.dumps(r) + "\n")


def quality_table(rows: list[dict]) -> str:
    headers = ["reranker", "depth", "queries", "nDCG@10 fused", "nDCG@10 reranked", "delta", "better/worse", "p",
               "s/query", "s/passage"]
    body = [[r["reranker"], r["depth"], r["queries"], r["ndcg_before"], r["ndcg_after"],
             f"{r['ndcg_after'] - r['ndcg_before']:+.3f}", f"{r['better']}/{r['worse']}",
             f"{r['p_value']:.2f}" if "p_value" in r else "-",
             f"{r['s_per_query']:.2f}" + ("*" if r.get("derived_time") else ""), f"{r['s_per_passage']:.3f}"]
            for r in rows]
    return benchlib.table(headers, body)


# -- UPR cost per passage -------------------------------------------------------------------

def _echo_scores(model_path: Path, prompts: list[str], query: str) -> float:
    """The prototype's way: Llama(logits_all=True) + create_completion(echo=True, logprobs=1)."""
    import llama_cpp

    llm = llama_cpp.Llama(model_path=str(model_path), n_ctx=1024, logits_all=True, verbose=False)
    n_query = len(llm.tokenize((" " + query).encode(), add_bos=False))
    started = time.perf_counter()
    for prompt in prompts:
        out = llm.create_completion(prompt + " " + query, max_tokens=1, echo=True, logprobs=1, temperature=0.0)
        values = [v for v in out["choices"][0]["logprobs"]["token_logprobs"] if v is not None][-n_query:]
        sum(values) / len(values)
        llm.reset()
    return (time.perf_counter() - started) / len(prompts)


def _scorer_seconds(model_path: Path, passages: list[str], query: str, prompt: str, budget: int) -> tuple[float, float]:
    from ragchain_cli.generate import LocalLLM
    from ragchain_cli.rerank.upr import split_template

    before, after = split_template(prompt)
    llm = LocalLLM(model_path, n_ctx=4096)
    bodies = [" " + p for p in passages]
    llm.score(before, bodies[:1], after, " " + query, body_tokens=budget)  # evaluates the prefix once, as before
    started = time.perf_counter()
    llm.score(before, bodies, after, " " + query, body_tokens=budget)
    seconds = (time.perf_counter() - started) / len(passages)
    tokens = sum(min(budget, len(llm.tokenize(b))) for b in bodies) / len(bodies)
    return seconds, tokens


def upr_cost(llm: str, text: str, hits: list, echo_passages: int) -> str:
    from ragchain_cli.generate import resolve_model
    from ragchain_cli.rerank._common import passage_text

    path = resolve_model(llm)
    passages = [passage_text(h) for h in hits]
    original = "Passage: {passage}. Please write a question based on this passage.\nQuestion:"
    rows = []
    if echo_passages:
        echo = _echo_scores(path, [original.replace("{passage}", p) for p in passages[:echo_passages]], text)
        rows.append([f"create_completion(echo, logprobs), logits_all, full passage ({echo_passages} passages)",
                     "-", echo])
    for label, prompt, budget in [("scorer, full passage, original order", "original", 1024),
                                  ("scorer, full passage, instruction first (prefix KV reused)", "instruction-first", 1024),
                                  ("scorer, 256-token budget, instruction first", "instruction-first", 256),
                                  ("scorer, 128-token budget, instruction first", "instruction-first", 128),
                                  ("scorer, 64-token budget, instruction first", "instruction-first", 64)]:
        seconds, tokens = _scorer_seconds(path, passages, text, prompt, budget)
        rows.append([label, f"{tokens:.0f}", seconds])
    return benchlib.table(["UPR variant (" + llm + f", {len(passages)} passages)", "passage tokens", "s/passage"], rows)


# -- main -----------------------------------------------------------------------------------

def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True)
    parser.add_argument("--index")
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--llm-queries", type=int, default=20)
    parser.add_argument("--few-queries", type=int, default=10)
    parser.add_argument("--only", default="", help="comma-separated labels or reranker names")
    parser.add_argument("--cost", action="store_true", help="also measure UPR seconds per passage, variant by variant")
    parser.add_argument("--cost-llm", default=SMOL)
    parser.add_argument("--echo-passages", type=int, default=3)
    parser.add_argument("--fresh", action="store_true")
    return parser.parse_args()


def selected(only: str) -> list[tuple]:
    wanted = [w.strip() for w in only.split(",") if w.strip()]
    return [c for c in CONFIGS + DENSE_ONLY if not wanted or c[0] in wanted or c[1] in wanted]


def evaluate_all(configs, store, options, args, texts, judged, qids, index_path) -> tuple[list[dict], dict, dict]:
    """Rows for every configuration over one candidate source; also its candidates and baseline."""
    pipeline = SearchPipeline(store, options)
    candidates = fused_candidates(pipeline, texts)
    base = ndcg(judged, run_with(pipeline, None, 0, texts, candidates))
    done, rows = cached_rows(args.fresh), []
    for config in configs:
        limit = (args.queries, args.llm_queries, args.few_queries)[config[4]]
        subset = {q: texts[q] for q in qids[:limit]}
        keys = [(str(index_path), config[0], d, len(subset)) for d in sorted(DEPTHS, reverse=True)]
        if all(k in done for k in keys):
            rows += [done[k] for k in keys]
            continue
        print(f"[{time.strftime('%H:%M:%S')}] {config[0]} on {len(subset)} queries", file=sys.stderr, flush=True)
        new = evaluate_config(config, pipeline, subset, {q: judged[q] for q in subset}, candidates, base)
        for r in new:
            r["index"] = str(index_path)
        save_rows(new)
        rows += new
    return rows, candidates, base


def main() -> None:
    args = parse_args()
    index_path = find_index(args)
    qids, texts, judged = load_queries(args.data, args.queries)
    store = Index(index_path)
    try:
        fused = search_options(k=100, documents=True)
        chosen = selected(args.only)
        fused_configs = [c for c in chosen if c in CONFIGS]
        rows, candidates, base = evaluate_all(fused_configs, store, fused, args, texts, judged, qids, index_path)
        report = header(index_path, args, len(qids), base) + "\n\n" + quality_table(rows)
        dense_configs = [c for c in chosen if c in DENSE_ONLY]
        if dense_configs:
            dense = replace(fused, retrievers=["dense"])
            rows, _, base = evaluate_all(dense_configs, store, dense, args, texts, judged, qids, index_path)
            report += (f"\n\nDense-only candidates (nDCG@10 of the dense list on all {len(qids)}: "
                       f"{sum(base.values()) / len(base):.3f}):\n\n" + quality_table(rows))
        if args.cost:
            first = next(q for q in qids if len(candidates[q]) >= 20)
            report += "\n\n" + upr_cost(args.cost_llm, texts[first], candidates[first][:20], args.echo_passages)
    finally:
        store.close()
    print(report)
    benchlib.write_report("rerank.md", report)


def header(index_path: Path, args, n_queries: int, base: dict) -> str:
    mean = sum(base.values()) / len(base)
    return (f"Index {index_path} ({benchlib.machine()}).\n"
            f"First {n_queries} SciFact train queries (qrels order); the LLM rerankers on the first "
            f"{args.llm_queries}, their variants on the first {args.few_queries} (column queries). "
            f"Fused candidates: default settings (bm25+dense, cc zscore, depth 100), document level "
            f"(max-passage), nDCG@10 of the fused list on all {n_queries}: {mean:.3f}. "
            f"* = time from the measured s/passage (pointwise scores reused).")


if __name__ == "__main__":
    main()
