"""Diagnostic: BM25 over WHOLE abstracts (no chunking) through ragchain's own LexicalIndex wrapper.

    python bench/bm25_whole.py --data ../shared/data/scifact

Separates the two causes a gap to the prototype's whole-abstract BM25 (0.701 nDCG@10, train) can
have: chunking plus max-passage, or the lexical stack itself (en_stem tokenizer, plain_terms query
cleaning, lenient parsing). Indexes `title\\ntext` (what Chunk.index_text() gives) per document into
a temporary Tantivy index with ragchain_cli.stores.lexical.LexicalIndex; no embedding, ~1 minute.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import benchlib

from ragchain_cli.evaluation.metrics import evaluate
from ragchain_cli.evaluation.readers import read_qrels, read_queries
from ragchain_cli.stores.lexical import LexicalIndex


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--out", default="bm25_whole.md")
    args = parser.parse_args(argv)
    data = Path(args.data)
    docs = benchlib.read_jsonl(benchlib.corpus_path(args.data))
    queries = read_queries(data / "queries.jsonl")
    qrels = read_qrels(data / "qrels-train.tsv")
    rows = []
    with tempfile.TemporaryDirectory(prefix="bm25-whole-") as tmp:
        lexical = LexicalIndex(Path(tmp) / "lexical")
        started = time.perf_counter()
        texts = [(d["_id"], f"{d['title'].strip()}\n{d['text'].strip()}" if d["title"].strip() else d["text"].strip())
                 for d in docs]
        lexical.apply([], texts)
        build = time.perf_counter() - started
        run = {}
        for qid in qrels:
            run[qid] = {doc: score for doc, score in lexical.search(queries[qid], 100)}
        lexical.close()
    means = evaluate(qrels, run, ["ndcg@10", "recall@100"])
    rows.append(["whole abstracts (title\\ntext), LexicalIndex en_stem", len(docs), means["ndcg@10"],
                 means["recall@100"], f"{build:.1f}"])
    text = "\n".join([
        "# BM25 on whole SciFact abstracts through ragchain's LexicalIndex (train queries)", "",
        f"Machine: {benchlib.machine()}. Scores: trec_eval definitions (ties by descending docid). "
        f"Prototype reference: 0.701 nDCG@10. Command: `{' '.join(['python', *sys.argv])}`", "",
        benchlib.table(["index", "documents", "nDCG@10", "Recall@100", "build s"], rows),
    ])
    benchlib.write_report(args.out, text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
