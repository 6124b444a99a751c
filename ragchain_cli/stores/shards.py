"""A sharded index: N complete indexes (stores/index.py, each with its docstore, Tantivy, LanceDB,
journal and lock) in INDEX/shard-000 ... and a manifest, INDEX/shards.json:

    {"format": 1, "count": N, "hash": "blake2b-64(doc_id) mod N",
     "settings": {"embed_model": ..., "chunk_size": ..., "chunk_overlap": ...},
     "shards": [{"name": "shard-000", "state": "complete", "files": 3, "documents": 3, "chunks": 9,
                 "error": ""}, ...]}

A file goes to the shard its document ID (its path relative to the ingest's working directory)
hashes to, so one document ID is always in one shard and that shard's checks (an ID that another
file already gives) still hold. `state` is "running" while a shard is written, then "complete" or
"failed" (its error said); every ingest runs every shard again, so a failed one is redone. BM25
statistics over all shards (stats.sqlite) make the shards' scores comparable (stores/shard_stats.py);
versions.sqlite holds the version groups over all shards (ingest/shard_versions.py).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..errors import IndexMismatch, UsageError

MANIFEST = "shards.json"
VERSIONS = "versions.sqlite"  # version groups over every shard (ingest/shard_versions.py)
FORMAT = 1
HASH = "blake2b-64(doc_id) mod N"
MAX_SHARDS = 256


def shard_of(doc_id: str, count: int) -> int:
    digest = hashlib.blake2b(doc_id.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % count


def in_shard(doc_id: str, shard: tuple[int, int]) -> bool:
    number, count = shard
    return count <= 1 or shard_of(doc_id, count) == number


def shard_name(number: int) -> str:
    return f"shard-{number:03d}"


def is_sharded(root: Path) -> bool:
    return (Path(root) / MANIFEST).is_file()


@dataclass
class ShardState:
    name: str
    state: str = "running"  # running | complete | failed
    files: int = 0
    documents: int = 0
    chunks: int = 0
    error: str = ""


@dataclass
class ShardManifest:
    count: int
    settings: dict[str, str] = field(default_factory=dict)
    shards: list[ShardState] = field(default_factory=list)

    @classmethod
    def new(cls, count: int, settings: dict[str, str]) -> "ShardManifest":
        if not 1 <= count <= MAX_SHARDS:
            raise UsageError(f"--shards {count} is out of range", f"pass a number from 1 to {MAX_SHARDS}")
        return cls(count, settings, [ShardState(shard_name(i)) for i in range(count)])

    @classmethod
    def read(cls, root: Path) -> "ShardManifest":
        try:
            data = json.loads((Path(root) / MANIFEST).read_text(encoding="utf-8"))
            shards = [ShardState(**item) for item in data["shards"]]
            manifest = cls(int(data["count"]), dict(data.get("settings", {})), shards)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise IndexMismatch(f"the shard manifest {Path(root) / MANIFEST} cannot be read ({exc})",
                                "run the same `ragchain ingest --shards N` again to rewrite it") from None
        if manifest.count != len(shards):
            raise IndexMismatch(f"{Path(root) / MANIFEST} names {len(shards)} shards, not {manifest.count}",
                                "run the same `ragchain ingest --shards N` again to rewrite it")
        return manifest

    def write(self, root: Path) -> None:
        """Replace the manifest in one step (a killed writer leaves the old one or the new one)."""
        target = Path(root) / MANIFEST
        data = {"format": FORMAT, "count": self.count, "hash": HASH, "settings": self.settings,
                "shards": [asdict(s) for s in self.shards]}
        temporary = target.with_suffix(".json.tmp")
        temporary.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        os.replace(temporary, target)

    def folders(self, root: Path) -> list[Path]:
        return [Path(root) / s.name for s in self.shards]


__all__ = ["MANIFEST", "VERSIONS", "ShardManifest", "ShardState", "in_shard", "is_sharded", "shard_name", "shard_of"]
