"""Query-side extensions on BEIR SciFact train queries: prf on every judged query, hyde and expand
on a fixed subset with a local LLM.

    python bench/query_ext_bench.py --data ../shared/data/scifact --index bench/out/scifact-index \
        [--subset 30] [--llms smollm2-135m-instruct,qwen2.5-coder-0.5b-instruct] [--skip-prf] [--skip-llm]

The index is built with `ragchain ingest CORPUS --index DIR` when DIR does not exist (an existing
index is only read). Queries: the train queries named in qrels-train.tsv that have a text, in
qrels order; the LLM subset is the first `--subset` of them. Results are document level
(search_options(documents=True): max-passage), k=100, scored with ragchain_cli.evaluation
(nDCG@10, Recall@100); each table's first row is its baseline, and p is the paired
randomization test of ragchain eval (10,000 sign flips, no multiple-comparison correction).

prf: each configuration is its own SearchPipeline over all queries (batched like `ragchain eval`);
seconds per query = wall time of run_queries / queries, models loaded beforehand.

LLM: one SearchPipeline per model with retrievers bm25, dense, hyde (SciFact template of the HyDE
paper) and expand on; each query's lists are computed once and every row fuses a subset of them
(cc, zscore, the defaults) and finishes with the pipeline's own finish(). LLM seconds per query
are the pipeline's `hyde` and `expand` stage timings / queries (expand includes retrieving the
generated queries, which is milliseconds next to generation).

Results: Markdown on stdout and in bench/out/query_ext.md.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import benchlib

from ragchain_cli.evaluation import compare_runs, read_qrels, read_queries
from ragchain_cli.evaluation.runner import run_queries, to_run_entry
from ragchain_cli.fusion import fuse
from ragchain_cli.retrieve.expand import expanded_weights
from ragchain_cli.retrieve.pipeline import SearchOptions, SearchPipeline, search_options
from ragchain_cli.stores.index import Index
from ragchain_cli.types import Hit

METRICS = ["ndcg@10", "recall@100"]
SCIFACT_TEMPLATE = "Please write a scientific paper passage to support/refute the claim.\nClaim: {query}\nPassage:"
PRF_GROUPS = {
    "BM25 vs RM3": [
        ("bm25", ["bm25"], {}),
        ("bm25-prf (10 docs, 10 terms, λ=0.5)", ["bm25-prf"], {}),
        ("bm25-prf (5 docs, 10 terms, λ=0.5)", ["bm25-prf"], {"prf_docs": 5}),
        ("bm25-prf (10 docs, 20 terms, λ=0.5)", ["bm25-prf"], {"prf_terms": 20}),
        ("bm25-prf (10 docs, 10 terms, λ=0.7)", ["bm25-prf"], {"prf_weight": 0.7}),
    ],
    "dense vs Rocchio": [
        ("dense", ["dense"], {}),
        ("dense-prf (3 docs, β=0.5)", ["dense-prf"], {}),
        ("dense-prf (5 docs, β=0.5)", ["dense-prf"], {"prf_docs": 5}),
        ("dense-prf (10 docs, β=0.5)", ["dense-prf"], {"prf_docs": 10}),
        ("dense-prf (3 docs, β=1.0)", ["dense-prf"], {"rocchio_beta": 1.0}),
    ],
    "hybrid (cc zscore) with prf": [
        ("bm25 + dense", ["bm25", "dense"], {}),
        ("bm25-prf + dense", ["bm25-prf", "dense"], {}),
        ("bm25 + dense-prf", ["bm25", "dense-prf"], {}),
        ("bm25-prf + dense-prf", ["bm25-prf", "dense-prf"], {}),
    ],
}
LLM_GROUPS = {  # label -> (base lists, base weights, with the generated lists, generated weight); row 1 = baseline
    "dense vs HyDE": [
        ("dense", ["dense"], {}, False, 1.0),
        ("hyde (dense search with mean(query, passage))", ["hyde"], {}, False, 1.0),
    ],
    "hybrid (cc zscore) with HyDE or expand": [
        ("bm25 + dense", ["bm25", "dense"], {}, False, 1.0),
        ("bm25 + dense, dense weight 2 (control for the next rows)", ["bm25", "dense"], {"dense": 2.0}, False, 1.0),
        ("bm25 + hyde", ["bm25", "hyde"], {}, False, 1.0),
        ("bm25 + dense + hyde", ["bm25", "dense", "hyde"], {}, False, 1.0),
        ("bm25 + dense + expand (equal weights)", ["bm25", "dense"], {}, True, 1.0),
        ("bm25 + dense + expand (generated lists x0.2)", ["bm25", "dense"], {}, True, 0.2),
    ],
}


def judged_queries(data: Path) -> tuple[dict, dict[str, str]]:
    qrels = read_qrels(data / "qrels-train.tsv")
    texts = read_queries(data / "queries.jsonl")
    kept = {qid: texts[qid] for qid in qrels if qid in texts}
    return {qid: qrels[qid] for qid in kept}, kept


def ensure_index(data: Path, index: Path) -> None:
    if index.exists():
        return
    command = ["ragchain", "ingest", str(benchlib.corpus_path(str(data))), "--index", str(index), "--json"]
    print(f"building {index}: {' '.join(command)}", file=sys.stderr)
    subprocess.run([str(Path(sys.executable).with_name("ragchain")), *command[1:]], check=True,
                   stdout=subprocess.DEVNULL)


def options(retrievers: list[str], extra: dict, **more) -> SearchOptions:
    return search_options(retrievers=retrievers, documents=True, k=100, retriever_options=extra, **more)


def comparison_rows(qrels, runs: dict, seconds: dict) -> list[list]:
    table = compare_runs(qrels, runs, METRICS)
    rows = []
    for config in table.configs:
        delta = config.deltas.get("ndcg@10")
        rows.append([config.name, config.means["ndcg@10"], f"{delta.diff:+.3f}" if delta else "",
                     f"{delta.p_value:.3f}" if delta else "", config.means["recall@100"], seconds[config.name]])
    return rows


HEADERS = ["config", "nDCG@10", "Δ", "p", "R@100", "s/query"]


def prf_section(index: Index, qrels, queries: dict[str, str]) -> str:
    parts = [f"## prf: all {len(queries)} judged train queries\n"]
    for group, configs in PRF_GROUPS.items():
        runs, seconds = {}, {}
        for name, retrievers, extra in configs:
            pipeline = SearchPipeline(index, options(retrievers, extra))
            pipeline.search("warm up")
            started = time.perf_counter()
            runs[name] = run_queries(pipeline, queries)
            seconds[name] = round((time.perf_counter() - started) / len(queries), 4)
            print(f"  {name}: {seconds[name]:.4f} s/q", file=sys.stderr)
        parts.append(f"### {group}\n\n{benchlib.table(HEADERS, comparison_rows(qrels, runs, seconds))}\n")
    return "\n".join(parts)


def fused_run(pipeline: SearchPipeline, queries: dict[str, str], all_runs: list[dict], row: tuple) -> dict:
    _, bases, base_weights, generated, weight = row
    run = {}
    for (qid, text), runs in zip(queries.items(), all_runs):
        chosen = {name: hits for name, hits in runs.items()
                  if name in bases or (generated and "~" in name and name.partition("~")[0] in bases)}
        weights = expanded_weights(list(chosen), base_weights, weight)
        fused = fuse("cc", chosen, norm="zscore", weights=weights)
        run[qid] = to_run_entry(pipeline.finish(text, fused))
    return run


def generate_runs(index: Index, queries: dict[str, str], llm: str, cache: Path) -> tuple[SearchPipeline, dict]:
    """Every list (bm25, dense, hyde, the generated queries') per query, computed once and cached."""
    opts = options(["bm25", "dense", "hyde"], {"hyde_template": SCIFACT_TEMPLATE}, llm=llm, expand=True)
    pipeline = SearchPipeline(index, opts)
    if cache.is_file():
        return pipeline, json.loads(cache.read_text())
    pipeline.retrievers["hyde"].llm.chat([{"role": "user", "content": "Hi"}], max_tokens=1)  # load the weights
    pipeline.search("warm up")
    pipeline.expander.cache.clear()
    pipeline.timings.clear()
    started = time.perf_counter()
    all_runs = pipeline.retrieve_runs(list(queries.values()))
    first = next(iter(queries.values()))
    record = {
        "total_s": time.perf_counter() - started, "hyde_s": pipeline.timings["hyde"],
        "expand_s": pipeline.timings["expand"], "failures": len(pipeline.expander.failed),
        "example": {"query": first, "hyde": pipeline.retrievers["hyde"].passages(first)[0],
                    "expand": pipeline.expander.cache.get(first)},
        "runs": [{name: [[h.chunk_id, h.score] for h in hits] for name, hits in runs.items()} for runs in all_runs],
    }
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(record))
    return pipeline, record


