"""`status`, `check` and `ingest --shards` are library calls the CLI makes: status_report is the
JSON `ragchain status` prints, check_index raises InconsistentIndex where `ragchain check` exits 4,
and ingest_into(..., shards=N) builds what `ingest --shards N` builds."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragchain_cli.errors import InconsistentIndex
from ragchain_cli.ingest.pipeline import ingest_into, ingest_options
from ragchain_cli.stores.index import Index
from ragchain_cli.stores.report import check_index, status_report
from ragchain_cli.stores.shards import ShardManifest

TEXTS = {
    "otters": "Sea otters hold hands while they sleep in kelp beds.",
    "herons": "Grey herons nest in colonies called heronries.",
    "walrus": "A walrus uses its tusks to haul itself onto the ice.",
    "puffin": "Puffins dig burrows on grassy cliff tops.",
}


@pytest.fixture
def corpus(tmp_path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in TEXTS.items():
        (folder / f"{name}.txt").write_text(text + "\n", encoding="utf-8")
    return folder


@pytest.fixture
def index(tmp_path, corpus) -> Path:
    ingest_into(tmp_path / "index", [corpus], ingest_options())
    return tmp_path / "index"


def _shard_contents(root: Path) -> list[tuple[str, list[str]]]:
    """Each shard's name and its chunk IDs."""
    manifest = ShardManifest.read(root)
    contents = []
    for state, folder in zip(manifest.shards, manifest.folders(root)):
        with Index(folder) as shard:
            contents.append((state.name, sorted(shard.docstore.chunk_ids())))
    return contents


def test_status_report_is_what_the_status_command_prints(index, cli):
    assert status_report(index) == cli("status", "--index", index, "--json").json()


def test_check_index_returns_the_report_of_an_index_whose_stores_agree(index):
    assert check_index(index) == status_report(index)


def test_check_index_raises_when_the_lexical_index_lacks_a_chunk(index):
    with Index(index) as store:
        store.lexical.apply([sorted(store.docstore.chunk_ids())[0]], [])
    with pytest.raises(InconsistentIndex, match="1 missing from lexical"):
        check_index(index)


def test_ingest_into_with_shards_builds_what_ingest_shards_builds(tmp_path, corpus, cli):
    ingest_into(tmp_path / "library", [corpus], ingest_options(), shards=2)
    assert cli("ingest", corpus, "--index", tmp_path / "command", "--shards", "2").code == 0
    assert _shard_contents(tmp_path / "library") == _shard_contents(tmp_path / "command")


def test_ingest_into_reshards_a_sharded_index_to_another_count(tmp_path, corpus):
    first = ingest_into(tmp_path / "library", [corpus], ingest_options(), shards=2)
    again = ingest_into(tmp_path / "library", [corpus], ingest_options(), shards=3)
    assert (again.resharded["to"], again.resharded["chunks"], again.chunks_added) == (3, first.chunks_added, 0)
