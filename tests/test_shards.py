"""`ingest --shards N`: N indexes under one folder, written by Ray tasks (a real local Ray, 2 CPUs)
or one after the other, and read as one by search, status and check; a shard that fails is named
and redone by the next ingest."""

from __future__ import annotations

import dataclasses
import fcntl
import json
import shutil
from pathlib import Path

import pytest

from conftest import SAMPLE
from ragchain_cli.stores.shards import ShardManifest, shard_of
from test_ingest_ray import need_ray, ray_local  # noqa: F401 (ray_local: the shared module-scope Ray fixture)

QUERIES = [json.loads(line)["text"] for line in (SAMPLE / "queries.jsonl").read_text().splitlines()]
RETRIEVERS = ("bm25", "dense", "bm25,dense")


def corpus_in(folder: Path) -> Path:
    corpus = folder / "sample_corpus"  # the document IDs of the session's unsharded index
    shutil.copytree(SAMPLE, corpus)
    return corpus


def ranked(cli, index: Path, *flags: str) -> list[list[tuple[str, float]]]:
    lists = []
    for query in QUERIES:
        result = cli("search", query, "--index", index, "-k", "10", "--json", *flags)
        assert result.code == 0, result.err
        lists.append([(hit["chunk_id"], hit["score"]) for hit in result.json()["hits"]])
    return lists


def assert_ranks_like(cli, sharded: Path, unsharded: Path) -> None:
    """The same IDs in the same order, the same scores (Tantivy computes in 32-bit floats, the merge in 64)."""
    for flags in [("--retrievers", r) for r in RETRIEVERS] + [("--documents",)]:
        mine, theirs = ranked(cli, sharded, *flags), ranked(cli, unsharded, *flags)
        assert [[cid for cid, _ in hits] for hits in mine] == [[cid for cid, _ in hits] for hits in theirs], flags
        scores = [(a, b) for x, y in zip(mine, theirs) for (_, a), (_, b) in zip(x, y)]
        assert all(a == pytest.approx(b, rel=1e-4, abs=1e-4) for a, b in scores), flags


def test_the_hash_spreads_document_ids_over_every_shard_and_is_stable():
    ids = [f"corpus/file-{n}.md" for n in range(400)]
    counts = [sum(shard_of(i, 4) == s for i in ids) for s in range(4)]
    assert min(counts) > 60 and sum(counts) == 400
    assert [shard_of(i, 4) for i in ids] == [shard_of(i, 4) for i in ids]


def test_ray_builds_two_shards_that_search_as_one_index(ray_local, sample_index, cli, tmp_path):
    corpus = corpus_in(tmp_path)
    result = cli("ingest", corpus, "--index", tmp_path / "sharded", "--engine", "ray", "--shards", "2", "--json")
    assert result.code == 0, result.err
    report = result.json()
    assert report["engine"] == "ray" and report["skipped"] == []
    assert [s["state"] for s in report["shards"]] == ["complete", "complete"]
    assert all(s["chunks"] > 0 for s in report["shards"])  # both shards hold files
    manifest = ShardManifest.read(tmp_path / "sharded")
    assert manifest.count == 2 and sum(s.chunks for s in manifest.shards) == report["chunks_added"]
    assert_ranks_like(cli, tmp_path / "sharded", sample_index)

    status = cli("status", "--index", tmp_path / "sharded", "--json").json()
    single = cli("status", "--index", sample_index, "--json").json()
    assert status["consistent"] and status["counts"] == single["counts"]
    assert [s["problem"] for s in status["shards"]] == ["", ""]
    assert cli("check", "--index", tmp_path / "sharded").code == 0

    again = cli("ingest", corpus, "--index", tmp_path / "sharded", "--engine", "ray", "--json").json()
    assert again["files_unchanged"] == report["files_ingested"] and again["chunks_added"] == 0


def test_a_failed_shard_is_named_then_redone_by_the_next_ingest(sample_index, cli, tmp_path):
    corpus, index = corpus_in(tmp_path), tmp_path / "sharded"
    (index / "shard-001").mkdir(parents=True)
    with open(index / "shard-001" / "ingest.lock", "a+") as held:  # another writer holds shard-001
        fcntl.flock(held, fcntl.LOCK_EX)
        first = cli("ingest", corpus, "--index", index, "--shards", "2", "--json")
    assert first.code == 3
    states = {s["name"]: s["state"] for s in first.json()["shards"]}
    assert states == {"shard-000": "complete", "shard-001": "failed"}
    assert [s["path"] for s in first.json()["skipped"]] == ["shard-001"] and "shard-001" in first.err
    check = cli("check", "--index", index, "--json")
    assert check.code == 4 and "shard-001" in check.err
    assert cli("search", "buoy", "--index", index, "--retrievers", "bm25").code == 0  # shard-000 answers meanwhile

    second = cli("ingest", corpus, "--index", index, "--json")
    assert second.code == 0, second.err
    assert [s["state"] for s in second.json()["shards"]] == ["complete", "complete"]
    assert cli("check", "--index", index).code == 0
    assert_ranks_like(cli, index, sample_index)

    shutil.rmtree(index / "shard-000")  # a shard that no longer holds what the manifest says
    check = cli("check", "--index", index, "--json")
    assert check.code == 4 and "shard-000" in check.err
    assert [s["name"] for s in check.json()["shards"] if s["problem"]] == ["shard-000"]


def test_a_shard_ingest_names_documents_from_the_drivers_folder_and_keeps_the_working_directory(cli, tmp_path, monkeypatch):
    from ragchain_cli.ingest.pipeline import ingest_options
    from ragchain_cli.ingest.sharded import ingest_shard

    docs = tmp_path / "driver" / "docs"
    docs.mkdir(parents=True)
    (docs / "a.txt").write_text("Tardigrades survive the vacuum of space.\n", encoding="utf-8")
    worker = tmp_path / "worker"  # a Ray worker runs in its own folder
    worker.mkdir()
    monkeypatch.chdir(worker)
    ingest_shard(str(tmp_path / "shard"), [str(docs)], dataclasses.replace(ingest_options(), base=str(docs.parent)))
    found = cli("search", "tardigrades", "--index", tmp_path / "shard", "--retrievers", "bm25", "--json")
    assert (found.json()["hits"][0]["doc_id"], Path.cwd()) == ("docs/a.txt", worker)
