"""LanceDB vector table: chunk_id and vector, nothing else. No Arrow or Lance type leaves here.

Vectors are L2-normalised by the embedder, so cosine distance d in [0, 2] becomes the
higher-is-better score 1 - d (the cosine similarity).
"""

from __future__ import annotations

import math
import shutil
from collections.abc import Iterable
from pathlib import Path

import numpy as np

TABLE = "chunks"
# Above this many vectors, optimize() builds an IVF-SQ index (scalar-quantised IVF: at 100k
# vectors it trained in 10 s where default IVF-PQ took 43-169 s, with recall@10 1.0 against
# 0.86-0.998); searches probe ANN_PROBE_SHARE of the partitions (at least ANN_MIN_PROBES) and re-rank
# ANN_REFINE_ROWS candidates (at least k) on the full vectors. At 1M clustered vectors a tenth
# of the partitions gave recall@10 0.97 on near-duplicate queries (0.910 in issue 16's rerun),
# where 24 probes gave 0.885. The refine budget is fixed, not a factor of k: at k = 1000 a factor of 20 read
# 20,000 full vectors for 186 ms with the same recall as a factor of 1 at 19 ms.
ANN_THRESHOLD = 50_000
# A table without an ANN index (and at most this many rows) is searched exactly in numpy: its
# vectors are read once per process (40 ms for SciFact's 12k) and a top-100 then takes 0.1 ms,
# where LanceDB's flat search took 9 ms (bench/RESULTS.md, Peers).
IN_MEMORY_MAX = 2 * ANN_THRESHOLD
ANN_MIN_PROBES = 24
# Probes as a share of the partitions: the worst of three builds reaches recall@10 0.95 at 100k
# low-rank vectors with a quarter of them (80 of 316: 0.961; a tenth, 31: ~0.81), on fresh
# in-distribution queries (bench/scale_bench.py, bench/RESULTS.md, Scale); 1M not rerun here.
ANN_PROBE_SHARE = 0.25
ANN_REFINE_ROWS = 200


def _partitions(rows: int) -> int:
    return max(8, int(rows ** 0.5))


def _unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms == 0, 1.0, norms)


def _quote(chunk_id: str) -> str:
    return "'" + chunk_id.replace("'", "''") + "'"


