"""Crash consistency: `ragchain ingest` killed with SIGKILL at random moments, for real.

Each round starts the real CLI in a subprocess (Tantivy, LanceDB, MiniLM; only the batch size is
made small so that a run commits many batches and a kill can land anywhere: before the first
commit, inside a SQLite transaction, between the docstore commit and the Tantivy commit, between
Tantivy and LanceDB, inside LanceDB's first table create, in the final optimize), kills it after a
seeded random delay, then checks that

- nothing committed before the kill is lost, and the indexes are never ahead of the docstore;
- `ragchain search --retrievers bm25` (and hybrid, some rounds) exits 0 with valid JSON and finds
  the documents that were fully written before the kill;

and at the end that one uninterrupted ingest leaves `ragchain check` at exit 0 with exactly the
chunk IDs and counts of a clean ingest of the same corpus. bench/crash_bench.py runs the same
harness with more kills and files.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from ragchain_cli.errors import IndexNotFound
from ragchain_cli.stores.index import Index

# The real CLI, with the one knob a user does not have: IngestOptions.batch_chunks (files per
# commit). Small batches mean many commits, so random kills land between and inside them.
HARNESS = """
import dataclasses, sys
from ragchain_cli.ingest import pipeline
original = pipeline.ingest
def ingest(index, paths, options, progress=None):
    return original(index, paths, dataclasses.replace(options, batch_chunks=int(sys.argv[1])), progress)
