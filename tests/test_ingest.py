"""`ragchain ingest` end to end on real Tantivy, LanceDB and MiniLM: incremental, consistent,
bad input reported and skipped, settings recorded and enforced."""

import shutil
from pathlib import Path

from ragchain_cli.stores.index import Index

from helpers import make_pdf


def _corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "docs"
    corpus.mkdir()
    (corpus / "alpha.md").write_text("---\ntitle: Alpha\ndate: 2023-01-02\n---\n# Alpha\nThe quokka lives on "
                                     "Rottnest Island.\n", encoding="utf-8")
    (corpus / "beta.txt").write_text("Beta notes: the aurora borealis is caused by solar wind.\n", encoding="utf-8")
    make_pdf(corpus / "gamma.pdf", ["Gamma page one about volcanoes.", "Gamma page two about glaciers."])
    return corpus


def _ids(index_dir: Path) -> tuple[set, set, set]:
    index = Index(index_dir)
    try:
        return index.docstore.chunk_ids(), index.lexical.ids(), index.vectors.ids()
    finally:
        index.close()


def test_sample_corpus_ingests_cleanly(sample_index, cli):
    status = cli("status", "--index", sample_index, "--json")
    assert status.code == 0
    payload = status.json()
    assert payload["consistent"] is True
    counts = payload["counts"]
    assert counts["chunks"] == counts["lexical"] == counts["vectors"] > 30
    assert counts["documents"] >= 20  # the JSONL file holds several documents
    assert payload["manifest"]["embed_model"] == "all-MiniLM-L6-v2"
    assert payload["manifest"]["dim"] == "384"
    assert cli("check", "--index", sample_index).code == 0


def test_incremental_ingest_skips_changes_and_removes(tmp_path, cli):
    corpus = _corpus(tmp_path)
    first = cli("ingest", corpus, "--json")
    assert first.code == 0, first.err
    report = first.json()
    assert report["files_ingested"] == 3 and report["pages"] == 2 and report["chunks_added"] >= 4
    again = cli("ingest", corpus, "--json").json()
    assert again["files_unchanged"] == 3 and again["chunks_added"] == 0 and again["files_ingested"] == 0

    (corpus / "beta.txt").write_text("Beta notes, revised: tardigrades survive in space.\n", encoding="utf-8")
    (corpus / "alpha.md").unlink()
    changed = cli("ingest", corpus, "--json").json()
    assert changed["files_ingested"] == 1 and changed["files_removed"] == 1 and changed["chunks_removed"] >= 2
    docs, lexical, vectors = _ids(tmp_path / ".ragchain")
    assert docs == lexical == vectors
    hits = cli("search", "quokka", "--retrievers", "bm25", "--json").json()["hits"]
    assert hits == []
    hits = cli("search", "tardigrades", "--json").json()["hits"]
    assert hits[0]["doc_id"] == "docs/beta.txt"
    assert cli("check").code == 0


def test_bad_files_are_reported_and_the_rest_ingested(tmp_path, cli):
    corpus = _corpus(tmp_path)
    (corpus / "empty.txt").write_bytes(b"")
    (corpus / "binary.txt").write_bytes(b"\x00\x01\x02\x03 binary")
    (corpus / "latin.md").write_bytes("caf\xe9".encode("latin-1"))
    (corpus / "broken.pdf").write_bytes(b"%PDF-1.4\n%broken")
    make_pdf(corpus / "locked.pdf", ["secret volcano plans"], encrypt_password="hunter2")
    result = cli("ingest", corpus, "--json")
    assert result.code == 3
    report = result.json()
    reasons = {Path(s["path"]).name: s["reason"] for s in report["skipped"]}
    assert set(reasons) == {"empty.txt", "binary.txt", "latin.md", "broken.pdf", "locked.pdf"}
    assert "pdf-password" in reasons["locked.pdf"] and "UTF-8" in reasons["latin.md"]
    assert "locked.pdf" in result.err
    assert report["files_ingested"] == 3
    assert cli("check").code == 0
    unlocked = cli("ingest", corpus, "--pdf-password", "hunter2", "--json").json()
    assert "locked.pdf" not in {Path(s["path"]).name for s in unlocked["skipped"]}
    assert cli("search", "volcano plans", "--retrievers", "bm25", "--json").json()["hits"][0]["doc_id"].endswith(
        "locked.pdf")


