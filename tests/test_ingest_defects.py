"""Defects of issue 16 around ingest, each with the case that showed it: symlinked folders, bugs
in loaders, files that turn bad on re-ingest, .ragchainignore problems, an interrupted ingest,
progress during embedding, and first-run mistakes (empty folder, --index a file, a missing path,
a model folder given relative to the working directory)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from ragchain_cli.ingest.pipeline import IngestOptions, ingest
from ragchain_cli.stores.embedders import DEFAULT_MODEL, model_folder
from ragchain_cli.stores.index import Index


def _notes(folder: Path, count: int = 2) -> Path:
    folder.mkdir(parents=True)
    words = ["aurora borealis", "tardigrades in space", "quokka island", "volcanic glass", "narwhal tusk"]
    for i in range(count):
        (folder / f"{chr(97 + i)}.txt").write_text(f"Note {i} is about the {words[i % len(words)]}.\n",
                                                   encoding="utf-8")
    return folder


def _doc_ids(cli, query: str, *args) -> list[str]:
    result = cli("search", query, "--retrievers", "bm25", "--json", *args)
    assert result.code == 0, result.err
    return [hit["doc_id"] for hit in result.json()["hits"]]


def test_a_file_deleted_below_a_symlinked_folder_leaves_the_index(tmp_path, cli):
    real = _notes(tmp_path / "real")
    os.symlink("real", tmp_path / "link")
    assert cli("ingest", "link", "--json").code == 0
    assert _doc_ids(cli, "tardigrades") == ["link/b.txt"]
    (real / "b.txt").unlink()
    again = cli("ingest", "link", "--json")
    assert again.code == 0, again.err
    assert again.json()["files_removed"] == 1
    assert _doc_ids(cli, "tardigrades") == []
    assert cli("check").code == 0


def test_a_bug_in_a_loader_is_exit_1_with_a_traceback_not_a_skipped_file(tmp_path, cli, monkeypatch):
    from ragchain_cli.ingest.loaders import LOADERS

    def buggy_text_loader(path, doc_id, options):
        return None + 1  # a programming error, not a bad file

    monkeypatch.setitem(LOADERS._entries, "text", buggy_text_loader)
    result = cli("ingest", _notes(tmp_path / "docs"), "--json")
    assert result.code == 1, result.err
    assert "Traceback" in result.err and "TypeError" in result.err and "bug" in result.err
    assert "skipped" not in result.err


def test_a_file_that_turns_empty_or_corrupt_keeps_its_last_good_version(tmp_path, cli):
    corpus = _notes(tmp_path / "docs", 3)
    from helpers import make_pdf

    make_pdf(corpus / "d.pdf", ["The pdf speaks of the pangolin."])
    assert cli("ingest", corpus).code == 0
    (corpus / "b.txt").write_bytes(b"")
    (corpus / "d.pdf").write_bytes((corpus / "d.pdf").read_bytes()[:300])  # cut short: corrupt
    again = cli("ingest", corpus, "--json")
    assert again.code == 3, again.err
    skipped = {Path(item["path"]).name: item for item in again.json()["skipped"]}
    assert skipped["b.txt"]["reason"] == "empty file" and skipped["b.txt"]["kept_previous"] is True
    assert skipped["d.pdf"]["kept_previous"] is True
    assert "last good version" in again.err
    assert _doc_ids(cli, "tardigrades") == ["docs/b.txt"]
    assert _doc_ids(cli, "pangolin") == ["docs/d.pdf"]
    status = cli("status", "--json").json()
    assert {Path(s["path"]).name: s["reason"] for s in status["stale_files"]}.keys() == {"b.txt", "d.pdf"}
    assert cli("check").code == 0

    (corpus / "b.txt").write_text("Note 1 now speaks of the axolotl.\n", encoding="utf-8")
    fixed = cli("ingest", corpus, "--json")
    assert fixed.json()["files_ingested"] == 1
    assert [Path(s["path"]).name for s in cli("status", "--json").json()["stale_files"]] == ["d.pdf"]
    assert _doc_ids(cli, "tardigrades") == [] and _doc_ids(cli, "axolotl") == ["docs/b.txt"]


def test_a_large_file_that_turns_corrupt_part_way_keeps_its_documents(tmp_path):
    """The failure after some batches of the new version were written: before, the whole file went."""
    import json

    corpus = tmp_path / "docs"
    corpus.mkdir()
    animals = ["aardvark", "bonobo", "caracal", "dugong"]
    lines = [json.dumps({"_id": f"d{i}", "text": f"Document {i} tells of the {a}."}) for i, a in enumerate(animals)]
    (corpus / "c.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    index = Index(tmp_path / "index", create=True)
    options = IngestOptions(embed_model=DEFAULT_MODEL, batch_chunks=1)  # a batch a document
    try:
        assert ingest(index, [corpus], options).files_ingested == 1
        lines[0] = json.dumps({"_id": "d0", "text": "Document 0 now tells of the echidna."})
        lines[2] = '{"_id": "d2", "text": '  # cut short
        (corpus / "c.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        report = ingest(index, [corpus], options)
        assert [(s.reason.startswith("line 3"), s.kept_previous) for s in report.skipped] == [(True, True)]
        texts = {c.doc_id: c.text for c in index.docstore.chunks(sorted(index.docstore.chunk_ids())).values()}
        assert set(texts) == {"d0", "d1", "d2", "d3"} and "caracal" in texts["d2"]
        assert index.check().consistent
        assert list(index.docstore.stale_files()) == [str(corpus / "c.jsonl")]
    finally:
        index.close()


def test_a_new_file_that_fails_is_skipped_and_not_marked_stale(tmp_path, cli):
    corpus = _notes(tmp_path / "docs")
    (corpus / "z.txt").write_bytes(b"")
    result = cli("ingest", corpus, "--json")
    assert result.code == 3
    assert [item["kept_previous"] for item in result.json()["skipped"]] == [False]
    assert cli("status", "--json").json()["stale_files"] == []


def test_ragchainignore_problems_are_reported_on_stderr_and_in_the_json(tmp_path, cli):
    corpus = _notes(tmp_path / "docs", 3)
    (corpus / ".ragchainignore").write_text("# notes\na.txt\n!b.txt\nsub/c.txt\n", encoding="utf-8")
    sub = _notes(corpus / "sub")
    (sub / ".ragchainignore").write_bytes(b"caf\xe9.txt\n")
    result = cli("ingest", corpus, "--json")
    assert result.code == 0, result.err
    report = result.json()
    warnings = {os.path.relpath(w["path"], corpus): w["reason"] for w in report["warnings"]}
    assert set(warnings) == {".ragchainignore:3", ".ragchainignore:4", "sub/.ragchainignore"}
    assert "negation" in warnings[".ragchainignore:3"] and "not UTF-8" in warnings["sub/.ragchainignore"]
    assert report["files_seen"] == 4  # a.txt ignored; b.txt, c.txt and sub's two files kept
    assert result.err.count("warning:") == 3 and "not UTF-8" in result.err


def test_ctrl_c_during_ingest_says_what_was_kept_and_the_next_ingest_resumes(tmp_path):
    from ragchain_cli.errors import IngestInterrupted

    corpus = _notes(tmp_path / "docs", 5)
    index = Index(tmp_path / "index", create=True)
    options = IngestOptions(embed_model=DEFAULT_MODEL, batch_chunks=1)  # every file its own batch

    def ctrl_c_at_the_fourth_file(state) -> None:
        if state.files_done == 4:
            raise KeyboardInterrupt

    try:
        with pytest.raises(IngestInterrupted) as caught:
            ingest(index, [corpus], options, ctrl_c_at_the_fourth_file)
        from ragchain_cli.cli.output import exit_code

        assert exit_code(caught.value) == 130  # exit codes come from cli/output.py's one table
        # files 1-2 are complete; file 3's documents are written, its record goes with the next batch
        assert "2 file(s) are complete" in caught.value.message and "resumes" in caught.value.hint
        # ... and file 3, searchable already, is named as such (issue 28), not said to keep its previous version
        assert "1 file(s) not finished are already searchable in part: " in caught.value.message
        assert "docs/c.txt (1 document)" in caught.value.message
        resumed = ingest(index, [corpus], options)
        assert (resumed.files_unchanged, resumed.files_ingested) == (2, 3)
        assert index.check().consistent and index.docstore.counts()["files"] == 5
    finally:
        index.close()


def test_sigint_to_the_ingest_process_exits_130_and_the_next_ingest_resumes(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    corpus, index = _notes(tmp_path / "docs", 20), tmp_path / "index"
    command = [sys.executable, "-m", "ragchain_cli", "ingest", str(corpus), "--index", str(index), "--json"]
    # Ctrl-C reaches a command run in the foreground; a test run in the background (nohup ... &)
    # inherits SIGINT ignored, and so would the ingest, which then never sees the signal
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    lock, deadline = index / "ingest.lock", time.monotonic() + 120
    while process.poll() is None and time.monotonic() < deadline:
        if lock.is_file() and lock.read_text().strip():  # the ingest holds the lock: it is under way
            break
        time.sleep(0.02)
    time.sleep(0.3)  # the embedding model is still loading
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert "ingest interrupted" in err and "resumes" in err and "Traceback" not in err
    again = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["files_seen"] == 20
    assert subprocess.run([*command[:3], "check", "--index", str(index)], timeout=120).returncode == 0


def test_progress_moves_while_one_batch_is_embedded(tmp_path):
    from ragchain_cli.ingest.writer import EMBED_STEP

    corpus = tmp_path / "docs"
    corpus.mkdir()
    sentences = " ".join(f"Sentence {i} names the walrus number {i}." for i in range(600))
    (corpus / "long.txt").write_text(sentences, encoding="utf-8")
    index = Index(tmp_path / "index", create=True)
    notes: list = []
    options = IngestOptions(embed_model=DEFAULT_MODEL, chunk_size=32, chunk_overlap=8)  # short chunks: quick
    try:
        report = ingest(index, [corpus], options, notes.append)
    finally:
        index.close()
    assert options.batch_chunks > report.chunks_added > EMBED_STEP  # one file, one batch, several steps
    loading = [n for n in notes if n.stage.startswith("loading ")]
    moving = [n for n in notes if not n.stage and n.rate is not None or n.chunks_done]
    assert loading and notes.index(loading[0]) < notes.index(moving[0])  # the model load is said first
    done = sorted({n.chunks_done for n in notes})
    assert len(done) - 1 == -(-report.chunks_added // EMBED_STEP) >= 2  # every step is reported
    assert done[-1] == report.chunks_added
    assert notes[-1].chunks_total == report.chunks_added and not notes[-1].estimated  # the file is read: exact


def test_ingest_of_an_empty_folder_says_so_and_leaves_no_index(tmp_path, cli):
    (tmp_path / "empty").mkdir()
    result = cli("ingest", "empty", "--json")
    assert result.code == 0, result.err
    assert result.json()["files_seen"] == 0
    assert "nothing to ingest" in result.err and "no index was created" in result.err
    assert not (tmp_path / ".ragchain").exists()
    assert cli("status").code == 4  # no index, said plainly; not a broken one


def test_index_pointing_at_a_file_is_a_usage_error(tmp_path, cli):
    (tmp_path / "afile").write_text("x", encoding="utf-8")
    for command in (("ingest", _notes(tmp_path / "docs")), ("search", "x"), ("status",)):
        result = cli(*command, "--index", tmp_path / "afile")
        assert result.code == 2, (command, result.err)
        assert "is a file, not a folder" in result.err and "Traceback" not in result.err


def test_a_path_that_does_not_exist_is_a_usage_error(tmp_path, cli):
    _notes(tmp_path / "docs")
    result = cli("ingest", "docs", "../nope")
    assert result.code == 2 and "no such file or folder: ../nope" in result.err
    assert not (tmp_path / ".ragchain").exists()


def test_a_relative_embed_model_folder_is_stored_so_search_works_from_elsewhere(tmp_path, cli, monkeypatch):
    shutil.copytree(model_folder(DEFAULT_MODEL), tmp_path / "models" / "minilm")
    work = tmp_path / "work"
    _notes(work / "docs")
    monkeypatch.chdir(work)
    result = cli("ingest", "docs", "--embed-model", "../models/minilm", "--index", "idx", "--json")
    assert result.code == 0, result.err
    stored = cli("status", "--index", "idx", "--json").json()["manifest"]["embed_model"]
    assert stored == str(tmp_path / "models" / "minilm")
    monkeypatch.chdir(tmp_path)
    found = cli("search", "tardigrades", "--index", "work/idx", "--retrievers", "dense", "-k", "1", "--json")
    assert found.code == 0, found.err
    assert found.json()["hits"][0]["doc_id"] == "docs/b.txt"
    again = cli("ingest", "work/docs", "--embed-model", "models/minilm", "--index", "work/idx")
    assert again.code == 0, again.err  # the same folder, typed from elsewhere: not a mismatch


def test_a_missing_model_folder_hint_names_real_flags(tmp_path, cli):
    result = cli("ingest", _notes(tmp_path / "docs"), "--embed-model", tmp_path / "nothing")
    assert result.code == 6
    assert "ragchain ingest --embed-model DIR" in result.err


def test_a_pdf_read_only_in_part_is_indexed_with_a_warning(tmp_path, cli):
    from helpers import make_pdf

    docs = tmp_path / "docs"
    docs.mkdir()
    whole = make_pdf(tmp_path / "whole.pdf", ["The heron page one.", "The heron page two."]).read_bytes()
    cut = whole.index(b"endstream") + len(b"endstream\nendobj\n")  # after the first page's text
    (docs / "cut.pdf").write_bytes(whole[:cut])  # the rest of the file is gone
    result = cli("ingest", docs, "--index", tmp_path / "index", "--json")
    report = result.json()
    assert result.code == 0 and report["files_ingested"] == 1, result.err
    assert [w["reason"] for w in report["warnings"]] == [
        "damaged PDF, read as far as it could be repaired: some text may be missing"]
    assert "cut.pdf: damaged PDF" in result.err
