"""Issue 34: text normalisation (text/normalize.py) and accent folding (text/analyzer.py), before
against after, side by side in one run.

    python bench/normalize_bench.py --before DIR --data ../shared/data/scifact \
        --pdfs ../shared/data/pdfs/text [--limit 300] [--repeat 3] [--only pdfs,scifact,stages,ingest]

--before is a copy of the package before the change (e.g. `git archive BASE ragchain_cli | tar -x -C DIR`);
"after" is this checkout. Three parts:

- pdfs: both versions ingest the PDFs (`ragchain ingest`, subprocesses) into scratch indexes. Counted:
  stored chunks holding a character NFKC changes (or a soft hyphen / zero-width character), and, for
  every sentence of the PDFs' text layers holding a ligature (U+FB00-FB06), whether `ragchain search
  WORD --retrievers bm25 -k 1000` for the ligature word typed plainly ("ﬁrst" -> first) returns the
  chunk holding that sentence (the chunk whose text, whitespace collapsed, holds the words around it).
- scifact: BM25 nDCG@10 / Recall@100 on SciFact's train queries, document level. Both arms chunk the
  corpus with the same real chunker (the ingest's loader and chunker); "before" stores the text as
  loaded and indexes it with Tantivy's en_stem chain, "after" normalises it (the ingest's own
  storable_document) and indexes with ANALYZER; queries are normalised in "after" as SearchPipeline
  does. Rows: chunks with max-passage, and whole documents (title + text). No embedding: BM25 only.
- stages: the two steps the change adds, alone: normalize() over every abstract, and Tantivy
  indexing with en_stem against en_stem_fold_v1 (process CPU seconds, alternating).
- ingest: `ragchain ingest` of the first --limit SciFact documents into a fresh index, before and
  after alternating, --repeat times each, subprocesses: the ingest's own seconds, chunks/s and the
  child's CPU seconds; medians and after/before ratios.

Results: Markdown on stdout and in bench/out/normalize.md. Scratch under bench/out/normalize/.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import sqlite3
import subprocess
import sys
import time
import unicodedata
from pathlib import Path

import benchlib

from ragchain_cli.text.normalize import INVISIBLE, normalize

ROOT = Path(__file__).resolve().parent.parent
SCRATCH = benchlib.OUT / "normalize"
LIGATURE = re.compile("[\ufb00-\ufb06]")
LIGATURE_WORD = re.compile(r"[^\W_]*[\ufb00-\ufb06][^\W_]*")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


# -- running either version -------------------------------------------------------------------
def ragchain(code: Path, *args: str, stdin: str | None = None) -> tuple[subprocess.CompletedProcess, float]:
    """`python -m ragchain_cli ARGS` run in `code` (so its package is the one imported; paths given
    absolute); the child's CPU seconds."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-m", "ragchain_cli", *args], env=env, input=stdin, cwd=code,
                          capture_output=True, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 3):
        raise SystemExit(f"ragchain {' '.join(args[:2])} failed ({done.returncode}): {done.stderr[-2000:]}")
    return done, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def fresh(path: Path) -> Path:
    shutil.rmtree(path, ignore_errors=True)
    return path


def chunk_texts(index: Path) -> dict[str, tuple[str, str]]:
    with sqlite3.connect(index / "docstore.sqlite") as conn:
        return {cid: (doc, text) for cid, doc, text in conn.execute("SELECT chunk_id, doc_id, text FROM chunks")}


# -- pdfs ---------------------------------------------------------------------------------------
def flat(text: str) -> str:
    return " ".join(normalize(text).split())


def ligature_sentences(pdfs: Path) -> list[tuple[str, str, str]]:
    """(file name, plain word, the words around it) for every ligature occurrence in the text layers."""
    import pymupdf

    from ragchain_cli.ingest.loaders.pdf import page_text

    found = []
    for path in sorted(pdfs.glob("*.pdf")):
        with pymupdf.open(str(path)) as doc:
            text = "\n".join(page_text(page) for page in doc)
        for sentence in SENTENCE_END.split(text):
            tokens = sentence.split()
            for i, token in enumerate(tokens):
                for match in LIGATURE_WORD.finditer(token):
                    found.append((path.name, normalize(match.group()), flat(" ".join(tokens[max(0, i - 3) : i + 3]))))
    return found