def test_index_refuses_other_chunking_or_model(tmp_path, cli):
    corpus = _corpus(tmp_path)
    assert cli("ingest", corpus).code == 0
    mismatch = cli("ingest", corpus, "--chunk-size", "100")
    assert mismatch.code == 4 and "chunk_size" in mismatch.err
    other_model = cli("ingest", corpus, "--embed-model", str(tmp_path / "no-such-model"))
    assert other_model.code == 4


def test_missing_index_is_a_clear_error(tmp_path, cli):
    result = cli("search", "anything", "--index", tmp_path / "nowhere")
    assert result.code == 4 and "ragchain ingest" in result.err


def test_ignore_file_and_hidden_files(tmp_path, cli):
    corpus = _corpus(tmp_path)
    (corpus / ".ragchainignore").write_text("beta.txt\n", encoding="utf-8")
    (corpus / ".hidden.md").write_text("# hidden\nnot indexed", encoding="utf-8")
    report = cli("ingest", corpus, "--json").json()
    assert report["files_seen"] == 2


def test_sample_corpus_query_files_are_not_documents(sample_index, cli):
    hits = cli("search", "Heron Inlet closed sampling", "--index", sample_index, "-k", "20", "--json").json()
    assert all("queries.jsonl" not in h["source"] for h in hits["hits"])


def test_interrupted_write_is_repaired_by_next_ingest(tmp_path, cli):
    """A batch committed to the docstore whose journal was never applied (a crash between the
    two steps) leaves an index that answers, fails `check`, and is repaired by the next ingest."""
    import numpy as np

    from ragchain_cli.stores.docstore import DocStore, FileRecord
    from ragchain_cli.types import Chunk, Document, Block

    corpus = _corpus(tmp_path)
    assert cli("ingest", corpus).code == 0
    index = Index(tmp_path / ".ragchain")
    chunk = Chunk("c0ffee", "extra-doc", "the narwhal tusk is a tooth", source="x")
    vector = (np.ones(384) / np.sqrt(384)).astype(np.float32)
    with index.docstore.transaction() as tx:
        DocStore.put_documents(tx, "/tmp/extra.txt", [Document("extra-doc", "x", (Block(chunk.text),))])
        DocStore.put_chunks(tx, [chunk])
        DocStore.put_file(tx, FileRecord("/tmp/extra.txt", "h", 1, 1))
        DocStore.journal(tx, [("doc", "extra-doc", None), ("add", chunk.chunk_id, vector.tobytes())])
    index.close()
    broken = cli("check", "--json")
    assert broken.code == 4 and broken.json()["pending"] == 2 and "pending" in broken.err
    assert cli("search", "aurora", "--json").json()["hits"][0]["doc_id"] == "docs/beta.txt"
    repaired = cli("ingest", corpus, "--json").json()
    assert repaired["replayed"] == 2
    assert cli("check").code == 0
    assert cli("search", "narwhal", "--retrievers", "bm25", "--json").json()["hits"][0]["chunk_id"] == "c0ffee"


def test_check_on_a_terminal_ends_with_its_verdict(cli, sample_index):
    from rich.console import Console

    from ragchain_cli.cli.status import _render_check

    payload = cli("check", "--index", sample_index, "--json").json()
    console = Console(record=True, width=200)
    _render_check(console, payload)
    last = console.export_text().strip().splitlines()[-1]
    assert last.startswith("check passed:") and f"same {payload['counts']['chunks']} chunk IDs" in last
