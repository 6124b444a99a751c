"""Re-sharding (`ingest --shards M` on an index of N shards): the documents move with their vectors,
the result equals a fresh build of M shards (same chunk IDs in each shard, same ranking), and a
re-sharding killed with SIGKILL leaves an index that answers and that the next run finishes."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import SAMPLE
from ragchain_cli.stores.sharded import ShardedIndex
from test_shard_query import QUERIES, ranked, same_ranking


def shard_chunks(index: Path) -> list[set[str]]:
    with ShardedIndex(index) as opened:
        return [shard.docstore.chunk_ids() for shard in opened.shards]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    """sample_corpus/ ingested as 4 shards and, fresh, as 3 shards."""
    from ragchain_cli.cli.app import run

    base = tmp_path_factory.mktemp("reshard")
    shutil.copytree(SAMPLE, base / "sample_corpus")
    found = {"corpus": base / "sample_corpus"}
    for count in (4, 3):
        found[str(count)] = base / f"fresh-{count}"
        if run(["ingest", str(found["corpus"]), "--index", str(found[str(count)]), "--shards", str(count), "--json"]):
            raise RuntimeError(f"the {count}-shard sample ingest failed")
    return found


def test_resharding_4_to_2_to_3_equals_a_fresh_build_of_3(built, cli, tmp_path):
    index = tmp_path / "index"
    shutil.copytree(built["4"], index)
    for count in (2, 3):
        result = cli("ingest", built["corpus"], "--index", index, "--shards", str(count), "--json")
        assert result.code == 0, result.err
        report = result.json()
        assert (report["resharded"]["to"], report["chunks_added"]) == (count, 0)  # moved, nothing embedded again
        assert report["resharded"]["chunks"] == sum(s["chunks"] for s in report["shards"])
    assert sorted(p.name for p in index.iterdir() if p.name.startswith("shard-")) == \
        ["shard-000-of-003", "shard-001-of-003", "shard-002-of-003"]  # the layouts before are gone
    assert shard_chunks(index) == shard_chunks(built["3"])
    assert cli("check", "--index", index).code == 0
    with ShardedIndex(index) as moved, ShardedIndex(built["3"]) as fresh:
        assert same_ranking(ranked(moved), ranked(fresh))


def test_a_resharding_killed_mid_way_answers_and_is_finished_by_the_next_run(built, cli, tmp_path):
    index = tmp_path / "index"
    shutil.copytree(built["4"], index)
    command = [sys.executable, "-m", "ragchain_cli", "ingest", "sample_corpus", "--index", str(index), "--shards", "2"]
    folder = built["corpus"].parent  # the files the index holds, by the document IDs it gave them
    process = subprocess.Popen(command, cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not (index / "shard-000-of-002" / "docstore.sqlite").exists() and process.poll() is None:
        assert time.monotonic() < deadline, "the re-sharding never started writing"
        time.sleep(0.01)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert cli("check", "--index", index).code == 0  # the old layout (or, killed after its switch, the new) answers
    assert cli("search", QUERIES[0], "--index", index, "--json").code == 0
    result = subprocess.run(command, cwd=folder, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert cli("check", "--index", index).code == 0
    assert sorted(p.name for p in index.iterdir() if p.name.startswith("shard-")) == \
        ["shard-000-of-002", "shard-001-of-002"]
    with ShardedIndex(index) as moved, ShardedIndex(built["4"]) as before:
        assert moved.docstore.chunk_ids() == before.docstore.chunk_ids()
        assert same_ranking(ranked(moved), ranked(before))