def pdf_part(before_code: Path, pdfs: Path) -> str:
    occurrences = ligature_sentences(pdfs)
    words = sorted({word for _, word, _ in occurrences})
    rows = []
    for label, code in (("before", before_code), ("after", ROOT)):
        index = fresh(SCRATCH / f"pdfs-{label}")
        ragchain(code, "ingest", str(pdfs), "--index", str(index), "--json")
        chunks = chunk_texts(index)
        changed = sum(1 for _, t in chunks.values() if unicodedata.normalize("NFKC", t) != t or set(t) & set(INVISIBLE))
        lines, _ = ragchain(code, "search", "-", "--retrievers", "bm25", "-k", "1000", "--index", str(index),
                            "--json", stdin="\n".join(words) + "\n")
        hits = {json.loads(line)["query"]: [h["chunk_id"] for h in json.loads(line)["hits"]]
                for line in lines.stdout.splitlines() if line.strip()}
        found = checkable = 0
        for name, word, context in occurrences:
            holders = {cid for cid, (doc, text) in chunks.items() if doc.endswith(name) and context in flat(text)}
            if not holders:
                continue  # the sentence's words are cut across chunks: not checkable this way
            checkable += 1
            found += bool(holders & set(hits.get(word, [])))
        rows.append([label, len(chunks), changed, len(occurrences), checkable, found])
    table = benchlib.table(["version", "chunks", "chunks holding a character NFKC changes (or U+00AD/zero-width)",
                            "ligature occurrences", "checkable (sentence's words in one chunk)",
                            "found by bm25 search of the plain word"], rows)
    return f"### PDFs ({pdfs})\n\n{len(words)} distinct ligature words.\n\n{table}\n"


# -- scifact BM25 -------------------------------------------------------------------------------
def en_stem():
    import tantivy

    return (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple()).filter(tantivy.Filter.remove_long(40))
            .filter(tantivy.Filter.lowercase()).filter(tantivy.Filter.stemmer("english")).build())


def lexical_index(path: Path, old: bool):
    """A real LexicalIndex; `old`: built as before issue 34 (tokenizer en_stem, no folding)."""
    from ragchain_cli.stores import lexical

    saved = lexical.TOKENIZER, lexical.analyzer
    if old:
        lexical.TOKENIZER, lexical.analyzer = "en_stem", en_stem
    try:
        return lexical.LexicalIndex(fresh(path))
    finally:
        lexical.TOKENIZER, lexical.analyzer = saved


def chunked_corpus(corpus: Path, normalise: bool):
    """(documents, chunks) of the corpus as the ingest makes them, with or without the normalisation."""
    from ragchain_cli.ingest import tasks
    from ragchain_cli.ingest.loaders import LoadOptions, iter_load
    from ragchain_cli.ingest.tasks import chunker_for

    from ragchain_cli.stores.embedders import model_reference

    settings = tasks.DEFAULTS
    chunker = chunker_for(model_reference(settings.embed_model), settings.chunk_size, settings.chunk_overlap)
    saved = tasks.normalize
    tasks.normalize = tasks.normalize if normalise else (lambda text: text)
    try:
        docs = [tasks.storable_document(d) for d in iter_load(corpus, "scifact", LoadOptions())]
    finally:
        tasks.normalize = saved
    return docs, [c for d in docs for c in chunker.chunk(d)]


def scifact_part(data: Path) -> str:
    from ragchain_cli.evaluation.metrics import evaluate
    from ragchain_cli.evaluation.readers import read_qrels, read_queries

    qrels = read_qrels(data / "qrels-train.tsv")
    queries = {qid: text for qid, text in read_queries(data / "queries.jsonl").items() if qid in qrels}
    rows = []
    for label, after in (("before", False), ("after", True)):
        started = time.perf_counter()
        docs, chunks = chunked_corpus(benchlib.corpus_path(str(data)), after)
        chunk_doc = {c.chunk_id: c.doc_id for c in chunks}
        passages = lexical_index(SCRATCH / f"scifact-chunks-{label}", old=not after)
        passages.apply([], [(c.chunk_id, c.index_text()) for c in chunks])
        whole = lexical_index(SCRATCH / f"scifact-docs-{label}", old=not after)
        whole.apply([], [(d.doc_id, "\n".join([d.title, *(b.text for b in d.blocks)])) for d in docs])
        built = time.perf_counter() - started
        runs = {"chunks, max-passage": {}, "whole documents": {}}
        for qid, text in queries.items():
            query = normalize(text) if after else text
            best: dict[str, float] = {}
            for cid, score in passages.search(query, 1000):
                best.setdefault(chunk_doc[cid], score)
            runs["chunks, max-passage"][qid] = best
            runs["whole documents"][qid] = dict(whole.search(query, 1000))
        for name, run in runs.items():
            scores = evaluate(qrels, run, ["ndcg@10", "recall@100"])
            rows.append([name, label, len(chunks), scores["ndcg@10"], scores["recall@100"], round(built, 1)])
        passages.close(), whole.close()
    rows.sort(key=lambda r: (r[0], r[1] != "before"))
    deltas = [f"- {rows[i][0]}: nDCG@10 after - before = {rows[i + 1][3] - rows[i][3]:+.4f}, "
              f"Recall@100 {rows[i + 1][4] - rows[i][4]:+.4f}" for i in range(0, len(rows), 2)]
    table = benchlib.table(["BM25 over", "version", "chunks", "nDCG@10", "Recall@100", "build s"],
                           [[*r[:3], f"{r[3]:.4f}", f"{r[4]:.4f}", r[5]] for r in rows])
    return f"### SciFact BM25 ({len(queries)} train queries)\n\n{table}\n\n" + "\n".join(deltas) + "\n"