def llm_section(index: Index, qrels, queries: dict[str, str], llm: str) -> str:
    n = len(queries)
    cache = benchlib.OUT / "cache" / f"query_ext-{index.root.name}-{llm}-{n}.json"
    pipeline, record = generate_runs(index, queries, llm, cache)
    all_runs = [{name: [Hit(cid, score) for cid, score in hits] for name, hits in runs.items()}
                for runs in record["runs"]]
    per_query = {"hyde": record["hyde_s"] / n, "expand": record["expand_s"] / n}
    scoped = {qid: qrels[qid] for qid in queries}
    parts = [f"## hyde and expand with {llm}: the first {n} judged train queries\n"]
    for group, rows in LLM_GROUPS.items():
        runs = {row[0]: fused_run(pipeline, queries, all_runs, row) for row in rows}
        seconds = {row[0]: round(sum(v for k, v in per_query.items() if k in row[0]), 2) or "-" for row in rows}
        parts.append(f"### {group}\n\n{benchlib.table(HEADERS, comparison_rows(scoped, runs, seconds))}\n")
    example = record["example"]
    parts += [
        f"All lists for the {n} queries took {record['total_s']:.0f} s; hyde {per_query['hyde']:.2f} s/query "
        f"(1 passage, max 128 tokens), expand {per_query['expand']:.2f} s/query (max 320 tokens); "
        f"expand replies that were not usable JSON: {record['failures']}/{n}.\n",
        f"Example, query {example['query']!r}:\n",
        f"- hyde passage: {example['hyde'][:400]!r}",
        f"- expand: {example['expand']}\n",
    ]
    return "\n".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--index", default=str(benchlib.OUT / "scifact-index"))
    parser.add_argument("--subset", type=int, default=30)
    parser.add_argument("--llms", default="smollm2-135m-instruct")
    parser.add_argument("--skip-prf", action="store_true")
    parser.add_argument("--skip-llm", action="store_true")
    parser.add_argument("--out", default="query_ext.md")
    args = parser.parse_args()
    data, root = Path(args.data), Path(args.index)
    ensure_index(data, root)
    qrels, queries = judged_queries(data)
    sections = [f"# Query-side extensions on SciFact (train)\n\nIndex {root}; {benchlib.machine()}\n"]
    index = Index(root)
    try:
        if not args.skip_prf:
            sections.append(prf_section(index, qrels, queries))
            print(sections[-1])
        subset = dict(list(queries.items())[: args.subset])
        for llm in [] if args.skip_llm else [m for m in args.llms.split(",") if m]:
            sections.append(llm_section(index, qrels, subset, llm))
            print(sections[-1])
    finally:
        index.close()
    print(f"written to {benchlib.write_report(args.out, chr(10).join(sections))}", file=sys.stderr)


if __name__ == "__main__":
    main()
