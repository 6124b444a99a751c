"""Ingest benchmark: the real `ingest()` on a BEIR corpus versus the embedding model alone.

    python bench/ingest_bench.py --data ../shared/data/scifact [--repeat 3]

Each repeat ingests the corpus into a fresh temporary index with the default IngestOptions and,
in the same process and the same repeat, embeds the very chunk texts the ingest produced (read
back from the docstore, `[c.index_text() for c in chunks]`) in one `embedder.embed(texts)` call.
The model is loaded and warmed up (a small throwaway ingest also pays the one-off imports of
Tantivy and LanceDB) before anything is timed, so model load is excluded from both sides.
Repeats alternate the order (ingest first, then embed first) so slow drift in the machine's
load does not always favour the same side. The ratio is ingest seconds / embed seconds of the
same repeat; the report gives medians over the repeats, and a per-stage breakdown of the ingest
measured by wrapping the pipeline's own functions (in this process only).

Results: Markdown on stdout and in bench/out/ingest.md. `--profile` also writes a cProfile of
one more ingest to bench/out/ingest.prof and prints its top functions.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import sys
import tempfile
from pathlib import Path

import benchlib

from ragchain_cli.ingest.chunking import Chunker
from ragchain_cli.ingest.pipeline import IngestOptions, ingest, ingest_options
from ragchain_cli.ingest.writer import BatchWriter
from ragchain_cli.stores.docstore import DocStore
from ragchain_cli.stores.embedders import SentenceTransformerEmbedder, load_embedder
from ragchain_cli.stores.index import Index
from ragchain_cli.stores.lexical import LexicalIndex

MODEL = "all-MiniLM-L6-v2"


def stage_targets():
    """(owner, attribute, stage) for every step of ingest() worth timing on its own."""
    from ragchain_cli.ingest.loaders import jsonl as jsonl_loader
    from ragchain_cli.stores.vectors import VectorIndex

    return [
        (jsonl_loader, "parse_line", "load: parse JSONL lines"),
        (Chunker, "chunk", "chunk: tokenize + split"),
        (BatchWriter, "flush", "flush (total)"),
        (SentenceTransformerEmbedder, "embed", "  embed"),
        (DocStore, "put_documents", "  sqlite: put documents"),
        (DocStore, "put_chunks", "  sqlite: put chunks"),
        (DocStore, "journal", "  sqlite: journal (+vector blobs)"),
        (Index, "replay", "  replay (total)"),
        (DocStore, "pending", "    sqlite: read journal"),
        (DocStore, "chunks", "    sqlite: read chunks"),
        (Index, "rebuild_documents", "    whole documents (total)"),
        (DocStore, "document_texts", "      sqlite: rebuild document texts"),
        (LexicalIndex, "apply", "    tantivy: add + commit (chunks and whole documents)"),
        (VectorIndex, "apply", "    lancedb: add"),
        (DocStore, "clear_pending", "    sqlite: clear journal"),
        (BatchWriter, "optimize", "lancedb: optimize"),
    ]


def run_ingest(corpus: Path, options: IngestOptions, scratch: Path, watch: benchlib.Stopwatch | None = None):
    """One ingest into a fresh index; returns (wall s, CPU s, close() s, report, chunk texts)."""
    root = Path(tempfile.mkdtemp(prefix="ingest-", dir=scratch))
    index = Index(root, create=True)
    gc.collect()
    try:
        if watch is not None:
            with watch.active(stage_targets()):
                seconds, cpu, report = benchlib.timed_cpu(ingest, index, [corpus], options)
        else:
            seconds, cpu, report = benchlib.timed_cpu(ingest, index, [corpus], options)
        closing, _ = benchlib.timed(index.close)
        reader = DocStore(root / "docstore.sqlite", readonly=True)
        try:
            chunks = reader.chunks(sorted(reader.chunk_ids()))
        finally:
            reader.close()
        texts = [c.index_text() for c in chunks.values()]
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return seconds, cpu, closing, report, texts


def run_embed(texts: list[str]) -> tuple[float, float]:
    """The model alone on the same texts, one call (it batches internally): (wall s, CPU s)."""
    embedder = load_embedder(MODEL)
    gc.collect()
    seconds, cpu, vectors = benchlib.timed_cpu(embedder.embed, texts)
    assert len(vectors) == len(texts)
    return seconds, cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, help="BEIR folder holding corpus.jsonl.gz")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--limit", type=int, default=0, help="only the first N documents (0 = all)")
    parser.add_argument("--chunk-size", type=int, default=None, help="default: config.Settings' default")
    parser.add_argument("--chunk-overlap", type=int, default=None)
    parser.add_argument("--profile", action="store_true", help="cProfile one more ingest")
    parser.add_argument("--out", default="ingest.md", help="report file name under bench/out/")
    args = parser.parse_args(argv)

    scratch = Path(tempfile.mkdtemp(prefix="ragchain-bench-"))
    corpus = benchlib.corpus_path(args.data)
    if args.limit:
        corpus = benchlib.subset_corpus(corpus, args.limit, scratch)
    extra = {k: v for k, v in (("chunk_size", args.chunk_size), ("chunk_overlap", args.chunk_overlap)) if v}
    options = ingest_options(embed_model=MODEL, **extra)

    # Warm-up: model load, one embed, and a tiny ingest that pays the Tantivy/LanceDB imports.
    load_seconds, _ = benchlib.timed(load_embedder, MODEL)
    warm = benchlib.subset_corpus(benchlib.corpus_path(args.data), 50, scratch)
    warm_seconds, _ = benchlib.timed(run_ingest, warm, options, scratch)
    print(f"model load {load_seconds:.1f}s, warm-up ingest of 50 docs {warm_seconds:.1f}s", file=sys.stderr)

    rows, watches, texts = [], [], None
    for repeat in range(args.repeat):
        watch = benchlib.Stopwatch()
        embed_first = repeat % 2 == 1 and texts is not None
        if embed_first:
            embed_s, embed_cpu = run_embed(texts)
        ingest_s, ingest_cpu, close_s, report, texts = run_ingest(corpus, options, scratch, watch)
        if not embed_first:
            embed_s, embed_cpu = run_embed(texts)
        row = {
            "repeat": repeat + 1, "order": "embed, ingest" if embed_first else "ingest, embed",
            "docs": report.documents, "chunks": report.chunks_added, "ingest_s": ingest_s, "close_s": close_s,
            "embed_s": embed_s, "ratio": ingest_s / embed_s, "ratio_close": (ingest_s + close_s) / embed_s,
            "ingest_cpu": ingest_cpu, "embed_cpu": embed_cpu, "ratio_cpu": ingest_cpu / embed_cpu,
            "embed_in_ingest": watch.seconds.get("  embed", 0.0),
            "ratio_inside": ingest_s / watch.seconds.get("  embed", float("nan")),
            "load": os.getloadavg()[0],
        }
        rows.append(row)
        watches.append(watch)
        print(f"repeat {repeat + 1}: ingest {ingest_s:.1f}s wall / {ingest_cpu:.1f}s CPU (+close {close_s:.2f}s), "
              f"embed {embed_s:.1f}s wall / {embed_cpu:.1f}s CPU, ratio {row['ratio']:.3f} wall, "
              f"{row['ratio_cpu']:.3f} CPU, {report.chunks_added} chunks, load {row['load']:.1f}",
              file=sys.stderr, flush=True)

    keys = ("ingest_s", "close_s", "embed_s", "ratio", "ratio_close", "ingest_cpu", "embed_cpu", "ratio_cpu",
            "ratio_inside")
    med = {key: benchlib.median([r[key] for r in rows]) for key in keys}
    chunks = rows[0]["chunks"]
    verdict = "OK" if med["ratio"] <= 1.15 else "MISSED"
    out = [f"# Ingest benchmark: {corpus.name}" + (f" (first {args.limit} docs)" if args.limit else ""),
           "",
           f"Machine: {benchlib.machine()}. Model {MODEL}, chunk {options.chunk_size}/{options.chunk_overlap} "
           f"tokens, batch_chunks {options.batch_chunks}. Model load ({load_seconds:.1f}s) and one-off imports "
           f"excluded (warm-up before timing). CPU = process CPU time over all threads (time.process_time), "
           f"which other jobs on the machine disturb far less than wall time. "
           f"Command: `{' '.join(['python', *sys.argv])}`",
           "",
           f"## Medians over {len(rows)} repeats",
           "",
           benchlib.table(
               ["docs", "chunks", "ingest s", "chunks/s", "embed-only s", "embed-only chunks/s",
                "ratio wall", "ratio wall incl. close()", "ratio CPU", "ingest / embed inside ingest",
                "target <= 1.15"],
               [[rows[0]["docs"], chunks, med["ingest_s"], chunks / med["ingest_s"], med["embed_s"],
                 chunks / med["embed_s"], med["ratio"], med["ratio_close"], med["ratio_cpu"], med["ratio_inside"],
                 verdict]],
           ),
           "",
           "## Each repeat (ratios compare the ingest and the embed-only pass of the same repeat)",
           "",
           benchlib.table(["repeat", "order", "ingest s", "ingest CPU s", "close s", "embed s", "embed CPU s",
                           "ratio wall", "ratio CPU", "load avg (1 min)"],
                          [[r["repeat"], r["order"], r["ingest_s"], r["ingest_cpu"], r["close_s"], r["embed_s"],
                            r["embed_cpu"], r["ratio"], r["ratio_cpu"], f"{r['load']:.1f}"] for r in rows]),
           "",
           "## Where ingest() spends its time (median over repeats; '. ' = inside the line above)",
           "",
           ]
    out.append(stage_table(watches, [r["ingest_s"] for r in rows], [r["ingest_cpu"] for r in rows]))
    text = "\n".join(out)

    if args.profile:
        import cProfile
        import io
        import pstats

        profiler = cProfile.Profile()
        profiler.enable()
        run_ingest(corpus, options, scratch)
        profiler.disable()
        prof_path = benchlib.OUT / "ingest.prof"
        benchlib.OUT.mkdir(parents=True, exist_ok=True)
        profiler.dump_stats(str(prof_path))
        buffer = io.StringIO()
        pstats.Stats(profiler, stream=buffer).sort_stats("cumulative").print_stats(40)
        text += "\n\n## cProfile of one more ingest (cumulative, top 40)\n\n```\n" + buffer.getvalue() + "\n```"

    shutil.rmtree(scratch, ignore_errors=True)
    path = benchlib.write_report(args.out, text)
    print(text)
    print(f"\nwritten to {path}", file=sys.stderr)
    return 0


def stage_table(watches: list[benchlib.Stopwatch], walls: list[float], cpus: list[float]) -> str:
    """Median wall and CPU seconds per stage, with its share of the (median) whole ingest."""
    ingest_s, ingest_cpu = benchlib.median(walls), benchlib.median(cpus)
    stages = [stage for _, _, stage in stage_targets()]
    top = [st for st in stages if not st.startswith(" ")]
    in_flush = [st for st in stages if st.startswith("  ") and not st.startswith("    ")]
    rows = []

    def add(label: str, wall: list[float], cpu: list[float]) -> None:
        w, c = benchlib.median(wall), benchlib.median(cpu)
        rows.append([label, w, f"{100 * w / ingest_s:.1f}%", c, f"{100 * c / ingest_cpu:.1f}%"])

    for stage in stages:
        depth = (len(stage) - len(stage.lstrip())) // 2
        add(". " * depth + stage.strip(), [w.seconds.get(stage, 0.0) for w in watches],
            [w.cpu.get(stage, 0.0) for w in watches])
    add(". flush other (ops + vector bytes, BEGIN/COMMIT, drop_files)",
        [w.seconds.get("flush (total)", 0) - sum(w.seconds.get(st, 0) for st in in_flush) for w in watches],
        [w.cpu.get("flush (total)", 0) - sum(w.cpu.get(st, 0) for st in in_flush) for w in watches])
    add("other (discover, hash, bind, lock, ...)",
        [t - sum(w.seconds.get(st, 0) for st in top) for t, w in zip(walls, watches)],
        [t - sum(w.cpu.get(st, 0) for st in top) for t, w in zip(cpus, watches)])
    add("everything but the embedding",
        [t - w.seconds.get("  embed", 0) for t, w in zip(walls, watches)],
        [t - w.cpu.get("  embed", 0) for t, w in zip(cpus, watches)])
    return benchlib.table(["stage", "wall s", "share", "CPU s", "CPU share"], rows)


if __name__ == "__main__":
    sys.exit(main())
