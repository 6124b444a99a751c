"""A file that cannot be read (issue 53): one that is there but cannot be read (a FIFO in its place,
no read permission, a folder without permission) or that is deleted while the ingest runs keeps its
last good version, marked stale, is reported once with the reason, and the report says it was kept
(`kept_previous`). A file deleted before the ingest starts is removed (tests/test_ingest.py)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ragchain_cli.ingest.pipeline import IngestOptions, Skipped, ingest
from ragchain_cli.stores.embedders import DEFAULT_MODEL
from ragchain_cli.stores.index import Index

NOT_REGULAR = "not a regular file (a FIFO, socket or device)"
NO_DAC = "--bounding-set=-dac_override,-dac_read_search"  # root without the power to read any file


def _notes(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "a.txt").write_text("Note 0 is about the aurora borealis.\n", encoding="utf-8")
    (folder / "b.txt").write_text("Note 1 is about the tardigrades in space.\n", encoding="utf-8")
    return folder


def _doc_ids(cli, query: str, *args) -> list[str]:
    result = cli("search", query, "--retrievers", "bm25", "--json", *args)
    assert result.code == 0, result.err
    return [hit["doc_id"] for hit in result.json()["hits"]]


def _fifo_in_place_of(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def test_a_file_replaced_by_a_fifo_is_reported_once_as_kept(tmp_path, cli):
    corpus = _notes(tmp_path / "docs")
    assert cli("ingest", corpus).code == 0
    _fifo_in_place_of(corpus / "b.txt")
    again = cli("ingest", corpus, "--json")
    assert again.json()["skipped"] == [{"path": str(corpus / "b.txt"), "reason": NOT_REGULAR, "kept_previous": True}]


def test_a_file_replaced_by_a_fifo_stays_searchable_and_stale(tmp_path, cli):
    corpus = _notes(tmp_path / "docs")
    assert cli("ingest", corpus).code == 0
    _fifo_in_place_of(corpus / "b.txt")
    assert cli("ingest", corpus).code == 3
    assert _doc_ids(cli, "tardigrades") == ["docs/b.txt"]
    assert cli("status", "--json").json()["stale_files"] == [{"path": str(corpus / "b.txt"), "reason": NOT_REGULAR}]


def test_a_new_fifo_is_reported_as_nothing_kept(tmp_path, cli):
    corpus = _notes(tmp_path / "docs")
    os.mkfifo(corpus / "c.txt")
    result = cli("ingest", corpus, "--json")
    assert [item["kept_previous"] for item in result.json()["skipped"]] == [False]


def test_a_sharded_index_reports_a_fifo_once_as_kept(tmp_path, cli):
    corpus, index = _notes(tmp_path / "docs"), tmp_path / "sharded"
    assert cli("ingest", corpus, "--index", index, "--shards", "2").code == 0
    _fifo_in_place_of(corpus / "b.txt")
    again = cli("ingest", corpus, "--index", index, "--json")
    assert again.json()["skipped"] == [{"path": str(corpus / "b.txt"), "reason": NOT_REGULAR, "kept_previous": True}]


def _unprivileged() -> tuple[str, ...]:
    """The command prefix under which mode 000 stops this process's children reading: none for a
    user; for root (the tests' usual user), setpriv dropping CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH."""
    if os.geteuid() != 0:
        return ()
    if shutil.which("setpriv") is None:
        pytest.skip("running as root, where mode 000 does not stop reading, and setpriv (util-linux) is missing")
    probe = subprocess.run(["setpriv", NO_DAC, "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("running as root, where mode 000 does not stop reading, and setpriv cannot drop "
                    f"CAP_DAC_OVERRIDE here: {probe.stderr.decode(errors='replace').strip()}")
    return ("setpriv", NO_DAC)


def _ingest_without_permission(corpus: Path, index: Path, closed: Path) -> dict:
    """`ragchain ingest corpus` in a process that cannot read `closed` (mode 000 meant as written)."""
    prefix = _unprivileged()
    mode = closed.stat().st_mode & 0o777
    os.chmod(closed, 0)
    try:
        result = subprocess.run([*prefix, sys.executable, "-m", "ragchain_cli", "ingest", str(corpus), "--index",
                                 str(index), "--json"], capture_output=True, text=True, timeout=300)
    finally:
        os.chmod(closed, mode)
    assert result.returncode == 3, result.stderr
    return json.loads(result.stdout)


def test_a_file_without_read_permission_keeps_its_chunks_and_says_so(tmp_path, cli):
    corpus, index = _notes(tmp_path / "docs"), tmp_path / "index"
    assert cli("ingest", corpus, "--index", index).code == 0
    report = _ingest_without_permission(corpus, index, corpus / "b.txt")
    assert report["skipped"] == [{"path": str(corpus / "b.txt"), "reason": "Permission denied", "kept_previous": True}]
    assert _doc_ids(cli, "tardigrades", "--index", index) == ["docs/b.txt"]


def test_a_folder_without_permission_keeps_the_chunks_of_its_files_and_says_so(tmp_path, cli):
    corpus, index = _notes(tmp_path / "docs"), tmp_path / "index"
    _notes(corpus / "sub")
    assert cli("ingest", corpus, "--index", index).code == 0
    report = _ingest_without_permission(corpus, index, corpus / "sub")
    assert report["skipped"] == [{"path": str(corpus / "sub"), "reason": "Permission denied", "kept_previous": True}]
    assert sorted(_doc_ids(cli, "tardigrades", "--index", index)) == ["docs/b.txt", "docs/sub/b.txt"]


def test_a_file_deleted_while_the_ingest_runs_keeps_its_chunks_until_the_next_ingest(tmp_path):
    corpus, options = _notes(tmp_path / "docs"), IngestOptions(embed_model=DEFAULT_MODEL)
    doomed = corpus / "b.txt"

    def delete_when_reached(progress) -> None:  # after discovery found it, before it is read
        if progress.path == str(doomed) and doomed.exists():
            doomed.unlink()

    index = Index(tmp_path / "index", create=True)
    try:
        ingest(index, [corpus], options)
        report = ingest(index, [corpus], options, progress=delete_when_reached)
        held = (report.skipped, sorted(Path(p).name for p in index.docstore.file_paths()))
        assert held == ([Skipped(str(doomed), "No such file or directory", kept_previous=True)], ["a.txt", "b.txt"])
        assert ingest(index, [corpus], options).files_removed == 1
    finally:
        index.close()