pipeline.ingest = ingest
from ragchain_cli.cli.app import run
sys.exit(run(sys.argv[2:]))
"""

WORDS = ("river stone harbour lantern meadow copper violet orchard signal ledger quarry beacon canyon "
         "falcon tundra mosaic prism saddle thicket walnut").split()


def ragchain(*args, stdin: str | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ragchain_cli", *map(str, args)], capture_output=True,
                          text=True, input=stdin, timeout=timeout)


def spawn_ingest(corpus: Path, index: Path, batch: int, log: Path, *extra: str) -> subprocess.Popen:
    with log.open("ab") as sink:
        return subprocess.Popen([sys.executable, "-c", HARNESS, str(batch), "ingest", str(corpus),
                                 "--index", str(index), "--json", *extra], stdout=sink, stderr=sink)


def sentinel(number: int) -> str:
    """A word no other file holds: 'kx' + base-26 letters + 'q' (no suffix the stemmer would change)."""
    letters = ""
    number += 26 * 26
    while number:
        number, rest = divmod(number, 26)
        letters = chr(ord("a") + rest) + letters
    return "kx" + letters + "q"


def make_corpus(folder: Path, files: int, seed: int) -> dict[str, str]:
    """`files` small notes in a few subfolders, one chunk each; returns {sentinel: doc_id}."""
    rng = random.Random(seed)
    expected = {}
    for number in range(files):
        sub = folder / f"part{number % 4}"
        sub.mkdir(parents=True, exist_ok=True)
        word = sentinel(number)
        body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(12, 40)))
        (sub / f"note{number:04d}.txt").write_text(f"Note {number}: the {word} record. {body}.\n", encoding="utf-8")
        expected[word] = f"{folder.name}/part{number % 4}/note{number:04d}.txt"
    return expected


@dataclass
class StoreIds:
    docstore: set[str]
    lexical: set[str]
    vectors: set[str]
    pending: int

    @property
    def applied(self) -> set[str]:
        return self.docstore & self.lexical & self.vectors


def store_ids(index: Path) -> StoreIds:
    try:
        store = Index(index)
    except IndexNotFound:  # no index yet, or a first ingest killed before it recorded its settings
        return StoreIds(set(), set(), set(), 0)
    try:
        return StoreIds(store.docstore.chunk_ids(), store.lexical.ids(), store.vectors.ids(),
                        store.docstore.pending_count())
    finally:
        store.close()


def doc_of_chunks(index: Path, chunk_ids: set[str]) -> set[str]:
    store = Index(index)
    try:
        return {chunk.doc_id for chunk in store.docstore.chunks(sorted(chunk_ids)).values()}
    finally:
        store.close()


def search_answers(index: Path, queries: list[str], *retrievers: str, built: bool = True) -> list[dict]:
    """One `ragchain search -` run; asserts exit 0 and one valid JSON line per query. An index
    whose first ingest died before its first commit (`built` False) may instead say exactly that."""
    args = ["search", "-", "--index", index, "-k", "3", "--json"]
    if retrievers:
        args += ["--retrievers", ",".join(retrievers)]
    result = ragchain(*args, stdin="\n".join(queries) + "\n")
    if not built and result.returncode == 4:
        assert "holds no documents yet" in result.stderr or "no index" in result.stderr, result.stderr
        return [{"query": query, "hits": []} for query in queries]
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["query"] for line in lines] == queries
    return lines


def committed_chunks(index: Path) -> int:
    """Chunks in the docstore right now (a read-only look; 0 before the first commit)."""
    db = index / "docstore.sqlite"
    if not db.exists():
        return 0
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        return conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
    except sqlite3.OperationalError:  # the schema is not there yet
        return 0
    finally:
        conn.close()


KINDS = ("startup", "after-commit", "mid-batch")


def kill_at(proc: subprocess.Popen, index: Path, rng: random.Random, kind: str, target: int,
            startup: tuple[float, float]) -> tuple[bool, float]:
    """SIGKILL `proc` at a random point of the given kind; returns (killed, seconds after start).

    startup: a random delay in `startup` seconds (imports, model load, discovery, replay).
    after-commit: within 50 ms of the docstore reaching `target` chunks, i.e. just after a batch's
    SQLite commit, while its journal is being applied to Tantivy and LanceDB.
    mid-batch: 50 ms to 1 s after that, anywhere in the next batch (embedding, the transaction,
    the index commits). Progress-based points land in the same phases whatever the machine's speed.
    """
    started = time.monotonic()
    if kind == "startup":
        deadline = started + rng.uniform(*startup)
        while time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.01)
    else:
        jitter = rng.uniform(0.0, 0.05) if kind == "after-commit" else rng.uniform(0.05, 1.0)
        while proc.poll() is None and committed_chunks(index) < target:
            assert time.monotonic() - started < 600, "no progress for 10 minutes"
            time.sleep(0.02)
        time.sleep(jitter)
    if proc.poll() is not None:
        return False, time.monotonic() - started
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    return True, time.monotonic() - started


@dataclass
class CrashStats:
    rounds: int = 0
    kills: int = 0
    kills_by_kind: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    finished_before_kill: int = 0
    kills_with_pending_journal: int = 0
    kills_with_indexes_behind: int = 0
    kills_before_first_commit: int = 0
    searches: int = 0
    hybrid_searches: int = 0
    documents_checked: int = 0
    chunks_lost: int = 0
    delays: list[float] = field(default_factory=list)


def crash_rounds(corpus: Path, index: Path, expected: dict[str, str], kills: int, seed: int, batch: int,
                 hybrid_rounds: set[int], log: Path, sample: int = 25,
                 startup: tuple[float, float] = (0.3, 4.0)) -> CrashStats:
    """Kill `kills` ingests of `corpus` into `index` (one chunk per file), checking the index after
    each kill. A quarter of the kills are timed start-up kills, the rest are split between just
    after a commit and mid-batch (seeded order); targets are spread so the corpus never finishes."""
    rng = random.Random(seed)
    stats = CrashStats()
    by_doc = {doc: word for word, doc in expected.items()}
    total = len(expected)
    startups = max(1, kills // 4)
    plan = ["startup"] * startups + [KINDS[1 + i % 2] for i in range(kills - startups)]
    rng.shuffle(plan)
    before = store_ids(index)
    while stats.kills < kills:
        stats.rounds += 1
        kind = plan[stats.kills]
        done, left = len(before.docstore), kills - stats.kills
        step = max(1, (total - done) // (left + 1))
        target = min(total - 1, done + rng.randint(1, 2 * step))
        proc = spawn_ingest(corpus, index, batch, log)
        killed, seconds = kill_at(proc, index, rng, kind, target, startup)
        if killed:
            stats.kills += 1
            stats.kills_by_kind[kind] += 1
            stats.delays.append(round(seconds, 2))
        else:
            stats.finished_before_kill += 1
            assert proc.returncode == 0, log.read_text(errors="replace")[-2000:]
            if stats.finished_before_kill > kills:
                raise AssertionError("the ingest keeps finishing before the kill: make the corpus bigger")

        now = store_ids(index)
        # Nothing that was committed and indexed before this round is gone ...
        lost = before.applied - now.docstore
        stats.chunks_lost += len(lost)
        assert not lost, f"round {stats.rounds}: {len(lost)} committed chunks lost"
        assert before.applied <= now.applied, f"round {stats.rounds}: indexed chunks fell out of an index"
        # ... and the indexes are never ahead of the docstore (this corpus has no deletions):
        # the docstore commits first, then Tantivy, then LanceDB.
        assert now.vectors <= now.lexical <= now.docstore, f"round {stats.rounds}: an index is ahead"
        stats.kills_with_pending_journal += now.pending > 0
        stats.kills_with_indexes_behind += now.lexical != now.docstore or now.vectors != now.docstore
        stats.kills_before_first_commit += not now.docstore

        # Search answers from the committed state: every fully written document is found by its word.
        visible = sorted(doc_of_chunks(index, now.applied)) if now.applied else []
        checked = rng.sample(visible, min(sample, len(visible)))
        queries = [f"{by_doc[doc]} record" for doc in checked] or ["record"]
        for query, line in zip(queries, search_answers(index, queries, "bm25", built=bool(now.docstore))):
            assert {hit["chunk_id"] for hit in line["hits"]} <= now.docstore
            if checked:
                assert line["hits"] and line["hits"][0]["doc_id"] == expected[query.split()[0]], (query, line)
        stats.searches += 1
        stats.documents_checked += len(checked)
        if stats.rounds in hybrid_rounds:
            stats.hybrid_searches += 1
            _check_hybrid(index, now, checked, by_doc, expected)
        before = now
    return stats


def _check_hybrid(index: Path, now: StoreIds, checked: list[str], by_doc: dict, expected: dict) -> None:
    query = f"{by_doc[checked[0]]} record" if checked else "record"
    result = ragchain("search", query, "--index", index, "-k", "3", "--json")
    if not now.docstore and result.returncode == 4:  # killed before the first commit: nothing to search yet
        assert "holds no documents yet" in result.stderr or "no index" in result.stderr
        return
    assert result.returncode == 0, result.stderr
    hits = json.loads(result.stdout)["hits"]
    assert {hit["chunk_id"] for hit in hits} <= now.docstore
    if checked:
        assert expected[query.split()[0]] in [hit["doc_id"] for hit in hits]


def finish_and_compare(corpus: Path, index: Path, clean: Path, batch: int, log: Path) -> dict:
    """One uninterrupted ingest repairs everything: check passes and the stores equal a clean ingest."""
    final = spawn_ingest(corpus, index, batch, log)
    assert final.wait(timeout=600) == 0, log.read_text(errors="replace")[-2000:]
    check = ragchain("check", "--index", index, "--json")
    assert check.returncode == 0, check.stderr
    fresh = ragchain("ingest", corpus, "--index", clean, "--json")
    assert fresh.returncode == 0, fresh.stderr
    repaired, reference = store_ids(index), store_ids(clean)
    assert repaired.docstore == repaired.lexical == repaired.vectors == reference.docstore
    assert reference.docstore == reference.lexical == reference.vectors
    counts = json.loads(check.stdout)["counts"]
    clean_counts = json.loads(ragchain("status", "--index", clean, "--json").stdout)["counts"]
    assert counts == clean_counts
    return counts


def test_sigkill_at_random_points_loses_nothing_and_the_next_ingest_repairs(tmp_path):
    corpus = tmp_path / "notes"
    expected = make_corpus(corpus, files=120, seed=8)
    index, log = tmp_path / "index", tmp_path / "ingest.log"
    stats = crash_rounds(corpus, index, expected, kills=8, seed=8, batch=4, hybrid_rounds={1, 6}, log=log,
                         sample=20)
    assert stats.kills == 8 and stats.chunks_lost == 0
    # the kills hit the writing itself, not only the start-up
    assert stats.kills_by_kind == {"startup": 2, "after-commit": 3, "mid-batch": 3}, stats
    assert stats.kills_with_indexes_behind + stats.kills_with_pending_journal >= 1, stats
    counts = finish_and_compare(corpus, index, tmp_path / "clean", batch=4, log=log)
    assert counts["files"] == counts["documents"] == counts["chunks"] == 120


def test_a_lancedb_table_create_killed_before_its_manifest_is_repaired(tmp_path, cli, monkeypatch):
    """LanceDB writes a new table's transaction file before its manifest; a kill in between leaves a
    folder that LanceDB lists but cannot open. Before the fix every later search and ingest failed
    with `Table 'chunks' was not found`: the index could never be repaired."""
    corpus = tmp_path / "notes"
    expected = make_corpus(corpus, files=6, seed=1)
    index = tmp_path / "index"
    with monkeypatch.context() as patch:  # the first batch commits to SQLite, then the process "dies"
        patch.setattr(Index, "replay", lambda self: 0)
        assert cli("ingest", corpus, "--index", index).code == 0
    debris = index / "vectors" / "chunks.lance" / "_transactions"
    debris.mkdir(parents=True)
    (debris / "0-4f1c2d3e.txn").write_bytes(b"\x00" * 64)

    word = next(iter(expected))
    hybrid = cli("search", f"{word} record", "--index", index, "--json")
    assert hybrid.code == 0, hybrid.err  # nothing is indexed yet, and that is what it answers
    assert hybrid.json()["hits"] == []
    assert cli("check", "--index", index).code == 4
    repaired = cli("ingest", corpus, "--index", index, "--json")
    assert repaired.code == 0, repaired.err
    assert repaired.json()["replayed"] == 12  # 6 chunk adds and 6 `doc` entries
    assert cli("check", "--index", index).code == 0
    hits = cli("search", f"{word} record", "--index", index, "--json").json()["hits"]
    assert hits[0]["doc_id"] == expected[word]


def test_search_on_an_index_whose_first_ingest_never_committed_is_a_clear_error(tmp_path, cli):
    """A first ingest killed before its first batch leaves a docstore without settings. Every reader
    says so (exit 4, with the fix) instead of the dense retriever's KeyError traceback (exit 1)."""
    Index(tmp_path / "index", create=True).close()
    for args in (("search", "anything"), ("search", "anything", "--retrievers", "bm25"), ("check",)):
        result = cli(*args, "--index", tmp_path / "index", "--json")
        assert result.code == 4 and "holds no documents yet" in result.err, (args, result.err)
    corpus = tmp_path / "notes"
    make_corpus(corpus, files=2, seed=3)
    assert cli("ingest", corpus, "--index", tmp_path / "index").code == 0
    assert cli("check", "--index", tmp_path / "index").code == 0


def test_a_delete_file_left_by_a_killed_commit_does_not_stop_the_next_one(tmp_path):
    # A kill after Tantivy wrote a segment's .del file but before the meta.json naming it: the next
    # commit of the same deletes writes the same file name (found by the SIGKILL test above, at random).
    from ragchain_cli.stores.lexical import LexicalIndex

    path = tmp_path / "lexical"
    first = LexicalIndex(path)
    first.apply([], [("c1", "heron inlet closed"), ("c2", "ferry to fernbrook")])
    first.close()
    meta = (path / "meta.json").read_text()
    killed = LexicalIndex(path)
    killed.apply(["c1"], [])
    killed.close()
    (path / "meta.json").write_text(meta)
    again = LexicalIndex(path)
    again.apply(["c1"], [])
    assert [chunk_id for chunk_id, _ in again.search("heron inlet ferry", 5)] == ["c2"]
