"""What the CLI does is a library call a Python user can make too: ingest into a folder (with the
cleanup of a new index nothing went into), following the index's embedding model; `Index` as a
context manager; a long-lived SearchPipeline that does not grow."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragchain_cli.errors import IndexMismatch
from ragchain_cli.ingest.pipeline import ingest_into, ingest_options
from ragchain_cli.retrieve.pipeline import SearchPipeline, search_options
from ragchain_cli.stores.embedders import model_folder
from ragchain_cli.stores.index import Index, exists


def _corpus(folder: Path, **files: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / f"{name}.txt").write_text(text, encoding="utf-8")
    return folder


def test_ingest_into_a_new_folder_with_nothing_to_ingest_leaves_no_index(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.xyz").write_text("not a supported type", encoding="utf-8")
    report = ingest_into(tmp_path / "index", [empty], ingest_options())
    assert report.files_seen == 0 and not (tmp_path / "index").exists()


def test_a_new_index_is_kept_once_written_and_closes_as_a_context_manager(tmp_path):
    corpus = _corpus(tmp_path / "docs", otters="Sea otters hold hands while they sleep in kelp beds.")
    report = ingest_into(tmp_path / "index", [corpus], ingest_options())
    assert report.files_ingested == 1 and exists(tmp_path / "index")
    with Index(tmp_path / "index") as index:
        assert index.docstore.counts()["chunks"] >= 1
    with pytest.raises(Exception):  # closed on the way out of the block
        index.docstore.counts()


def test_ingest_follows_the_index_model_unless_one_is_given(tmp_path, cli):
    linked = tmp_path / "my-model"
    linked.symlink_to(model_folder("all-MiniLM-L6-v2"), target_is_directory=True)  # a folder model: another name
    index = tmp_path / "index"
    first = _corpus(tmp_path / "a", otters="Sea otters hold hands while they sleep in kelp beds.")
    assert cli("ingest", first, "--index", index, "--embed-model", linked).code == 0
    with Index(index) as store:
        built_with = store.manifest()["embed_model"]
    assert built_with != "all-MiniLM-L6-v2"

    second = _corpus(tmp_path / "b", herons="Grey herons nest in colonies called heronries.")
    result = cli("ingest", second, "--index", index)  # no --embed-model: the index's own
    assert result.code == 0, result.err
    assert result.json()["files_ingested"] == 1
    with Index(index) as store:
        assert store.manifest()["embed_model"] == built_with
    hits = cli("search", "heron colonies", "--index", index).json()["hits"]
    assert hits and "heron" in hits[0]["snippet"].lower()

    given = cli("ingest", second, "--index", index, "--embed-model", "all-MiniLM-L6-v2")  # said, and different
    assert given.code != 0 and "built with different settings" in given.err
    with pytest.raises(IndexMismatch):
        ingest_into(index, [second], ingest_options(embed_model="all-MiniLM-L6-v2"))


def test_a_long_lived_pipeline_remembers_a_bounded_number_of_corrections(sample_index, monkeypatch):
    from ragchain_cli.retrieve import pipeline as module

    assert module.SPELLED >= 1000  # plenty for one batch of queries
    monkeypatch.setattr(module, "SPELLED", 3)
    with Index(sample_index) as index:
        pipeline = SearchPipeline(index, search_options(retrievers=["bm25"]))
        queries = [f"When is Heron Inlett closed {word}" for word in ("today", "tomorrow", "monday", "friday", "now")]
        for query in queries:
            pipeline.search(query)
        assert list(pipeline.spelled) == queries[-3:]  # the newest, for spelling_of right after a search
        assert pipeline.spelling_of(queries[-1]).changes
