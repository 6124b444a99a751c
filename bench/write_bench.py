"""Write-only ingest benchmark: the real `ingest()` fed documents, chunks and vectors computed in
advance, so only the driver's side is timed (decisions, the Sink, BatchWriter: SQLite + journal,
version groups, Tantivy for chunks and whole documents, LanceDB, the final optimize).

    python bench/write_bench.py --data ../shared/data/scifact [--files 1] [--repeat 3]
    python bench/write_bench.py --data ../shared/data/scifact --compare /tmp/before-tree

Before anything is timed, each process loads and chunks the corpus with the real loader and
chunker (`tasks.prepared`) and gives every chunk a vector: a unit vector drawn from a generator
seeded with the chunk ID (identical in every process and every run), or, with `--vectors FILE`,
the real all-MiniLM-L6-v2 vectors cached there (computed once if the file does not exist: tens of
minutes for SciFact on this machine). An engine registered here as `cached` then hands them to
the Sink exactly as `--engine ray` hands what the cluster computed. Nothing is embedded in the
timed part: the embedder the writer would load raises if called.

`--files K` writes the corpus to K JSONL files first (round robin), to include per-file costs.
`--compare DIR` also runs the same measurement with the package found in DIR (a checkout of an
older commit, e.g. `git archive main | tar -x -C DIR`), alternating old and new in fresh
processes, so the before/after ratio is measured side by side. `--profile` writes a cProfile of
one more run (bench/out/write.prof) and prints its top functions.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import benchlib
import numpy as np

DIM = 384
MODEL = "all-MiniLM-L6-v2"


def split_corpus(corpus: Path, files: int, limit: int, folder: Path) -> Path:
    """The corpus (its first `limit` documents) as `files` JSONL files in a folder, round robin."""
    target = folder / f"corpus-{files}files-{limit or 'all'}"
    if target.exists():
        return target
    target.mkdir(parents=True)
    handles = [open(target / f"part{i:05d}.jsonl", "w", encoding="utf-8") for i in range(files)]
    with gzip.open(corpus, "rt", encoding="utf-8") as src:
        for number, line in enumerate(src):
            if limit and number >= limit:
                break
            handles[number % files].write(line)
    for handle in handles:
        handle.close()
    return target


def seeded_vector(chunk_id: str) -> np.ndarray:
    seed = int.from_bytes(hashlib.blake2b(chunk_id.encode(), digest_size=8).digest(), "little")
    vector = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
    return vector / np.linalg.norm(vector)


def prepare(folder: Path, vectors_file: str) -> list[tuple[str, list]]:
    """[(path, [(doc, chunks, {chunk_id: vector})])] for every file, loaded and chunked for real."""
    from ragchain_cli.ingest.pipeline import ingest_options
    from ragchain_cli.ingest.tasks import FileTask, prepared
    from ragchain_cli.stores.docstore import FileRecord

    options = ingest_options(embed_model=MODEL)
    files = []
    for path in sorted(folder.iterdir()):
        task = FileTask(str(path), path.name, FileRecord(str(path), "", 0, path.stat().st_mtime_ns))
        files.append((str(path), [(doc, chunks) for doc, chunks in prepared(task, options)]))
    cached = load_vectors(vectors_file, files) if vectors_file else {}
    return [(path, [(doc, chunks, {c.chunk_id: cached[c.chunk_id] if cached else seeded_vector(c.chunk_id)
                                   for c in chunks}) for doc, chunks in docs]) for path, docs in files]


def load_vectors(vectors_file: str, files) -> dict[str, np.ndarray]:
    """The real model's vectors by chunk ID, cached in `vectors_file` (.npz), computed when missing."""
    path = Path(vectors_file)
    chunks = [c for _, docs in files for _, cs in docs for c in cs]
    if not path.exists():
        from ragchain_cli.stores.embedders import load_embedder

        matrix = load_embedder(MODEL).embed([c.index_text() for c in chunks])
        np.savez(path, ids=np.array([c.chunk_id for c in chunks]), vectors=np.asarray(matrix, np.float32))
    data = np.load(path)
    found = dict(zip(data["ids"].tolist(), data["vectors"]))
    missing = [c.chunk_id for c in chunks if c.chunk_id not in found]
    if missing:
        raise SystemExit(f"{len(missing)} chunks have no vector in {path}: remove it to recompute")
    return found


class CachedEngine:
    """Hands the prepared documents with their vectors to the Sink, file by file (as the ray engine)."""

    prepared: dict[str, list] = {}

    def __init__(self, options) -> None:
        self.options = options

    def run(self, tasks, sink, progress=None) -> None:
        for task in tasks:
            for doc, chunks, vectors in self.prepared[task.path]:
                sink.document(task.key, doc, chunks, vectors)
            sink.finish(task)


def no_embedder():
    raise RuntimeError("the write bench feeds every vector: nothing may be embedded")


