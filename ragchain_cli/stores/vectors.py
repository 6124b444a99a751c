"""LanceDB vector table: chunk_id and vector, nothing else. No Arrow or Lance type leaves here.

Vectors are L2-normalised by the embedder, so cosine distance d in [0, 2] becomes the
higher-is-better score 1 - d (the cosine similarity).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np

TABLE = "chunks"


def _quote(chunk_id: str) -> str:
    return "'" + chunk_id.replace("'", "''") + "'"


class VectorIndex:
    def __init__(self, path: Path, dim: int) -> None:
        import lancedb
        import pyarrow as pa

        self._pa = pa
        self.dim = dim
        self.db = lancedb.connect(str(path))
        self.schema = pa.schema(
            [pa.field("chunk_id", pa.string()), pa.field("vector", pa.list_(pa.float32(), dim))]
        )
        self._table = None

    def _table_or_none(self):
        if self._table is None:
            if TABLE in self.db.list_tables().tables:
                self._table = self.db.open_table(TABLE)
        return self._table

    def _ensure_table(self):
        table = self._table_or_none()
        if table is None:
            table = self._table = self.db.create_table(TABLE, schema=self.schema, exist_ok=True)
        return table

    def apply(self, delete_ids: list[str], add_ids: list[str], add_vectors: np.ndarray) -> None:
        table = self._ensure_table()
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
        table = self._table_or_none()
        if table is not None:
            table.optimize()

    def search(self, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        table = self._table_or_none()
        if table is None or k <= 0:
            return []
        query = table.search(np.asarray(vector, dtype=np.float32)).distance_type("cosine").limit(k)
        result = query.select(["chunk_id", "_distance"]).to_arrow()
        ids = result.column("chunk_id").to_pylist()
        distances = result.column("_distance").to_pylist()
        return [(cid, 1.0 - float(d)) for cid, d in zip(ids, distances)]

    def ids(self) -> set[str]:
        table = self._table_or_none()
        if table is None:
            return set()
        return set(table.to_arrow().column("chunk_id").to_pylist())

    def count(self) -> int:
        table = self._table_or_none()
        return 0 if table is None else table.count_rows()