class VectorIndex:
    def __init__(self, path: Path, dim: int, ann_threshold: int = ANN_THRESHOLD) -> None:
        import lancedb
        import pyarrow as pa

        self._pa = pa
        self.dim = dim
        self.ann_threshold = ann_threshold
        self._ann: bool | None = None
        self._exact: tuple[list[str], np.ndarray] | None = None  # a flat table's vectors, normalised
        self._probes = ANN_MIN_PROBES
        self.nprobes: int | None = None  # None: the product's rule (has_ann); bench/scale_bench.py sweeps these
        self.refine_rows = ANN_REFINE_ROWS
        self.path = Path(path)
        self.db = lancedb.connect(str(path))
        self.schema = pa.schema(
            [pa.field("chunk_id", pa.string()), pa.field("vector", pa.list_(pa.float32(), dim))]
        )
        self._table = None

    def _table_or_none(self):
        if self._table is None:
            if TABLE in self.db.list_tables().tables and self._committed():
                self._table = self.db.open_table(TABLE)
        return self._table

    def _committed(self) -> bool:
        """Whether the table has a manifest. A create killed between its first file and its manifest
        leaves a folder that LanceDB lists but cannot open; readers treat it as no table yet."""
        return any((self.path / f"{TABLE}.lance" / "_versions").glob("*.manifest"))

    def _ensure_table(self):
        table = self._table_or_none()
        if table is None:
            debris = self.path / f"{TABLE}.lance"
            if debris.exists():  # only writers get here, under the ingest lock: nothing else is creating it
                shutil.rmtree(debris)
            table = self._table = self.db.create_table(TABLE, schema=self.schema, exist_ok=True)
        return table

    def apply(self, delete_ids: list[str], add_ids: list[str], add_vectors: np.ndarray) -> None:
        table = self._ensure_table()
        self._exact = None
        for start in range(0, len(delete_ids), 1000):
            part = delete_ids[start : start + 1000]
            table.delete(f"chunk_id IN ({', '.join(map(_quote, part))})")
        if add_ids:
            data = self._pa.table(
                {
                    "chunk_id": self._pa.array(add_ids, self._pa.string()),
                    "vector": self._pa.FixedSizeListArray.from_arrays(
                        self._pa.array(np.asarray(add_vectors, dtype=np.float32).reshape(-1)), self.dim
                    ),
                },
                schema=self.schema,
            )
            table.add(data)

    def optimize(self) -> None:
        """Compact, fold new rows into an existing ANN index, and build one once the table is large."""
        table = self._table_or_none()
        if table is None:
            return
        self._exact = None
        table.optimize()
        if not self.has_ann() and table.count_rows() >= self.ann_threshold:
            self.build_ann()

    def has_ann(self) -> bool:
        if self._ann is None:
            table = self._table_or_none()
            self._ann = table is not None and any("vector" in idx.columns for idx in table.list_indices())
            if self._ann:
                self._probes = max(ANN_MIN_PROBES, math.ceil(ANN_PROBE_SHARE * _partitions(table.count_rows())))
        return self._ann

    def build_ann(self) -> None:
        """IVF-SQ over cosine with about sqrt(n) partitions."""
        from lancedb.index import IvfSq

        table = self._ensure_table()
        table.create_index("vector", config=IvfSq(distance_type="cosine", num_partitions=_partitions(table.count_rows())))
        self._ann = None

    def search(self, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        table = self._table_or_none()
        if table is None or k <= 0:
            return []
        if not self.has_ann() and (self._exact is not None or table.count_rows() <= IN_MEMORY_MAX):
            return self._exact_search(table, np.asarray(vector, dtype=np.float32), k)
        query = table.search(np.asarray(vector, dtype=np.float32)).distance_type("cosine").limit(k)
        if self.has_ann():
            query = query.nprobes(self.nprobes or self._probes).refine_factor(max(1, self.refine_rows // k))
        result = query.select(["chunk_id", "_distance"]).to_arrow()
        ids = result.column("chunk_id").to_pylist()
        distances = result.column("_distance").to_pylist()
        return [(cid, 1.0 - float(d)) for cid, d in zip(ids, distances)]

    def _exact_search(self, table, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        """Cosine similarity against every stored vector (the same ranking as LanceDB's flat search)."""
        if self._exact is None:
            data = table.to_arrow()
            ids = data.column("chunk_id").to_pylist()
            matrix = data.column("vector").combine_chunks().values.to_numpy(zero_copy_only=False)
            self._exact = (ids, _unit(matrix.reshape(len(ids), self.dim)))
        ids, matrix = self._exact
        scores = matrix @ _unit(vector[None, :])[0]
        top = np.argpartition(-scores, k)[:k] if k < len(ids) else np.arange(len(ids))
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(ids[i], float(scores[i])) for i in top]

    def vectors(self, chunk_ids: list[str]) -> dict[str, np.ndarray]:
        """The stored vectors of these chunk IDs (IDs not in the table are absent)."""
        table = self._table_or_none()
        found: dict[str, np.ndarray] = {}
        if table is None:
            return found
        for start in range(0, len(chunk_ids), 1000):
            part = chunk_ids[start : start + 1000]
            rows = (table.search().where(f"chunk_id IN ({', '.join(map(_quote, part))})")
                    .select(["chunk_id", "vector"]).limit(len(part)).to_arrow())
            for cid, vector in zip(rows.column("chunk_id").to_pylist(), rows.column("vector").to_pylist()):
                found[cid] = np.asarray(vector, dtype=np.float32)
        return found

    def ids(self) -> set[str]:
        table = self._table_or_none()
        if table is None:
            return set()
        return set(table.to_arrow().column("chunk_id").to_pylist())

    def count(self) -> int:
        table = self._table_or_none()
        return 0 if table is None else table.count_rows()