def stages():
    """(owner, attribute, stage) timed inside the run; the names exist before and after issue 30."""
    from ragchain_cli.ingest.versions import VersionLinker
    from ragchain_cli.ingest.writer import BatchWriter
    from ragchain_cli.stores import embedders
    from ragchain_cli.stores.index import Index
    from ragchain_cli.stores.lexical import LexicalIndex
    from ragchain_cli.stores.vectors import VectorIndex

    tantivy = [(LexicalIndex, "stage", "tantivy"), (LexicalIndex, "commit", "tantivy")] \
        if hasattr(LexicalIndex, "stage") else [(LexicalIndex, "apply", "tantivy")]  # replay stages, then commits
    return [(embedders, "matching_query_encoder", "bind"), (BatchWriter, "flush", "flush"),
            (VersionLinker, "record", "versions"), (Index, "replay", "replay"), *tantivy,
            (VectorIndex, "apply", "lancedb"), (BatchWriter, "optimize", "optimize")]


def one_run(folder: Path, scratch: Path, profile: str = "", batch_chunks: int = 1024) -> dict:
    """One ingest of the prepared corpus into a fresh index: wall and CPU seconds per stage, chunks."""
    from ragchain_cli.ingest import pipeline
    from ragchain_cli.stores.index import Index

    root = Path(tempfile.mkdtemp(prefix="write-", dir=scratch))
    index = Index(root, create=True)
    options = pipeline.ingest_options(embed_model=MODEL, engine="cached", batch_chunks=batch_chunks)
    try:
        if profile:
            import cProfile

            profiler = cProfile.Profile()
            profiler.enable()
        with benchlib.Stopwatch().active(stages()) as watch:
            seconds, cpu, report = benchlib.timed_cpu(pipeline.ingest, index, [folder], options)
        if profile:
            profiler.disable()
            profiler.dump_stats(profile)
        check = index.check()
    finally:
        index.close()
        shutil.rmtree(root, ignore_errors=True)
    if not check.consistent or check.docstore != report.chunks_added or report.skipped:
        raise SystemExit(f"the index is not what was fed: {check}, {report.skipped[:3]}")
    return {"seconds": seconds, "cpu": cpu, "chunks": report.chunks_added, "documents": report.documents,
            "files": report.files_ingested, "stages": watch.seconds, "stages_cpu": watch.cpu,
            "writing": seconds - watch.seconds.get("bind", 0.0), "writing_cpu": cpu - watch.cpu.get("bind", 0.0)}


def worker(args) -> int:
    """Prepare, warm up, then time `--repeat` runs; JSON on stdout (one process, one code tree)."""
    from ragchain_cli.ingest import pipeline
    from ragchain_cli.ingest.engines import ENGINES
    from ragchain_cli.stores.embedders import load_embedder

    folder, scratch = Path(args.folder), Path(args.scratch)
    CachedEngine.prepared = {path: docs for path, docs in prepare(folder, args.vectors)}
    ENGINES.register("cached", CachedEngine, "bench: documents, chunks and vectors prepared in advance")
    load_embedder(MODEL)  # bind() asks the model for its query encoder once: loaded here, outside the timing
    pipeline._embedder_loader = lambda options, say: no_embedder
    warm = Path(tempfile.mkdtemp(prefix="warm-", dir=scratch))
    first = sorted(folder.iterdir())[0]
    (warm / first.name).write_text("".join(first.read_text().splitlines(True)[:20]))
    CachedEngine.prepared.update({str(warm / first.name): CachedEngine.prepared[str(first)][:20]})
    one_run(warm, scratch)  # one-off imports and first calls of Tantivy, LanceDB, SQLite
    runs = [one_run(folder, scratch, batch_chunks=args.batch_chunks) for _ in range(args.repeat)]
    if args.profile:
        one_run(folder, scratch, args.profile, args.batch_chunks)
    print(json.dumps({"runs": runs, "package": __import__("ragchain_cli").__file__}))
    return 0


