"""`ingest --engine ray` on a real local Ray (started once for this module, 2 CPUs): the same index
as the local engine, incremental re-ingest, a killed embedding actor, a SIGKILLed driver, hostile
files on the workers. tests/test_ingest_ray_cluster.py runs a head and a worker node."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import SAMPLE
from helpers import make_pdf
from ragchain_cli.ingest.pipeline import IngestOptions, ingest
from ragchain_cli.stores.index import Index
from test_reliability_crash import committed_chunks, spawn_ingest

pytestmark = pytest.mark.ray
MODEL = "all-MiniLM-L6-v2"


def need_ray():
    """Ray, or a skip where the extra is not installed; CI installs it (./install.sh --dev) and must run these."""
    try:
        import ray
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip("the ray extra is not installed (./install.sh --dev installs it)")
    return ray


@pytest.fixture(scope="module")
def ray_local():
    ray = need_ray()
    ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING")
    yield ray
    ray.shutdown()


def stored(index_dir: Path) -> dict[str, tuple[str, np.ndarray]]:
    """chunk ID -> (text, vector), after asserting the three stores agree and nothing is pending."""
    index = Index(index_dir)
    try:
        found = index.check()
        assert found.consistent, found
        assert index.has_documents() and index.documents.ids() == index.docstore.document_ids()  # documents/ too
        chunks = index.docstore.chunks(sorted(index.docstore.chunk_ids()))
        vectors = index.vectors.vectors(sorted(chunks))
        return {cid: (chunk.index_text(), vectors[cid]) for cid, chunk in chunks.items()}
    finally:
        index.close()


def assert_same_index(ray_dir: Path, local_dir: Path) -> None:
    ray_side, local_side = stored(ray_dir), stored(local_dir)
    assert sorted(ray_side) == sorted(local_side)
    for cid, (text, vector) in ray_side.items():
        assert text == local_side[cid][0]
        assert float(np.dot(vector, local_side[cid][1])) > 1 - 1e-5, cid


def notes(folder: Path, files: int, docs_per_file: int) -> Path:
    """JSONL files of short notes (one chunk each), `docs_per_file` documents a file."""
    folder.mkdir(parents=True, exist_ok=True)
    words = "heron osprey kelp otter walrus narwhal puffin albatross lamprey sturgeon".split()
    for f in range(files):
        lines = [json.dumps({"_id": f"f{f}d{d}", "title": f"Note {f}.{d}",
                             "text": f"Record {f}.{d}: a {words[(f + d) % 10]} was seen near buoy {f * 100 + d}."})
                 for d in range(docs_per_file)]
        (folder / f"notes{f:02d}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def test_ray_engine_builds_the_index_the_local_engine_builds(ray_local, sample_index, cli, tmp_path):
    corpus = tmp_path / "sample_corpus"  # the same document IDs as the session's local index
    shutil.copytree(SAMPLE, corpus)
    result = cli("ingest", corpus, "--index", tmp_path / "ray", "--engine", "ray", "--json")
    assert result.code == 0, result.err
    report = result.json()
    assert report["engine"] == "ray" and report["workers"] == 2 and report["skipped"] == []
    [node] = report["nodes"]
    assert node["chunks"] == report["chunks_added"] > 30 and node["files"] == report["files_ingested"]
    assert_same_index(tmp_path / "ray", sample_index)
    assert cli("check", "--index", tmp_path / "ray").code == 0
    queries = "\n".join(json.loads(line)["text"] for line in (SAMPLE / "queries.jsonl").read_text().splitlines())
    ranked = {}
    for name, index in (("ray", tmp_path / "ray"), ("local", sample_index)):
        out = subprocess.run([sys.executable, "-m", "ragchain_cli", "search", "-", "--index", str(index), "-k", "10"],
                             input=queries, capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        ranked[name] = [[h["chunk_id"] for h in json.loads(line)["hits"]] for line in out.stdout.splitlines()]
    assert ranked["ray"] == ranked["local"] and len(ranked["ray"]) == len(queries.splitlines())


def test_incremental_reingest_behaves_as_with_the_local_engine(ray_local, cli, tmp_path):
    corpus = notes(tmp_path / "docs", 3, 4)
    (corpus / "plain.txt").write_text("The tide gauge at the pier reads two metres.\n", encoding="utf-8")
    for engine in ("ray", "local"):
        assert cli("ingest", corpus, "--index", tmp_path / engine, "--engine", engine).code == 0
    lines = (corpus / "notes00.jsonl").read_text().splitlines()
    lines[1] = json.dumps({"_id": "f0d1", "title": "Note 0.1", "text": "Record 0.1 now names a dugong."})
    (corpus / "notes00.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")  # changed
    (corpus / "notes01.jsonl").unlink()  # deleted; notes02 and plain.txt unchanged
    reports = {}
    for engine in ("ray", "local"):
        result = cli("ingest", corpus, "--index", tmp_path / engine, "--engine", engine, "--json")
        assert result.code == 0, result.err
        reports[engine] = {k: v for k, v in result.json().items() if k not in ("index", "seconds", "engine",
                                                                               "workers", "nodes")}
    assert reports["ray"] == reports["local"]
    assert reports["ray"]["files_ingested"] == reports["ray"]["files_removed"] == 1
    assert reports["ray"]["files_unchanged"] == 2 and reports["ray"]["vectors_reused"] == 3
    assert reports["ray"]["chunks_added"] == 4 and reports["ray"]["chunks_removed"] == 8
    assert_same_index(tmp_path / "ray", tmp_path / "local")
    hits = cli("search", "dugong", "--index", tmp_path / "ray", "--retrievers", "bm25", "--json").json()["hits"]
    assert hits[0]["doc_id"] == "f0d1"


def embed_actor_pids() -> list[int]:
    """Processes of Ray Data's embedding actors (their title is ray::MapWorker(MapBatches(Embed))...)."""
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            title = (entry / "cmdline").read_bytes().split(b"\0")[0]
        except OSError:
            continue
        if entry.name.isdigit() and title.startswith(b"ray::MapWorker(MapBatches(Embed))"):
            pids.append(int(entry.name))
    return sorted(pids)


