"""The code that runs on Ray workers for `--engine ray`: loading + chunking (a task per file) and
embedding (an actor pool, the model loaded once per actor). Rows cross the cluster as plain
columns; a document travels pickled with its chunks, a vector block as float32 bytes.

Row kinds: "doc" (one document, its chunks, which of them to embed), "end" (the file is read
whole: its document count), "error" (the file failed: the reason). Every row has every column.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator

import numpy as np

from ..errors import LoaderError
from .tasks import FileTask, IngestOptions, failure_reason, prepared

COLUMNS = {"kind": "", "path": "", "payload": b"", "vectors": b"", "node": "", "loader": "", "documents": 0,
           "reason": ""}
DOCS_PER_BLOCK = 64  # documents a load task hands downstream at a time (a big file streams)


def encode_task(task: FileTask, known: set[str]) -> dict:
    """The dataset row for one file: the task and the chunk IDs the index already has vectors for."""
    return {"task": pickle.dumps((task, frozenset(known)), protocol=pickle.HIGHEST_PROTOCOL)}


def _node() -> str:
    import ray

    return ray.get_runtime_context().get_node_id()


def _batch(rows: list[dict]) -> dict[str, np.ndarray]:
    columns = {}
    for name, default in COLUMNS.items():
        values = [row.get(name, default) for row in rows]
        columns[name] = np.array(values, dtype=np.int64) if isinstance(default, int) else _objects(values)
    return columns


def _objects(values: list) -> np.ndarray:
    array = np.empty(len(values), dtype=object)
    array[:] = values
    return array


def load_files(batch: dict[str, np.ndarray], options: IngestOptions) -> Iterator[dict[str, np.ndarray]]:
    """map_batches over file rows: each file's documents with their chunks, DOCS_PER_BLOCK at a time,
    then its "end" row, or an "error" row (a file that fails part way has sent some documents)."""
    node = _node()
    for raw in batch["task"]:
        task, known = pickle.loads(raw)
        rows: list[dict] = []
        documents = 0
        try:
            for doc, chunks in prepared(task, options):
                need = [i for i, c in enumerate(chunks) if c.chunk_id not in known]
                rows.append({"kind": "doc", "path": task.key, "loader": node,
                             "payload": pickle.dumps((doc, chunks, need), protocol=pickle.HIGHEST_PROTOCOL)})
                documents += 1
                if len(rows) >= DOCS_PER_BLOCK:
                    yield _batch(rows)
                    rows = []
            rows.append({"kind": "end", "path": task.key, "loader": node, "documents": documents})
        except (LoaderError, OSError) as exc:
            rows.append({"kind": "error", "path": task.key, "loader": node, "reason": _on(node, exc)})
        yield _batch(rows)


def _on(node: str, exc: LoaderError | OSError) -> str:
    """A loader's reason; an OS error says which node could not read the file (shared filesystem)."""
    reason = failure_reason(exc)
    return reason if isinstance(exc, LoaderError) else f"{reason} (on Ray node {node[:12]})"


class Embed:
    """An embedding actor: the model is loaded once, then every batch of document rows gets the
    vectors of the chunks the index does not have yet, and the node that computed them."""

    def __init__(self, embed_model: str, device: str = "cpu") -> None:
        from ..stores.embedders import SentenceTransformerEmbedder

        # one thread: an actor holds one CPU, and the pool has at most one actor per CPU
        self.embedder = SentenceTransformerEmbedder(embed_model, threads=1, device=device)
        self.node = _node()

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        texts: list[str] = []
        sizes: list[int] = []
        for kind, payload in zip(batch["kind"], batch["payload"]):
            need = []
            if kind == "doc":
                _, chunks, need = pickle.loads(payload)
                texts += [chunks[i].index_text() for i in need]
            sizes.append(len(need))
        vectors = self.embedder.embed(texts)
        blocks, start = [], 0
        for size in sizes:
            blocks.append(np.ascontiguousarray(vectors[start:start + size], np.float32).tobytes())
            start += size
        out = dict(batch)
        out["vectors"] = _objects(blocks)
        out["node"] = _objects([self.node] * len(sizes))
        return out

