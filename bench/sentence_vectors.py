"""Sentence vectors as one more document-level list (issue 14): do they add to the default ranking?

    python bench/sentence_vectors.py embed --index INDEX --out DIR              # each sentence alone
    python bench/sentence_vectors.py embed --index INDEX --out DIR --late       # one pass a chunk
    python bench/sentence_vectors.py score --out DIR --queries queries.jsonl \\
        --half half1.tsv=default-h1.run --half half2.tsv=default-h2.run [--late]

embed reads the indexed chunks (title + text, exactly what ingest embeds) from INDEX's docstore and
splits them into sentences with the splitter `ask` uses (generate/select.py); the title counts as a
sentence. Without --late every sentence is embedded alone with the bundled MiniLM (a second pass
over the corpus, as many tokens again as ingest embeds). With --late each chunk goes through the
model once and a sentence's vector is the mean of its own contextual token vectors ("late
chunking"): no extra pass, since ingest already computes those token vectors; the mean over all of
a chunk's tokens is its stored vector (checked: cosine 1.0 with the index's).

score ranks documents by their best sentence's cosine (depth 1000) and fuses that list with a run
of the default pipeline (`ragchain eval HALF --run-out RUN`): z-scores, weight w for the sentence
list, 1 - w for the default's scores, a document missing from a list taking that list's minimum.
nDCG@10 per half and the paired randomisation test against the default run.
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ragchain_cli.evaluation.compare import randomization_test  # noqa: E402
from ragchain_cli.evaluation.metrics import evaluate_per_query  # noqa: E402
from ragchain_cli.evaluation.readers import read_qrels, read_queries  # noqa: E402
from ragchain_cli.evaluation.runs import read_trec_run  # noqa: E402
from ragchain_cli.stores.embedders import load_embedder  # noqa: E402

WEIGHTS = (0.3, 0.4, 0.5)


def chunks(index: Path) -> list[tuple[str, str, str]]:
    """(doc_id, text ingest embeds, title) of every chunk."""
    con = sqlite3.connect(index / "docstore.sqlite")
    rows = con.execute("SELECT c.doc_id, c.text, d.title FROM chunks c JOIN documents d USING (doc_id)")
    return [(doc, f"{title}\n{text}" if title else text, title) for doc, text, title in rows]


# Character spans are needed here (late chunking pools token vectors by span), so this bench keeps
# the regex splitter the product used when it was measured (session 10).
_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[A-Z0-9])|\n\s*\n|\n(?=\s*[-*•\d])")


def spans(text: str, title: str) -> list[tuple[int, int]]:
    """Character spans of the title and of each sentence after it."""
    start = len(title) + 1 if title else 0
    out = [(0, len(title))] if title else []
    for match in _SPLIT.finditer(text, start):
        if text[start : match.start()].strip():
            out.append((start, match.start()))
        start = match.end()
    if text[start:].strip():
        out.append((start, len(text)))
    return out


def embed_alone(embedder, rows) -> tuple[np.ndarray, list[str]]:
    units = [(doc, text[a:b]) for doc, text, title in rows for a, b in spans(text, title)]
    return embedder.embed([u for _, u in units]), [doc for doc, _ in units]


def embed_late(embedder, rows, batch: int = 32) -> tuple[np.ndarray, list[str]]:
    model = embedder.model
    vectors, owners = [], []
    order = np.argsort([len(text) for _, text, _ in rows])
    for start in range(0, len(order), batch):
        picked = [rows[i] for i in order[start : start + batch]]
        texts = [text for _, text, _ in picked]
        tokens = model.encode(texts, output_value="token_embeddings", batch_size=batch, show_progress_bar=False)
        offsets = model.tokenizer(texts, return_offsets_mapping=True, truncation=True,
                                  max_length=model.max_seq_length)["offset_mapping"]
        for (doc, text, title), vecs, offs in zip(picked, tokens, offsets):
            vecs, offs = vecs.float().numpy(), np.array(offs)[: len(vecs)]
            real = offs[:, 1] > offs[:, 0]
            for a, b in spans(text, title):
                inside = real & (offs[:, 0] < b) & (offs[:, 1] > a)
                if inside.any():
                    mean = vecs[inside].mean(0)
                    vectors.append(mean / np.linalg.norm(mean))
                    owners.append(doc)
    return np.array(vectors, dtype=np.float32), owners


def z(scores: dict[str, float]) -> dict[str, float]:
    values = np.array(list(scores.values()))
    return {k: (v - values.mean()) / (values.std() or 1.0) for k, v in scores.items()}


def fuse(base: dict[str, float], sentences: dict[str, float], w: float) -> dict[str, float]:
    a, b = z(base), z(sentences)
    low_a, low_b = min(a.values()), min(b.values())
    return {d: (1 - w) * a.get(d, low_a) + w * b.get(d, low_b) for d in set(a) | set(b)}


def sentence_run(vectors, owners, query_vectors: dict[str, np.ndarray], depth: int = 1000):
    docs, inverse = np.unique(np.array(owners), return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    starts = np.r_[0, np.flatnonzero(np.diff(inverse[order])) + 1]
    run = {}
    for qid, qv in query_vectors.items():
        best = np.maximum.reduceat((vectors @ qv)[order], starts)
        run[qid] = {docs[i]: float(best[i]) for i in np.argsort(-best)[:depth]}
    return run


def score(args) -> None:
    name = "late" if args.late else "alone"
    vectors = np.load(args.out / f"{name}.npy")
    owners = json.loads((args.out / f"{name}.json").read_text())
    queries = read_queries(args.queries)
    embedder = load_embedder()
    for pair in args.half:
        qrels_path, run_path = pair.split("=", 1)
        qrels, base = read_qrels(qrels_path), read_trec_run(run_path)
        qids = [q for q in qrels if q in base and q in queries]
        query_vectors = dict(zip(qids, embedder.embed([queries[q] for q in qids])))
        sentences = sentence_run(vectors, owners, query_vectors)
        before = evaluate_per_query(qrels, base, ["ndcg@10"])["ndcg@10"]
        a = [before[q] for q in qids]
        runs = {"sentences alone": sentences, **{f"fused, w = {w}": {q: fuse(base[q], sentences[q], w) for q in qids}
                                                 for w in WEIGHTS}}
        print(f"{qrels_path} ({name}): default {np.mean(a):.4f}")
        for label, run in runs.items():
            after = evaluate_per_query(qrels, run, ["ndcg@10"])["ndcg@10"]
            b = [after[q] for q in qids]
            print(f"  {label}: {np.mean(b):.4f} (p = {randomization_test(a, b):.3f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["embed", "score"])
    parser.add_argument("--index", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--late", action="store_true")
    parser.add_argument("--queries", type=Path)
    parser.add_argument("--half", action="append", default=[], help="QRELS=RUN")
    args = parser.parse_args()
    if args.mode == "score":
        return score(args)
    rows = chunks(args.index)
    vectors, owners = (embed_late if args.late else embed_alone)(load_embedder(), rows)
    args.out.mkdir(parents=True, exist_ok=True)
    name = "late" if args.late else "alone"
    np.save(args.out / f"{name}.npy", vectors)
    (args.out / f"{name}.json").write_text(json.dumps(owners))


if __name__ == "__main__":
    main()
