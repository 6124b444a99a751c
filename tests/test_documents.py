"""Documents ranked from document-level evidence, on a real index of hand-made documents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragchain_cli.fusion import collapse_to_documents, rrf
from ragchain_cli.retrieve.documents import DocumentRanker
from ragchain_cli.retrieve.pipeline import SearchOptions, SearchPipeline
from ragchain_cli.stores.index import Index
from ragchain_cli.stores.linker import Linker
from ragchain_cli.types import Hit

SENTENCE = "Otters in the {} estuary eat crabs, clams and urchins every {} morning. "


@pytest.fixture(scope="module")
def three_docs(tmp_path_factory) -> Path:
    """x: four 16-token chunks; y and z: one each. Ingested for real (Tantivy, LanceDB, MiniLM)."""
    from ragchain_cli.cli.app import run

    base = tmp_path_factory.mktemp("docs")
    lines = [{"_id": "x", "title": "", "text": "".join(SENTENCE.format("northern", day) for day in
                                                      ("cold", "wet", "grey", "calm"))},
             {"_id": "y", "title": "", "text": "Sea otters rest in kelp forests."},
             {"_id": "z", "title": "", "text": "River otters build dens in banks."}]
    (base / "c.jsonl").write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    index = base / "index"
    code = run(["ingest", str(base / "c.jsonl"), "--index", str(index), "--chunk-size", "16", "--chunk-overlap", "0",
                "--json"])
    assert code == 0
    return index


def _chunks(index: Index) -> dict[str, list[str]]:
    rows = index.docstore.conn.execute("SELECT doc_id, chunk_id FROM chunks ORDER BY doc_id, ordinal")
    found: dict[str, list[str]] = {}
    for doc, chunk in rows:
        found.setdefault(doc, []).append(chunk)
    return found


def test_documents_are_fused_after_each_list_is_collapsed(three_docs):
    index = Index(three_docs)
    try:
        ids = _chunks(index)
        assert len(ids["x"]) >= 3 and len(ids["y"]) == len(ids["z"]) == 1
        x1, x2, x3 = ids["x"][:3]
        (y1,), (z1,) = ids["y"], ids["z"]

        def runs():  # fresh Hits each time: ranking fills doc_id in place
            return {"bm25": [Hit(x1, 9.0), Hit(x2, 8.0), Hit(x3, 7.0), Hit(y1, 6.0), Hit("not-stored", 5.0)],
                    "dense": [Hit(y1, 0.9), Hit(z1, 0.8), Hit(x1, 0.7)]}

        chunk_level = collapse_to_documents(Linker(index.docstore).link(rrf(runs())))
        assert [h.doc_id for h in chunk_level] == ["x", "y", "z"]
        ranked = DocumentRanker(Linker(index.docstore)).rank("rrf", runs())
        assert [h.doc_id for h in ranked] == ["y", "x", "z"]
        assert ranked[0].score == pytest.approx(1 / 62 + 1 / 61)
        # each document is shown by its best passage in the list that ranked it highest
        assert [h.chunk_id for h in ranked] == [y1, x1, z1]
        assert ranked[1].explain == {"bm25": (1, 9.0), "dense": (3, 0.7)}
    finally:
        index.close()


def test_pipeline_documents_mode_ranks_documents_and_hydrates_their_chunks(three_docs):
    index = Index(three_docs)
    try:
        pipeline = SearchPipeline(index, SearchOptions(documents=True, k=10, passage_decay=0.5))
        hits = pipeline.search("otters eat crabs and clams in the estuary")
        assert sorted(h.doc_id for h in hits) == ["x", "y", "z"]  # one hit per document
        assert hits[0].doc_id == "x" and hits[0].chunk.doc_id == "x" and hits[0].chunk.text
        runs = pipeline.retrieve_runs(["otters eat crabs and clams in the estuary"])[0]
        direct = DocumentRanker(pipeline.linker, 0.5).rank("cc", runs, norm="zscore")
        assert [(h.doc_id, h.chunk_id) for h in direct] == [(h.doc_id, h.chunk_id) for h in hits]
    finally:
        index.close()
