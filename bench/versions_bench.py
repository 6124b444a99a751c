"""Versions, --latest and --recency, measured (issue 17).

    python bench/versions_bench.py versioned --index IDX       # IDX: tests/versioned_corpus.py ingested
    python bench/versions_bench.py scifact --index IDX --qrels Q --queries F [--repeat 5]
    python bench/versions_bench.py thresholds --corpus ../shared/data/scifact/corpus.jsonl.gz
    python bench/versions_bench.py ask --index IDX [--llm NAME]            # IDX: the versioned corpus
    python bench/versions_bench.py qa --index QA_IDX --questions bench/qa/quick-A.jsonl [-n 20] [--llm NAME]

`versioned`: for each question whose answer changed between revisions, is the newest revision the
family's best-ranked document, and how many older revisions reach the top 5, with the plain
pipeline, --recency 365d at weights 0.3 and 0.5, and --latest.
`scifact`: nDCG@10 and the run itself with and without --latest (a corpus with no versions must not
change), the time of both (alternating, median of --repeat), and nDCG@10 under --recency (SciFact
has no meaningful dates: give it random ones, so any change is recency burying relevance).
`ask` (issue 32): each question of the versioned corpus asked with `--versions all` and with the
default `--versions newest`, one loaded model; per question whether an older revision ranks first
in the search, which documents the answer cites, whether it holds the newest revision's answer,
and whether the note on what changed was added.
`qa` (issue 32): questions of a corpus with no versions asked with both settings alternately
(which goes first alternates too): are answers and citations identical, the median total seconds
of each and their ratio, and the time the version hook itself takes per question.
Run it with PYTHONPATH pointing at another checkout to measure that checkout's formula.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from dataclasses import fields
from pathlib import Path

from ragchain_cli.evaluation import evaluate, read_qrels, read_queries
from ragchain_cli.evaluation.runner import run_queries
from ragchain_cli.retrieve.pipeline import SearchOptions, SearchPipeline, search_options
from ragchain_cli.stores.index import Index

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
YEAR = 365 * 86400.0
CONFIGS = {"plain": {}, "recency 365d w0.3": {"recency": YEAR, "recency_weight": 0.3},
           "recency 365d w0.5": {"recency": YEAR, "recency_weight": 0.5}, "latest": {"latest": True}}


def options(**kwargs) -> SearchOptions:
    """The CLI's defaults (search_options) with these fields; fields this version lacks are left out."""
    known = {f.name for f in fields(SearchOptions)}
    return dataclasses.replace(search_options(), **{k: v for k, v in kwargs.items() if k in known})


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
    print(f"version linking of all {index.docstore.counts()['documents']} documents: {linking_cost(index):.2f} s")
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


def linking_cost(index: Index, batch_chunks: int = 1024) -> float:
    """Seconds the version linking of every stored document takes, redone in batches as ingest does
    (inside a transaction that is rolled back, so the index is unchanged)."""
    from ragchain_cli.ingest.versions import VersionLinker
    from ragchain_cli.types import Document

    conn = index.docstore.conn
    items, pending = [], []
    for doc_id, path, source, title in conn.execute("SELECT doc_id, file_path, source, title FROM documents"):
        rows = conn.execute("SELECT chunk_id FROM chunks WHERE doc_id = ? ORDER BY ordinal", (doc_id,))
        ids = [row[0] for row in rows]
        chunks = index.docstore.chunks(ids)
        vectors = index.vectors.vectors(ids)
        pending.append((path, Document(doc_id, source, (), title=title), [chunks[i] for i in ids],
                        [vectors[i] for i in ids]))
        if sum(len(p[2]) for p in pending) >= batch_chunks:
            items.append(pending)
            pending = []
    items.append(pending)
    conn.execute("BEGIN IMMEDIATE")
    try:
        for table in ("version_docs", "version_bands", "version_links"):
            conn.execute(f"DELETE FROM {table}")
        started = time.perf_counter()
        for batch in items:
            VersionLinker(conn, index.vectors.vectors).record(batch)
        return time.perf_counter() - started
    finally:
        conn.execute("ROLLBACK")


