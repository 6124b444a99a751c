"""Identity that follows what is stored (issue 28): a stored vector is reused only for the same
embedded text (title + text), a passage a document repeats keeps a chunk each, and an edit is
found by its content whatever size and mtime say. Real Tantivy, LanceDB and MiniLM."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ragchain_cli.stores.embedders import load_embedder
from ragchain_cli.stores.index import Index

BODY = "Merchants hauled grain across the frozen harbour of Heron Inlet on sledges pulled by horses."


def _stored(index_dir: Path):
    index = Index(index_dir)
    try:
        ids = sorted(index.docstore.chunk_ids())
        return index.docstore.chunks(ids), index.vectors.vectors(ids), index.lexical.ids()
    finally:
        index.close()


def test_a_title_only_edit_embeds_the_new_title(tmp_path, cli):
    docs = tmp_path / "docs"
    docs.mkdir()
    note = docs / "note.md"
    note.write_text(f"---\ntitle: Harbour ice in winter\n---\n{BODY}\n", encoding="utf-8")
    assert cli("ingest", docs, "--json").code == 0
    note.write_text(f"---\ntitle: Lighthouse keepers and the tide\n---\n{BODY}\n", encoding="utf-8")
    report = cli("ingest", docs, "--json").json()
    assert report["files_ingested"] == 1 and report["vectors_reused"] == 0

    chunks, vectors, _ = _stored(tmp_path / ".ragchain")
    [chunk] = chunks.values()
    assert chunk.title == "Lighthouse keepers and the tide"
    embedder = load_embedder("all-MiniLM-L6-v2")
    new, old = embedder.embed([chunk.index_text(), f"Harbour ice in winter\n{BODY}"])
    stored = np.asarray(vectors[chunk.chunk_id], dtype=np.float32)
    cosine = lambda a, b: float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))  # noqa: E731
    assert cosine(stored, new) > 0.999 and cosine(stored, old) < 0.99


def test_a_repeated_passage_keeps_a_chunk_each(tmp_path, cli):
    docs = tmp_path / "docs"
    docs.mkdir()
    sections = "".join(f"# Log\n\n{BODY}\n\n" for _ in range(3))  # the same section three times
    (docs / "log.md").write_text(sections, encoding="utf-8")
    report = cli("ingest", docs, "--json").json()
    chunks, vectors, lexical = _stored(tmp_path / ".ragchain")
    assert report["chunks_added"] == 3
    assert len(chunks) == len(vectors) == len(lexical) == 3
    assert len({c.text for c in chunks.values()}) == 1  # three chunks, one text
    assert sorted(c.ordinal for c in chunks.values()) == [0, 1, 2]


def test_a_same_size_edit_is_found_whatever_the_mtime(tmp_path, cli):
    docs = tmp_path / "docs"
    docs.mkdir()
    report_file = docs / "survey.txt"
    report_file.write_text("The coastal survey of Heron Inlet was finished in 2021.\n", encoding="utf-8")
    assert cli("ingest", docs, "--json").code == 0
    before = report_file.stat()
    report_file.write_text("The coastal survey of Heron Inlet was finished in 2025.\n", encoding="utf-8")
    os.utime(report_file, ns=(before.st_atime_ns, before.st_mtime_ns))  # same size, same mtime
    assert report_file.stat().st_size == before.st_size

    report = cli("ingest", docs, "--json").json()
    assert report["files_ingested"] == 1 and report["files_unchanged"] == 0
    chunks, _, _ = _stored(tmp_path / ".ragchain")
    assert [c.text for c in chunks.values()] == ["The coastal survey of Heron Inlet was finished in 2025."]
    hits = cli("search", "2025", "--retrievers", "bm25", "--json").json()["hits"]
    assert hits and hits[0]["doc_id"] == "docs/survey.txt"
