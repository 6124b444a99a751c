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


def test_a_document_is_shown_by_the_passage_the_lists_rank_highest_together(three_docs):
    index = Index(three_docs)
    try:
        ids = _chunks(index)
        x1, x2 = ids["x"][:2]
        (y1,), (z1,) = ids["y"], ids["z"]
        runs = {"bm25": [Hit(x1, 9.0), Hit(y1, 8.0), Hit(x2, 7.0)], "dense": [Hit(y1, 0.9), Hit(x2, 0.8), Hit(z1, 0.7)]}
        ranked = DocumentRanker(Linker(index.docstore)).rank("rrf", runs)
        shown = {h.doc_id: h.chunk_id for h in ranked}
        # x1 is bm25's best passage of x (rank 1) but dense never found it; x2 is 3rd in bm25 and 2nd
        # in dense: 1/63 + 1/62 > 1/61, so x2 shows x
        assert shown == {"x": x2, "y": y1, "z": z1}
        assert next(h for h in ranked if h.doc_id == "x").explain == {"bm25": (1, 9.0), "dense": (2, 0.8)}
    finally:
        index.close()


@pytest.mark.parametrize("method", ["rrf", "cc"])
def test_the_passage_that_shows_a_document_is_ranked_with_the_searchs_rrf_k(three_docs, method):
    index = Index(three_docs)
    try:
        ids = _chunks(index)
        x1, x2 = ids["x"][:2]
        (y1,), (z1,) = ids["y"], ids["z"]
        runs = {"bm25": [Hit(x1, 9.0), Hit(y1, 8.0), Hit(x2, 7.0)], "dense": [Hit(y1, 0.9), Hit(x2, 0.8), Hit(z1, 0.7)]}
        ranked = DocumentRanker(Linker(index.docstore)).rank(method, runs, k=0)
        # k = 0: x1 stands at 1/1, x2 at 1/3 + 1/2 (at k = 60, x2 wins: the test above)
        assert next(h.chunk_id for h in ranked if h.doc_id == "x") == x1
    finally:
        index.close()


def test_a_whole_document_list_shares_its_chunk_retrievers_weight(three_docs):
    index = Index(three_docs)
    try:
        ids = _chunks(index)
        x1, (y1,), (z1,) = ids["x"][0], ids["y"], ids["z"]

        def runs():
            return {"bm25": [Hit(x1, 9.0), Hit(z1, 8.0)], "bm25-doc": [Hit("z", 5.0, "z"), Hit("x", 4.0, "x")],
                    "dense": [Hit(y1, 0.9), Hit(x1, 0.8)]}

        ranker = DocumentRanker(Linker(index.docstore))
        # bm25 and bm25-doc take half of bm25's weight (1) each: lexical and dense evidence stay 1:1
        ranked = ranker.rank("rrf", runs())
        assert [h.doc_id for h in ranked] == ["x", "y", "z"]
        assert [h.score for h in ranked] == pytest.approx([0.5 / 61 + 0.5 / 62 + 1 / 62, 1 / 61, 0.5 / 62 + 0.5 / 61])
        weighted = ranker.rank("rrf", runs(), weights={"bm25": 0.4, "dense": 0.6})
        assert weighted[0].score == pytest.approx(0.2 / 61 + 0.2 / 62 + 0.6 / 62)
        named = ranker.rank("rrf", runs(), weights={"bm25-doc": 2.0})  # named: kept as given
        scores = {h.doc_id: h.score for h in named}
        assert scores["x"] == pytest.approx(1 / 61 + 2 / 62 + 1 / 62) and scores["z"] == pytest.approx(1 / 62 + 2 / 61)
    finally:
        index.close()


def test_pipeline_documents_mode_ranks_documents_and_hydrates_their_chunks(three_docs):
    index = Index(three_docs)
    try:
        pipeline = SearchPipeline(index, SearchOptions(documents=True, document_fusion=True, k=10, passage_decay=0.5))
        hits = pipeline.search("otters eat crabs and clams in the estuary")
        assert sorted(h.doc_id for h in hits) == ["x", "y", "z"]  # one hit per document
        assert hits[0].doc_id == "x" and hits[0].chunk.doc_id == "x" and hits[0].chunk.text
        runs = pipeline.retrieve_runs(["otters eat crabs and clams in the estuary"])[0]
        direct = DocumentRanker(pipeline.linker, 0.5).rank("cc", runs, norm="zscore")
        assert [(h.doc_id, h.chunk_id) for h in direct] == [(h.doc_id, h.chunk_id) for h in hits]
    finally:
        index.close()


def _write(folder: Path, name: str, text: str) -> None:
    (folder / name).write_text(text, encoding="utf-8")