def ask_versions(index_path: Path, llm: str) -> None:
    import versioned_corpus as vc
    from ragchain_cli.config import load_settings
    from ragchain_cli.answer.assemble import open_workflow
    from ragchain_cli.answer.workflow import AskOptions

    settings = load_settings({"index": str(index_path), "llm": llm}, config_files=[])
    totals = {"all": [0, 0, 0], "newest": [0, 0, 0]}  # cites the newest only, holds its answer, cites an older
    older_first = 0
    print("| question | older first | mode | cites | newest's answer | note |\n|---|---|---|---|---|---|")
    with open_workflow(settings, AskOptions()) as workflow:
        for item in vc.QUESTIONS:
            family = vc.older_versions(item["newest"]) | {item["newest"]}
            ranked = [n for n in (Path(h.doc_id).name for h in workflow.search(item["question"]).hits) if n in family]
            first_older = bool(ranked) and ranked[0] != item["newest"]
            older_first += first_older
            for mode in ("all", "newest"):
                workflow.options = AskOptions(versions=mode)
                payload = workflow.ask(item["question"])
                answer, _, note = payload["answer"].partition(" (The older version, ")
                cites = sorted({Path(c["doc_id"]).name for c in payload["citations"] if c.get("cited", True)})
                holds = payload["answered"] and any(a.lower() in answer.lower() for a in item["answer"])
                only_newest = item["newest"] in cites and not set(cites) & vc.older_versions(item["newest"])
                totals[mode][0] += only_newest
                totals[mode][1] += holds
                totals[mode][2] += bool(set(cites) & vc.older_versions(item["newest"]))
                print(f"| {item['question']} | {'yes' if first_older else 'no'} | {mode} | {', '.join(cites) or '-'} | "
                      f"{'yes' if holds else 'no'} | {'yes' if note else '-'} |", flush=True)
    n = len(vc.QUESTIONS)
    print(f"\nolder revision ranked first: {older_first}/{n}")
    for mode, (newest, holds, older) in totals.items():
        print(f"{mode}: cites the newest revision and no older one {newest}/{n}; holds the newest answer "
              f"{holds}/{n}; cites an older revision {older}/{n}")


def ask_qa(index_path: Path, questions: Path, n: int, llm: str) -> None:
    import json

    from ragchain_cli.config import load_settings
    from ragchain_cli.answer.versions import reconcile, with_versions
    from ragchain_cli.answer.workflow import best_sentence
    from ragchain_cli.answer.assemble import open_workflow
    from ragchain_cli.answer.workflow import AskOptions

    rows = [json.loads(line) for line in questions.read_text().splitlines() if line.strip()]
    asked = [r["question"] for r in rows][:n]
    settings = load_settings({"index": str(index_path), "llm": llm}, config_files=[])
    seconds: dict[str, list[float]] = {"all": [], "newest": []}
    same = 0
    hook_seconds = []
    with open_workflow(settings, AskOptions()) as workflow:
        workflow.ask(asked[0])  # warm-up: encoder, model, caches
        for i, question in enumerate(asked):
            payloads = {}
            for mode in (("all", "newest") if i % 2 == 0 else ("newest", "all")):
                workflow.options = AskOptions(versions=mode)
                payloads[mode] = workflow.ask(question)
                seconds[mode].append(payloads[mode]["timings"]["total"])
            a, b = payloads["all"], payloads["newest"]
            alike = (a["answer"], _cited(a), a["answered"], a.get("supported")) == \
                (b["answer"], _cited(b), b["answered"], b.get("supported"))
            same += alike
            if not alike:
                print(f"differs: {question!r}\n  all:    {a['answer']!r} {a.get('supported')}\n  newest: "
                      f"{b['answer']!r} {b.get('supported')}; passages read identical: "
                      f"{[h['chunk_id'] for h in a['hits']] == [h['chunk_id'] for h in b['hits']]}", file=sys.stderr)
            hits = workflow.search(question).hits
            started = time.perf_counter()
            chosen = reconcile(question, hits, "newest", workflow.versions)
            with_versions(b, chosen, lambda h: best_sentence(question, h, workflow.stats, workflow.encoder))
            hook_seconds.append(time.perf_counter() - started)
            print(f"{i + 1}/{len(asked)} all {seconds['all'][-1]:.2f}s newest {seconds['newest'][-1]:.2f}s  {question}",
                  file=sys.stderr, flush=True)
    all_, newest = (statistics.median(seconds[m]) for m in ("all", "newest"))
    print(f"{len(asked)} questions; identical answer, citations, answered and supported: {int(same)}/{len(asked)}; "
          f"median total s: all {all_:.2f}, newest {newest:.2f}, ratio newest/all {newest / all_:.3f}; "
          f"version hook median {statistics.median(hook_seconds) * 1e6:.0f} us a question")


