"""A big file is written a batch at a time (memory holds one batch, not the file), and a file that
fails or is cut off part way leaves nothing of itself behind once the next ingest has run."""

from __future__ import annotations

import json
import signal
import sqlite3
import time
from pathlib import Path

import numpy as np
import pytest

from ragchain_cli.ingest.pipeline import IngestOptions, ingest
from ragchain_cli.ingest.writer import BatchWriter
from ragchain_cli.stores.index import Index

from test_reliability_crash import committed_chunks, ragchain, spawn_ingest

MODEL = "all-MiniLM-L6-v2"
SUBJECTS = "heron osprey kelp otter walrus narwhal puffin albatross lamprey sturgeon".split()


def jsonl(path: Path, count: int, bad_after: int | None = None) -> Path:
    lines = [json.dumps({"_id": f"d{i}", "title": f"Note {i}", "text": f"Record {i} is about the {SUBJECTS[i % 10]} "
                         f"seen near buoy number {i}."}) for i in range(count)]
    if bad_after is not None:
        lines.insert(bad_after, '{"_id": "broken", "text": ')
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def consistent(index_dir: Path) -> tuple[int, set[str]]:
    """(pending journal entries, document IDs), after asserting the three stores hold the same chunks."""
    index = Index(index_dir)
    try:
        found = index.check()
        assert not (found.missing_lexical or found.missing_vectors or found.extra_lexical or found.extra_vectors)
        docs = {c.doc_id for c in index.docstore.chunks(sorted(index.docstore.chunk_ids())).values()}
        return found.pending, docs
    finally:
        index.close()


def counting_flushes(monkeypatch) -> list[int]:
    calls: list[int] = []
    real = BatchWriter.flush

    def flush(self):
        calls.append(self._pending)
        return real(self)

    monkeypatch.setattr(BatchWriter, "flush", flush)
    return calls


def test_one_big_jsonl_is_written_a_batch_at_a_time(tmp_path, monkeypatch):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    jsonl(corpus / "big.jsonl", 30)
    flushes = counting_flushes(monkeypatch)
    notes: list = []
    report = ingest(Index(tmp_path / "idx", create=True), [corpus], IngestOptions(MODEL, batch_chunks=4), notes.append)
    assert {Path(n.path).name for n in notes} == {"big.jsonl"} and notes[-1].files_done == notes[-1].files_total == 1
    assert len([n for n in notes if n.stage.startswith("loading ")]) == 1  # the embedding model, once
    done = [n.chunks_done for n in notes]
    assert done == sorted(done) and len(set(done)) >= 8  # the embedding moved it, batch by batch
    assert (notes[-1].chunks_done, notes[-1].chunks_total, notes[-1].estimated) == (30, 30, False)
    assert report.files_ingested == 1 and report.documents == 30 and report.chunks_added == 30
    assert len([n for n in flushes if n]) >= 7 and max(flushes) <= 4  # never more than a batch queued
    pending, docs = consistent(tmp_path / "idx")
    assert pending == 0 and docs == {f"d{i}" for i in range(30)}
    again = ingest(Index(tmp_path / "idx"), [corpus], IngestOptions(MODEL, batch_chunks=4))
    assert again.files_unchanged == 1 and again.chunks_added == 0  # the file record came with its last batch


def test_a_bad_line_after_written_batches_skips_the_file_and_leaves_none_of_it(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    jsonl(corpus / "bad.jsonl", 20, bad_after=15)
    (corpus / "good.txt").write_text("The lighthouse keeper logs every passing tanker.\n", encoding="utf-8")
    report = ingest(Index(tmp_path / "idx", create=True), [corpus], IngestOptions(MODEL, batch_chunks=4))
    [skipped] = report.skipped
    assert skipped.path.endswith("bad.jsonl") and "line 16" in skipped.reason
    assert report.files_ingested == 1 and report.chunks_removed >= 12  # the batches it had written, taken back
    pending, docs = consistent(tmp_path / "idx")
    assert pending == 0 and docs == {"corpus/good.txt"}


def test_a_file_cut_off_part_way_and_then_deleted_is_removed_by_the_next_ingest(tmp_path, monkeypatch):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    big = jsonl(corpus / "big.jsonl", 12)
    (corpus / "keep.txt").write_text("Tide tables are printed every Monday.\n", encoding="utf-8")
    monkeypatch.setattr(BatchWriter, "finish_file", lambda self, record: (_ for _ in ()).throw(SystemExit(9)))
    with pytest.raises(SystemExit):  # dies after big.jsonl's batches, before its record (as a kill would)
        ingest(Index(tmp_path / "idx", create=True), [big], IngestOptions(MODEL, batch_chunks=4))
    monkeypatch.undo()
    assert consistent(tmp_path / "idx")[1] >= {"d0", "d7"}
    big.unlink()
    report = ingest(Index(tmp_path / "idx"), [corpus], IngestOptions(MODEL, batch_chunks=4))
    assert report.files_removed == 1 and report.chunks_removed >= 8
    assert consistent(tmp_path / "idx") == (0, {"corpus/keep.txt"})


def test_sigkill_inside_one_big_file_answers_then_the_next_ingest_completes_it(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    jsonl(corpus / "big.jsonl", 80)
    index = tmp_path / "idx"
    proc = spawn_ingest(corpus, index, 4, tmp_path / "ingest.log")
    started = time.monotonic()
    while proc.poll() is None and committed_chunks(index) < 12:
        assert time.monotonic() - started < 300, "no progress"
        time.sleep(0.02)
    assert proc.poll() is None, "the ingest finished before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    search = ragchain("search", "osprey buoy", "--index", index, "--retrievers", "bm25", "--json")
    assert search.returncode == 0 and json.loads(search.stdout)["hits"]  # the batches written so far answer
    result = ragchain("ingest", corpus, "--index", index, "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["chunks_added"] == 80 and report["vectors_reused"] >= 12  # what the killed run embedded
    assert consistent(index) == (0, {f"d{i}" for i in range(80)})
    assert ragchain("check", "--index", index).returncode == 0



def test_an_edited_file_keeps_the_vectors_of_its_unchanged_chunks(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    big = jsonl(corpus / "big.jsonl", 20)
    ingest(Index(tmp_path / "idx", create=True), [corpus], IngestOptions(MODEL, batch_chunks=8))
    before = Index(tmp_path / "idx")
    old = before.vectors.vectors(sorted(before.vectors.ids()))
    before.close()
    lines = big.read_text(encoding="utf-8").splitlines()
    lines[3] = json.dumps({"_id": "d3", "title": "Note 3", "text": "Record 3 now says the walrus left the bay."})
    del lines[5]  # d5 leaves the file
    big.write_text("\n".join(lines + [json.dumps({"_id": "d20", "text": "A new record about kelp."})]) + "\n",
                   encoding="utf-8")
    report = ingest(Index(tmp_path / "idx"), [corpus], IngestOptions(MODEL, batch_chunks=4))  # 5 batches
    assert report.chunks_added == 20 and report.vectors_reused == 18 and report.chunks_removed == 20
    after = Index(tmp_path / "idx")
    new = after.vectors.vectors(sorted(after.vectors.ids()))
    after.close()
    kept = set(old) & set(new)
    assert len(kept) == 18 and all(np.array_equal(old[cid], new[cid]) for cid in kept)
    assert consistent(tmp_path / "idx") == (0, {f"d{i}" for i in range(21)} - {"d5"})
    with sqlite3.connect(tmp_path / "idx" / "docstore.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM documents WHERE doc_id = 'd5'").fetchone() == (0,)
