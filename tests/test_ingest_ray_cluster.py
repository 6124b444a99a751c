"""`ingest --engine ray` on a two-node Ray cluster made on this machine (ray.cluster_utils.Cluster:
a head and a worker node, one CPU each, so one embedding actor lands on each): both nodes do work
and the index is the one the local engine builds."""

from __future__ import annotations

import pytest

from test_ingest_ray import MODEL, assert_same_index, need_ray, notes
from ragchain_cli.ingest.pipeline import IngestOptions, ingest
from ragchain_cli.stores.index import Index

pytestmark = pytest.mark.ray


@pytest.fixture
def two_nodes():
    need_ray()
    import ray
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, logging_level="WARNING")
    yield ray
    ray.shutdown()
    cluster.shutdown()


def test_both_nodes_of_a_cluster_embed_and_the_report_says_which(two_nodes, tmp_path, cli):
    corpus = notes(tmp_path / "docs", 4, 60)  # 240 documents: 8 embedding batches for 2 actors
    result = cli("ingest", corpus, "--index", tmp_path / "ray", "--engine", "ray", "--json")
    assert result.code == 0, result.err
    report = result.json()
    assert report["workers"] == 2 and report["chunks_added"] == 240
    alive = {node["NodeID"] for node in two_nodes.nodes() if node["Alive"]}
    assert len(alive) == 2 and {n["node_id"] for n in report["nodes"]} == alive
    assert all(n["chunks"] > 0 for n in report["nodes"]) and sum(n["chunks"] for n in report["nodes"]) == 240
    assert sum(n["files"] for n in report["nodes"]) == 4
    ingest(Index(tmp_path / "local", create=True), [corpus], IngestOptions(MODEL))
    assert_same_index(tmp_path / "ray", tmp_path / "local")
    assert cli("check", "--index", tmp_path / "ray").code == 0
