"""Versions, --latest and --recency, measured (issue 17).

    python bench/versions_bench.py versioned --index IDX       # IDX: tests/versioned_corpus.py ingested
    python bench/versions_bench.py scifact --index IDX --qrels Q --queries F [--repeat 5]

`versioned`: for each question whose answer changed between revisions, is the newest revision the
family's best-ranked document, and how many older revisions reach the top 5, with the plain
pipeline, --recency 365d at weights 0.3 and 0.5, and --latest.
`scifact`: nDCG@10 and the run itself with and without --latest (a corpus with no versions must not
change), the time of both (alternating, median of --repeat), and nDCG@10 under --recency (SciFact
has no meaningful dates: give it random ones, so any change is recency burying relevance).
Run it with PYTHONPATH pointing at another checkout to measure that checkout's formula.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import fields
from pathlib import Path

from ragchain_cli.evaluation import evaluate, read_qrels, read_queries
from ragchain_cli.evaluation.runner import run_queries
from ragchain_cli.retrieve.pipeline import SearchOptions, SearchPipeline
from ragchain_cli.stores.index import Index

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
YEAR = 365 * 86400.0
CONFIGS = {"plain": {}, "recency 365d w0.3": {"recency": YEAR, "recency_weight": 0.3},
           "recency 365d w0.5": {"recency": YEAR, "recency_weight": 0.5}, "latest": {"latest": True}}


def options(**kwargs) -> SearchOptions:
    known = {f.name for f in fields(SearchOptions)}
    return SearchOptions(depth=1000, **{k: v for k, v in kwargs.items() if k in known})


def versioned(index: Index) -> None:
    import versioned_corpus as vc

    print("| configuration | newest revision first (of its family) | older revisions in top 5 |\n|---|---|---|")
    for name, extra in CONFIGS.items():
        if "latest" in extra and "latest" not in {f.name for f in fields(SearchOptions)}:
            continue
        pipeline = SearchPipeline(index, options(k=5, documents=True, **extra))
        first = older = 0
        for item in vc.QUESTIONS:
            names = [Path(h.doc_id).name for h in pipeline.search(item["question"])]
            family = vc.older_versions(item["newest"]) | {item["newest"]}
            ranked = [n for n in names if n in family]
            first += bool(ranked) and ranked[0] == item["newest"]
            older += len(set(names) & vc.older_versions(item["newest"]))
        print(f"| {name} | {first}/{len(vc.QUESTIONS)} | {older} |")


def scifact(index: Index, qrels: Path, queries: Path, repeat: int) -> None:
    judged = read_qrels(qrels)
    texts = {q: t for q, t in read_queries(queries).items() if q in judged}
    runs, seconds = {}, {"plain": [], "latest": []}
    for _ in range(repeat):  # alternate, so load changes hit both alike
        for name in seconds:
            started = time.perf_counter()
            pipeline = SearchPipeline(index, options(k=100, documents=True, latest=name == "latest"))
            runs[name] = run_queries(pipeline, texts)
            seconds[name].append(time.perf_counter() - started)
    plain, latest = (statistics.median(seconds[n]) for n in ("plain", "latest"))
    same = runs["plain"] == runs["latest"]
    print(f"{len(texts)} queries; run identical with --latest: {same}; "
          f"nDCG@10 {evaluate(judged, runs['plain'], ['ndcg@10'])['ndcg@10']:.4f} -> "
          f"{evaluate(judged, runs['latest'], ['ndcg@10'])['ndcg@10']:.4f}; median s plain {plain:.2f}, "
          f"latest {latest:.2f}, ratio {latest / plain:.3f} (runs: {seconds})")
    for name, extra in CONFIGS.items():
        if "recency" in extra:
            run = run_queries(SearchPipeline(index, options(k=100, documents=True, **extra)), texts)
            print(f"{name}: nDCG@10 {evaluate(judged, run, ['ndcg@10'])['ndcg@10']:.4f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["versioned", "scifact"])
    parser.add_argument("--index", required=True, type=Path)
    parser.add_argument("--qrels", type=Path)
    parser.add_argument("--queries", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    index = Index(args.index)
    try:
        if args.what == "versioned":
            versioned(index)
        else:
            scifact(index, args.qrels, args.queries, args.repeat)
    finally:
        index.close()


if __name__ == "__main__":
    main()
