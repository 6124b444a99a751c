"""A sharded index at query time: every shard asked at once (threads), shards held by Ray actors
(a real local Ray, 2 CPUs) that rank as one index and survive a killed actor, and version groups
formed across shards (the sample corpus's 2021 and 2025 policies hash to two shards)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import threading
from pathlib import Path

import pytest

from conftest import SAMPLE
from ragchain_cli.config import load_settings
from ragchain_cli.errors import ShardUnavailable
from ragchain_cli.retrieve.pipeline import SearchPipeline, search_options
from ragchain_cli.stores.fanout import Fanout
from ragchain_cli.stores.index import Index
from ragchain_cli.stores.sharded import ShardedIndex
from ragchain_cli.stores.shards import shard_of
from test_ask_versions import NEW, OLD, QUESTION, workflow
from test_ingest_ray import ray_local  # noqa: F401 (the shared module-scope Ray fixture)

QUERIES = [json.loads(line)["text"] for line in (SAMPLE / "queries.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def sharded(tmp_path_factory) -> Path:
    """sample_corpus/ as 2 shards (local engine), with the document IDs of the session's index."""
    from ragchain_cli.cli.app import run

    base = tmp_path_factory.mktemp("sharded")
    shutil.copytree(SAMPLE, base / "sample_corpus")
    index = base / "index"
    if run(["ingest", str(base / "sample_corpus"), "--index", str(index), "--shards", "2", "--json"]) != 0:
        raise RuntimeError("the sharded sample ingest failed")
    return index


def ranked(index, queries=QUERIES) -> list[list[tuple[str, float]]]:
    pipeline = SearchPipeline(index, search_options(load_settings({}, config_files=[])))
    return [[(hit.chunk_id, hit.score) for hit in pipeline.search(query)] for query in queries]


def same_ranking(mine, theirs) -> bool:
    ids = [[cid for cid, _ in hits] for hits in mine] == [[cid for cid, _ in hits] for hits in theirs]
    scores = [(a, b) for x, y in zip(mine, theirs) for (_, a), (_, b) in zip(x, y)]
    return ids and all(a == pytest.approx(b, rel=1e-4, abs=1e-4) for a, b in scores)


def test_every_shard_is_asked_at_once():
    met = threading.Barrier(3, timeout=10)  # passes only when three calls wait at the same time
    assert Fanout(3, "threads").map(lambda n: met.wait() >= 0 and n, [1, 2, 3]) == [1, 2, 3]
    alone = threading.Barrier(3, timeout=0.5)
    with pytest.raises(threading.BrokenBarrierError):
        Fanout(3, "serial").map(lambda n: alone.wait(), [1, 2, 3])


def test_shards_asked_at_once_rank_as_one_index(sharded, sample_index):
    with ShardedIndex(sharded, fanout="threads") as many, Index(sample_index) as one:
        assert same_ranking(ranked(many), ranked(one))


def test_shards_behind_ray_actors_rank_as_one_index(ray_local, sharded, sample_index, cli):
    with ShardedIndex(sharded, engine="ray") as served, Index(sample_index) as one:
        assert [type(shard).__name__ for shard in served.shards] == ["RemoteShard", "RemoteShard"]
        assert same_ranking(ranked(served), ranked(one))
    result = cli("search", QUERIES[0], "--index", sharded, "--engine", "ray", "-k", "3", "--json")
    assert result.code == 0 and len(result.json()["hits"]) == 3, result.err


def test_a_killed_shard_actor_is_restarted_and_the_query_answered(ray_local, sharded):
    with ShardedIndex(sharded, engine="ray") as served:
        before = ranked(served, QUERIES[:2])
        shard = served.shards[1]
        pid = ray_local.get(shard.actor.pid.remote())
        os.kill(pid, signal.SIGKILL)
        assert ranked(served, QUERIES[:2]) == before
        assert ray_local.get(shard.actor.pid.remote()) != pid  # a new process holds the shard


def test_a_shard_that_cannot_come_back_is_named(ray_local, sharded, tmp_path):
    with ShardedIndex(sharded, engine="ray") as served:
        ranked(served, QUERIES[:1])
        shard = served.shards[1]
        moved = tmp_path / "away"
        shutil.move(str(sharded / "shard-001"), moved)  # its restart cannot open it
        try:
            os.kill(ray_local.get(shard.actor.pid.remote()), signal.SIGKILL)
            with pytest.raises(ShardUnavailable, match="shard-001"):
                ranked(served, QUERIES[:1])
        finally:
            shutil.move(str(moved), sharded / "shard-001")


def test_versions_split_over_two_shards_answer_from_the_newer(sharded):
    assert shard_of(OLD, 2) != shard_of(NEW, 2)  # the pair this test is about lives in two shards
    with workflow(sharded, "newest") as asking:
        payload = asking.ask(QUESTION)
    answer, note = payload["answer"].split(" (The older version, ")
    assert "three days per week" in answer and "two days per week" in note
    assert [c["doc_id"] for c in payload["citations"]] == [NEW]
    assert [(g["newest"], g["older"]) for g in payload["versions"]] == [(NEW, [OLD])]


def test_eval_through_ray_actors_scores_as_in_this_process(ray_local, sharded, cli):
    flags = ("eval", SAMPLE / "qrels.tsv", "--queries", SAMPLE / "queries.jsonl", "--index", sharded, "--json")
    here, served = cli(*flags), cli(*flags, "--engine", "ray")
    assert served.code == 0, served.err
    assert served.json()["configs"][0]["means"] == here.json()["configs"][0]["means"]


def test_how_shards_are_asked_is_a_setting(monkeypatch):
    from ragchain_cli.errors import UsageError
    from ragchain_cli.stores.fanout import resolved

    assert load_settings({}, config_files=[], environ={"RAGCHAIN_SHARD_FANOUT": "serial"}).shard_fanout == "serial"
    with pytest.raises(UsageError, match="shard_fanout must be one of auto, threads, serial"):
        load_settings({"shard_fanout": "processes"}, config_files=[])
    monkeypatch.setattr(os, "cpu_count", lambda: 16)
    assert (resolved("auto"), resolved("serial")) == ("threads", "serial")
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert resolved("auto") == "serial"


def test_a_shard_killed_before_its_first_batch_is_absent_and_the_others_answer(sharded, tmp_path):
    from ragchain_cli.stores.docstore import DocStore

    index = tmp_path / "index"
    shutil.copytree(sharded, index)
    shutil.rmtree(index / "shard-001")
    (index / "shard-001").mkdir()
    DocStore(index / "shard-001" / "docstore.sqlite").close()  # created, no settings recorded yet
    with ShardedIndex(index) as opened:
        assert opened.absent == ["shard-001"] and opened.names == ["shard-000"]
        assert ranked(opened, QUERIES[:1])[0]