# -- the two steps the change adds to an ingest, alone ----------------------------------------
def stages_part(data: Path, repeat: int) -> str:
    """Process CPU seconds of normalize() over every SciFact abstract, and of indexing them all in
    Tantivy with the old and the new analyzer (alternating, `repeat` times, medians)."""
    import gzip

    with gzip.open(benchlib.corpus_path(str(data)), "rt", encoding="utf-8") as handle:
        texts = [json.loads(line)["text"] for line in handle]
    times: dict[str, list[float]] = {"normalize()": [], "Tantivy, en_stem": [], "Tantivy, " + "en_stem_fold_v1": []}
    for _round in range(repeat):
        started = time.process_time()
        for text in texts:
            normalize(text)
        times["normalize()"].append(time.process_time() - started)
        for old, name in ((True, "Tantivy, en_stem"), (False, "Tantivy, en_stem_fold_v1")):
            index = lexical_index(SCRATCH / "stages", old=old)
            started = time.process_time()
            index.apply([], [(str(i), text) for i, text in enumerate(texts)])
            times[name].append(time.process_time() - started)
            index.close()
    rows = [[name, f"{benchlib.median(values):.3f}", ", ".join(f"{v:.3f}" for v in values)] for name, values in times.items()]
    table = benchlib.table(["step", "median CPU s", "runs"], rows)
    chars = sum(map(len, texts))
    return f"### The added steps alone ({len(texts)} SciFact abstracts, {chars:,} characters)\n\n{table}\n"


# -- ingest throughput ------------------------------------------------------------------------
def ingest_part(before_code: Path, data: Path, limit: int, repeat: int) -> str:
    corpus = benchlib.subset_corpus(benchlib.corpus_path(str(data)), limit, SCRATCH)
    results = {"before": [], "after": []}
    for _round in range(repeat):
        for label, code in (("before", before_code), ("after", ROOT)):
            index = fresh(SCRATCH / f"ingest-{label}")
            done, cpu = ragchain(code, "ingest", str(corpus), "--index", str(index), "--json")
            report = json.loads(done.stdout)
            results[label].append((report["seconds"], report["chunks_added"], cpu))
    rows = []
    for label, runs in results.items():
        seconds = benchlib.median([s for s, _, _ in runs])
        cpu = benchlib.median([c for _, _, c in runs])
        chunks = runs[0][1]
        rows.append([label, chunks, f"{seconds:.1f}", f"{chunks / seconds:.2f}", f"{cpu:.1f}",
                     ", ".join(f"{s:.1f}" for s, _, _ in runs)])
    def ratio(field: int) -> float:
        return benchlib.median([r[field] for r in results["after"]]) / benchlib.median([r[field] for r in results["before"]])

    ratio_wall, ratio_cpu = ratio(0), ratio(2)
    table = benchlib.table(["version", "chunks", "median ingest s", "chunks/s", "median child CPU s",
                            "ingest s per run"], rows)
    return (f"### Ingest throughput (first {limit} SciFact documents, {repeat} runs each, alternating)\n\n{table}\n\n"
            f"after/before: ingest seconds {ratio_wall:.3f}, child CPU seconds {ratio_cpu:.3f}\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, type=Path, help="the package before the change (its parent folder)")
    parser.add_argument("--data", default="../shared/data/scifact", type=Path)
    parser.add_argument("--pdfs", default="../shared/data/pdfs/text", type=Path)
    parser.add_argument("--limit", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", default="pdfs,scifact,stages,ingest")
    args = parser.parse_args(argv)
    if not (args.before / "ragchain_cli").is_dir():
        raise SystemExit(f"{args.before} holds no ragchain_cli package")
    SCRATCH.mkdir(parents=True, exist_ok=True)
    parts = args.only.split(",")
    out = [f"## normalize_bench ({benchlib.machine()})\n"]
    if "pdfs" in parts:
        out.append(pdf_part(args.before.resolve(), args.pdfs.resolve()))
    if "scifact" in parts:
        out.append(scifact_part(args.data))
    if "stages" in parts:
        out.append(stages_part(args.data, args.repeat))
    if "ingest" in parts:
        out.append(ingest_part(args.before.resolve(), args.data, args.limit, args.repeat))
    report = "\n".join(out)
    print(report)
    (benchlib.OUT / "normalize.md").write_text(report, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