def _cited(payload: dict) -> list[tuple]:
    return [(c["doc_id"], c["chunk_id"], c.get("cited", True)) for c in payload.get("citations", [])]


def thresholds(corpus: Path) -> None:
    """Near-duplicate Jaccard on SciFact: unrelated pairs that share an LSH band (the hardest
    negatives) against the same abstracts with one sentence, or a third of them, replaced."""
    import gzip
    import itertools
    import json
    import random
    import re

    from ragchain_cli.ingest.versions import bands, jaccard, shingles

    docs = [json.loads(line)["text"] for line in gzip.open(corpus, "rt", encoding="utf-8")]
    sets = [shingles([text]) for text in docs]
    by_band: dict[int, list[int]] = {}
    for i, found in enumerate(sets):
        for key in bands(found):
            by_band.setdefault(key, []).append(i)
    pairs = {tuple(p) for ids in by_band.values() for p in itertools.combinations(sorted(ids), 2)}
    negatives = sorted((jaccard(sets[a], sets[b]) for a, b in pairs), reverse=True)
    print(f"{len(docs)} abstracts; {len(pairs)} pairs share a band; their Jaccard, highest: "
          f"{[round(v, 3) for v in negatives[:8]]}")
    rng = random.Random(7)
    for half in (0, 1):
        for share in (1, 3):
            values = []
            for i in range(half, len(docs), 2):
                sentences = re.split(r"(?<=[.!?])\s+", docs[i])
                if len(sentences) < 4:
                    continue
                edited = list(sentences)
                for j in rng.sample(range(len(sentences)), max(1, len(sentences) // share if share > 1 else 1)):
                    edited[j] = rng.choice(re.split(r"(?<=[.!?])\s+", docs[rng.randrange(len(docs))]))
                values.append(jaccard(sets[i], shingles([" ".join(edited)])))
            values.sort()
            edit = "one sentence" if share == 1 else "a third of the sentences"
            print(f"half {'AB'[half]}, {edit} replaced: n={len(values)} min {values[0]:.3f} "
                  f"p5 {values[len(values) // 20]:.3f} median {statistics.median(values):.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["versioned", "scifact", "thresholds", "ask", "qa"])
    parser.add_argument("--llm", default="", help="ask, qa: catalogue name or GGUF (default: the best installed)")
    parser.add_argument("--questions", type=Path, help="qa: JSONL with a question field")
    parser.add_argument("-n", type=int, default=20, help="qa: how many questions")
    parser.add_argument("--corpus", type=Path, help="thresholds: a BEIR corpus.jsonl.gz")
    parser.add_argument("--index", type=Path)
    parser.add_argument("--qrels", type=Path)
    parser.add_argument("--queries", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if args.what == "thresholds":
        return thresholds(args.corpus)
    if args.what == "ask":
        return ask_versions(args.index, args.llm)
    if args.what == "qa":
        return ask_qa(args.index, args.questions, args.n, args.llm)
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