def _corpus(tmp_path: Path, **files: str) -> Path:
    corpus = tmp_path / "docs"
    corpus.mkdir()
    for name, text in files.items():
        _write(corpus, f"{name}.txt", text)
    return corpus


def _whole_ids(index_dir: Path) -> tuple[set, set, dict]:
    index = Index(index_dir)
    try:
        return index.documents.ids(), index.docstore.document_ids(), index.manifest()
    finally:
        index.close()


def test_whole_document_index_follows_ingest_edit_delete_and_backfill(tmp_path, cli):
    filler = " ".join(f"word{i}" for i in range(40))
    corpus = _corpus(tmp_path, a=f"The quokka hops at dawn. {filler} A small marsupial of Rottnest.\n",
                     b="The quokka quokka quokka smiles for photographs.\n", c="Penguins nest on the beach.\n")
    assert cli("ingest", corpus, "--chunk-size", "16", "--chunk-overlap", "0", "--json").code == 0
    whole, docs, manifest = _whole_ids(tmp_path / ".ragchain")
    assert whole == docs == {"docs/a.txt", "docs/b.txt", "docs/c.txt"} and manifest["document_index"] == "bm25"

    index = Index(tmp_path / ".ragchain")
    try:  # the two words are in different chunks of a.txt: only the whole document has both
        assert index.documents.search("quokka marsupial", 3)[0][0] == "docs/a.txt"
        chunk_docs = index.docstore.doc_ids([cid for cid, _ in index.lexical.search("quokka marsupial", 1)])
        assert set(chunk_docs.values()) == {"docs/b.txt"}
        on = SearchOptions(retrievers=["bm25"], documents=True, document_fusion=True, whole_documents=True)
        hits = SearchPipeline(index, on).search("quokka marsupial")
        assert hits[0].doc_id == "docs/a.txt" and set(hits[0].explain) == {"bm25", "bm25-doc"}
        assert hits[0].chunk.doc_id == "docs/a.txt"
        off = SearchOptions(retrievers=["bm25"], documents=True, document_fusion=True, whole_documents=False)
        assert SearchPipeline(index, off).search("quokka marsupial")[0].doc_id == "docs/b.txt"
    finally:
        index.close()

    _write(corpus, "c.txt", "Penguins and a walrus nest on the beach.\n")
    (corpus / "b.txt").unlink()
    assert cli("ingest", corpus, "--chunk-size", "16", "--chunk-overlap", "0", "--json").code == 0
    whole, docs, _ = _whole_ids(tmp_path / ".ragchain")
    assert whole == docs == {"docs/a.txt", "docs/c.txt"}
    index = Index(tmp_path / ".ragchain")
    try:
        assert [d for d, _ in index.documents.search("walrus", 3)] == ["docs/c.txt"]
        # an index from before documents/ existed: no manifest entry, no folder -> the next ingest backfills
        index.docstore.conn.execute("DELETE FROM meta WHERE key = 'document_index'")
        index.documents.apply(sorted(index.documents.ids()), [])
    finally:
        index.close()
    checked = cli("check", "--json")
    assert checked.code == 0  # without the manifest entry, documents/ is not expected
    assert cli("ingest", corpus, "--chunk-size", "16", "--chunk-overlap", "0", "--json").code == 0
    whole, docs, manifest = _whole_ids(tmp_path / ".ragchain")
    assert whole == docs == {"docs/a.txt", "docs/c.txt"} and manifest["document_index"] == "bm25"
    assert cli("check", "--json").code == 0


def test_check_reports_a_whole_document_entry_the_docstore_lacks(tmp_path, cli):
    corpus = _corpus(tmp_path, a="Otters hold hands while they sleep.\n")
    assert cli("ingest", corpus, "--json").code == 0
    index = Index(tmp_path / ".ragchain")
    try:
        index.documents.apply([], [("ghost", "a document nobody stored")])
        found = index.check()
        assert found.extra_documents == ["ghost"] and not found.consistent
        index.rebuild_documents(["ghost"])  # what replaying a `doc` journal entry does
        assert index.check().consistent
    finally:
        index.close()


def test_document_text_counts_the_overlap_of_neighbouring_chunks_once(tmp_path, cli):
    text = " ".join(f"w{i}" for i in range(60))
    corpus = _corpus(tmp_path, a=text + "\n")
    assert cli("ingest", corpus, "--chunk-size", "24", "--chunk-overlap", "8", "--json").code == 0
    index = Index(tmp_path / ".ragchain")
    try:
        assert index.docstore.conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0] >= 3
        assert index.docstore.document_texts(["docs/a.txt"])["docs/a.txt"].split() == text.split()
    finally:
        index.close()