def spawn(tree: str, args, repeat: int, scratch: Path, folder: Path, profile: str = "") -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([tree, str(Path(__file__).resolve().parent)])}
    command = [sys.executable, __file__, "--worker", "--folder", str(folder), "--scratch", str(scratch),
               "--repeat", str(repeat), "--vectors", args.vectors, "--batch-chunks", str(args.batch_chunks)] + (["--profile", profile] if profile else [])
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"the run with {tree} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", help="BEIR folder holding corpus.jsonl.gz")
    parser.add_argument("--limit", type=int, default=0, help="only the first N documents (0 = all)")
    parser.add_argument("--files", type=int, default=1, help="split the corpus into this many JSONL files")
    parser.add_argument("--repeat", type=int, default=3, help="rounds (with --compare: each side once a round)")
    parser.add_argument("--vectors", default="", help="an .npz of real vectors (computed if missing); "
                        "default: seeded random unit vectors")
    parser.add_argument("--batch-chunks", type=int, default=1024, help="IngestOptions.batch_chunks (both sides)")
    parser.add_argument("--compare", default="", help="a source tree of the code to compare against")
    parser.add_argument("--profile", default="", help="cProfile one more run of this tree to this file")
    parser.add_argument("--out", default="write.md", help="report file name under bench/out/")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    parser.add_argument("--scratch", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args)
    if not args.data:
        parser.error("--data is required")

    scratch = Path(tempfile.mkdtemp(prefix="ragchain-write-"))
    folder = split_corpus(benchlib.corpus_path(args.data), args.files, args.limit, scratch)
    here = str(Path(__file__).resolve().parent.parent)
    sides = [("after", here)] + ([("before", str(Path(args.compare).resolve()))] if args.compare else [])
    results: dict[str, list[dict]] = {name: [] for name, _ in sides}
    for round_ in range(args.repeat):
        for name, tree in (sides if round_ % 2 == 0 else sides[::-1]):
            run = spawn(tree, args, 1, scratch, folder)["runs"][0]
            run["load"] = os.getloadavg()[0]
            results[name].append(run)
            print(f"round {round_ + 1} {name}: {run['chunks']} chunks, writing {run['writing']:.2f} s "
                  f"({run['chunks'] / run['writing']:.0f} chunks/s), CPU {run['writing_cpu']:.2f} s "
                  f"({run['chunks'] / run['writing_cpu']:.0f} chunks/CPU s), load {run['load']:.1f}",
                  file=sys.stderr, flush=True)
    text = report(args, results, sides)
    if args.profile:
        spawn(here, args, 0, scratch, folder, profile=args.profile)
        text += "\n\n" + profile_summary(args.profile)
    shutil.rmtree(scratch, ignore_errors=True)
    path = benchlib.write_report(args.out, text)
    print(text)
    print(f"\nwritten to {path}", file=sys.stderr)
    return 0


def report(args, results: dict[str, list[dict]], sides) -> str:
    first = next(iter(results.values()))[0]
    chunks = first["chunks"]
    rows, stage_rows = [], []
    names = ["bind", "flush", "versions", "replay", "tantivy", "lancedb", "optimize"]
    for name, tree in sides:
        runs = results[name]
        med = {key: benchlib.median([r[key] for r in runs]) for key in ("seconds", "cpu", "writing", "writing_cpu")}
        rows.append([name, tree, len(runs), chunks, med["seconds"], med["writing"], chunks / med["writing"],
                     med["writing_cpu"], chunks / med["writing_cpu"]])
        stage_rows.append([name] + [f"{benchlib.median([r['stages'].get(st, 0.0) for r in runs]):.2f} / "
                                    f"{benchlib.median([r['stages_cpu'].get(st, 0.0) for r in runs]):.2f}"
                                    for st in names])
    lines = [f"# Write-only ingest: {first['documents']} documents, {chunks} chunks, {first['files']} file(s)",
             "", f"Machine: {benchlib.machine()}. Vectors: {args.vectors or 'seeded random unit vectors'}. "
             f"Batches of {args.batch_chunks} chunks. "
             f"Command: `{' '.join(['python', *sys.argv])}`", "",
             "'writing' is the whole ingest() minus the one-off check of the query encoder when a new index "
             "records its settings (`bind`: numpy BERT against the model on two probes, once per index).", "",
             benchlib.table(["code", "tree", "runs", "chunks", "ingest() wall s", "writing wall s",
                             "chunks/s (wall)", "writing CPU s", "chunks per CPU s"], rows), "",
             "Median wall / CPU seconds per stage (versions is inside flush; tantivy and lancedb inside replay):", "",
             benchlib.table(["code"] + names, stage_rows)]
    if len(sides) == 2:
        ratios = [b["writing"] / a["writing"] for a, b in zip(results["after"], results["before"])]
        cpu = [b["writing_cpu"] / a["writing_cpu"] for a, b in zip(results["after"], results["before"])]
        lines += ["", f"before / after writing time, per round: wall {', '.join(f'{r:.2f}' for r in ratios)} "
                  f"(median {benchlib.median(ratios):.2f}); CPU {', '.join(f'{r:.2f}' for r in cpu)} "
                  f"(median {benchlib.median(cpu):.2f})"]
    return "\n".join(lines)


def profile_summary(path: str, top: int = 30) -> str:
    import io
    import pstats

    out = []
    for key in ("tottime", "cumulative"):
        buffer = io.StringIO()
        pstats.Stats(path, stream=buffer).sort_stats(key).print_stats(top)
        body = buffer.getvalue()
        out.append(f"## cProfile of one more run, by {key} (top {top})\n\n```\n{body[body.find('   ncalls'):]}```")
    return "\n\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
