"""Above its threshold the vector table gets an IVF-PQ index, and search stays accurate."""

import numpy as np

from ragchain_cli.stores.vectors import VectorIndex


def clustered(n: int, dim: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(max(8, n // 100), dim))
    vectors = centers[rng.integers(0, len(centers), n)] + 0.3 * rng.normal(size=(n, dim))
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


def test_ann_index_is_built_above_the_threshold_and_keeps_recall(tmp_path):
    dim, n = 64, 4000
    data = clustered(n, dim)
    ids = [f"c{i:05d}" for i in range(n)]
    index = VectorIndex(tmp_path / "v", dim, ann_threshold=3000)
    index.apply([], ids[:2000], data[:2000])
    index.optimize()
    assert not index.has_ann()
    index.apply([], ids[2000:], data[2000:])
    index.optimize()
    assert index.has_ann()
    reopened = VectorIndex(tmp_path / "v", dim, ann_threshold=3000)
    assert reopened.has_ann() and reopened.count() == n
    rng = np.random.default_rng(1)
    queries = data[rng.integers(0, n, 30)] + 0.1 * rng.normal(size=(30, dim)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    recalls = []
    for q in queries:
        exact = {ids[i] for i in np.argsort(-(data @ q))[:10]}
        found = reopened.search(q, 10)
        assert [s for _, s in found] == sorted((s for _, s in found), reverse=True)
        recalls.append(len(exact & {cid for cid, _ in found}) / 10)
    assert np.mean(recalls) >= 0.9


def test_a_flat_table_is_searched_exactly_and_sees_its_own_writes(tmp_path):
    dim, n = 32, 500
    data = clustered(n, dim, seed=3)
    ids = [f"c{i:04d}" for i in range(n)]
    index = VectorIndex(tmp_path / "v", dim)
    index.apply([], ids[:400], data[:400])
    query = data[7] + 0.05 * np.random.default_rng(2).normal(size=dim).astype(np.float32)
    table = index._table_or_none()
    flat = table.search(query).distance_type("cosine").limit(20).select(["chunk_id", "_distance"]).to_arrow()
    found = index.search(query, 20)
    assert [cid for cid, _ in found] == flat.column("chunk_id").to_pylist()  # LanceDB's own flat ranking
    assert np.allclose([s for _, s in found], [1 - d for d in flat.column("_distance").to_pylist()], atol=1e-5)
    index.apply(ids[:1], ids[400:], data[400:])  # delete one, add 100: the next search sees both
    after = {cid for cid, _ in index.search(query, n)}
    assert ids[0] not in after and set(ids[400:]) <= after and len(after) == n - 1
    assert index.search(query, 0) == [] and len(index.search(query, 10_000)) == n - 1
