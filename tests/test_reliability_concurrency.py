"""Two ingests at once, and searches during an ingest, on one index (real processes).

A second ingest fails at once with exit 5 and a clear message, or with --wait queues behind the
first; neither corrupts anything. A search during an ingest sees every document whole or not at
all: each batch reaches the docstore in one transaction and Tantivy in one commit, and readers
hydrate through the docstore.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from test_reliability_crash import ragchain, spawn_ingest, store_ids

CHUNKING = ("--chunk-size", "32", "--chunk-overlap", "0")


def multi_chunk_corpus(folder: Path, files: int, tag: str) -> dict[str, str]:
    """Files of five sentences, each holding the file's own word, so each file makes several
    32-token chunks that all match its word; returns {word: doc_id}."""
    folder.mkdir(parents=True)
    words = {}
    for number in range(files):
        word = f"{tag}{chr(97 + number // 26 % 26)}{chr(97 + number % 26)}q"  # ends in q: stems to itself
        sentences = [f"Sentence {s} of the {word} file mentions lanterns and copper kettles." for s in range(5)]
        (folder / f"{word}.txt").write_text(" ".join(sentences) + "\n", encoding="utf-8")
        words[word] = f"{folder.name}/{word}.txt"
    return words


def wait_for_lock(index: Path, proc: subprocess.Popen, timeout: float = 120) -> None:
    """Until `proc` holds ingest.lock (it writes its PID there once the lock is taken)."""
    lock = index / "ingest.lock"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if lock.exists() and lock.read_text().strip() == str(proc.pid):
            return
        assert proc.poll() is None, "the first ingest ended before it was seen holding the lock"
        time.sleep(0.05)
    raise AssertionError("the first ingest never took the lock")


def test_second_ingest_fails_clearly_or_waits_and_nothing_is_corrupted(tmp_path, cli):
    first_words = multi_chunk_corpus(tmp_path / "first", 16, "kq")
    second_words = multi_chunk_corpus(tmp_path / "second", 10, "zv")
    index, log = tmp_path / "index", tmp_path / "first.log"
    first = spawn_ingest(tmp_path / "first", index, 6, log, *CHUNKING)
    try:
        wait_for_lock(index, first)
        busy = cli("ingest", tmp_path / "second", "--index", index, *CHUNKING)
        assert busy.code == 5
        assert "another ingest is writing to" in busy.err and "--wait" in busy.err
        queued = subprocess.Popen([sys.executable, "-m", "ragchain_cli", "ingest", str(tmp_path / "second"),
                                   "--index", str(index), "--json", "--wait", *CHUNKING],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(2.0)
        if first.poll() is None:
            assert queued.poll() is None  # still queued behind the first
        assert first.wait(timeout=600) == 0, log.read_text(errors="replace")[-2000:]
        out, err = queued.communicate(timeout=600)
        assert queued.returncode == 0, err
    finally:
        for proc in (first,):
            if proc.poll() is None:
                proc.kill()
    assert json.loads(out)["files_ingested"] == 10
    check = ragchain("check", "--index", index, "--json")
    assert check.returncode == 0, check.stderr
    counts = json.loads(check.stdout)["counts"]
    assert counts["files"] == counts["documents"] == 26
    assert counts["chunks"] == counts["lexical"] == counts["vectors"] >= 2 * 26
    found = ragchain("search", "-", "--index", index, "--retrievers", "bm25", "-k", "1", "--json",
                     stdin="\n".join([*first_words, *second_words]) + "\n")
    docs = [json.loads(line)["hits"][0]["doc_id"] for line in found.stdout.splitlines()]
    assert docs == [*first_words.values(), *second_words.values()]


def test_searches_during_an_ingest_see_each_document_whole_or_not_at_all(tmp_path):
    words = multi_chunk_corpus(tmp_path / "docs", 16, "kw")
    index, log = tmp_path / "index", tmp_path / "ingest.log"
    # a committed base first, so that the searches also check that committed documents stay visible
    base = multi_chunk_corpus(tmp_path / "base", 3, "bb")
    assert ragchain("ingest", tmp_path / "base", "--index", index, *CHUNKING).returncode == 0
    proc = spawn_ingest(tmp_path / "docs", index, 4, log, *CHUNKING)
    queries = "\n".join([*words, *base]) + "\n"
    def snapshot() -> dict[str, list]:
        result = ragchain("search", "-", "--index", index, "--retrievers", "bm25", "-k", "50", "--json",
                          stdin=queries)
        assert result.returncode == 0, result.stderr
        return {line["query"]: line["hits"] for line in map(json.loads, result.stdout.splitlines())}

    snapshots = []
    hybrid = None
    try:
        while proc.poll() is None:
            snapshots.append(snapshot())
            time.sleep(0.3)  # leave the ingest some CPU
            if hybrid is None and len(snapshots) == 3:
                hybrid = ragchain("search", "kwaaq file", "--index", index, "--json")
    finally:
        if proc.poll() is None:
            proc.wait(timeout=600)
    assert proc.returncode == 0, log.read_text(errors="replace")[-2000:]
    snapshots.append(snapshot())
    assert hybrid is not None and hybrid.returncode == 0, hybrid and hybrid.stderr
    json.loads(hybrid.stdout)

    final = store_ids(index)
    assert final.docstore == final.lexical == final.vectors
    sizes = {word: len(snapshots[-1][word]) for word in [*words, *base]}
    assert all(size >= 2 for size in sizes.values()), sizes  # every file is several chunks
    partial = []
    for number, snapshot in enumerate(snapshots):
        for word, hits in snapshot.items():
            mine = [hit for hit in hits if hit["doc_id"] == (words | base)[word]]
            if len(mine) not in (0, sizes[word]):
                partial.append((number, word, len(mine), sizes[word]))
            if word in base:
                assert len(mine) == sizes[word], "a committed document disappeared during the ingest"
    assert not partial, partial
    seen_growing = {sum(bool(hits) for hits in snapshot.values()) for snapshot in snapshots}
    assert len(snapshots) >= 3 and len(seen_growing) >= 2, "the searches never ran while the ingest was mid-way"