def test_an_embedding_actor_killed_mid_ingest_is_restarted_and_nothing_is_lost(ray_local, tmp_path):
    corpus = notes(tmp_path / "docs", 4, 100)  # 400 one-chunk documents: ~13 embedding batches
    options = IngestOptions(MODEL, engine="ray", workers=2, batch_chunks=32)
    outcome: dict = {}
    thread = threading.Thread(target=lambda: outcome.update(
        report=ingest(Index(tmp_path / "ray", create=True), [corpus], options)))
    thread.start()
    deadline = time.monotonic() + 600
    while thread.is_alive() and committed_chunks(tmp_path / "ray") < 32:  # a batch embedded and written
        assert time.monotonic() < deadline, "no progress"
        time.sleep(0.05)
    victims = embed_actor_pids()
    assert thread.is_alive() and victims, "the ingest finished before an actor could be killed"
    os.kill(victims[0], signal.SIGKILL)
    thread.join(600)
    report = outcome["report"]
    assert report.skipped == [] and report.files_ingested == 4 and report.chunks_added == 400
    ingest(Index(tmp_path / "local", create=True), [corpus], IngestOptions(MODEL, batch_chunks=32))
    assert_same_index(tmp_path / "ray", tmp_path / "local")


def test_a_sigkilled_ray_driver_is_repaired_by_the_next_ingest(ray_local, tmp_path, cli):
    corpus = notes(tmp_path / "docs", 4, 60)
    index = tmp_path / "ray"
    address = ray_local.get_runtime_context().gcs_address  # a second driver joins this cluster
    proc = spawn_ingest(corpus, index, 16, tmp_path / "ingest.log", "--engine", "ray", "--ray-address", address)
    started = time.monotonic()
    while proc.poll() is None and committed_chunks(index) < 16:
        assert time.monotonic() - started < 600, "no progress"
        time.sleep(0.05)
    assert proc.poll() is None, "the ingest finished before it could be killed: " + (tmp_path / "ingest.log").read_text()
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert cli("search", "osprey buoy", "--index", index, "--retrievers", "bm25", "--json").code == 0
    repaired = cli("ingest", corpus, "--index", index, "--json")  # the local engine repairs a ray run's index
    assert repaired.code == 0, repaired.err
    assert repaired.json()["chunks_added"] == 240
    assert cli("check", "--index", index).code == 0
    ingest(Index(tmp_path / "clean", create=True), [corpus], IngestOptions(MODEL))
    assert_same_index(index, tmp_path / "clean")


def test_hostile_files_on_the_workers_are_reported_and_skipped_as_locally(ray_local, cli, tmp_path):
    corpus = notes(tmp_path / "docs", 2, 3)
    (corpus / "deep.jsonl").write_text('{"_id": "x", "text": ' + "[" * 100_000 + "\n", encoding="utf-8")
    (corpus / "binary.txt").write_bytes(b"\x00\x01\x02 binary")
    (corpus / "latin.md").write_bytes("caf\xe9".encode("latin-1"))
    (corpus / "broken.pdf").write_bytes(b"%PDF-1.4\n%broken")
    make_pdf(corpus / "locked.pdf", ["secret volcano plans"], encrypt_password="hunter2")
    skipped = {}
    for engine in ("ray", "local"):
        result = cli("ingest", corpus, "--index", tmp_path / engine, "--engine", engine, "--json")
        assert result.code == 3, result.err
        report = result.json()
        assert report["files_ingested"] == 2 and report["documents"] == 6
        skipped[engine] = {Path(s["path"]).name: s["reason"] for s in report["skipped"]}
        assert "locked.pdf" in result.err
    assert skipped["ray"] == skipped["local"]
    assert set(skipped["ray"]) == {"deep.jsonl", "binary.txt", "latin.md", "broken.pdf", "locked.pdf"}
    assert_same_index(tmp_path / "ray", tmp_path / "local")


def test_without_ray_the_ray_engine_is_exit_6_naming_the_extra(tmp_path):
    code = ("import sys\nsys.modules['ray'] = None  # as if the extra were not installed\n"
            "from ragchain_cli.cli.app import run\n"
            f"sys.exit(run(['ingest', {str(SAMPLE)!r}, '--index', {str(tmp_path / 'idx')!r}, '--engine', 'ray']))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 6 and "pip install -e '.[ray]'" in out.stderr
    assert not (tmp_path / "idx").exists()  # a new index the run never wrote to is not left behind
