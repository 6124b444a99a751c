"""The status report of an index and its verdict, as library calls: status_report (what
`ragchain status` prints: counts per store, whether they agree, stale files, version groups, shards)
and check_index (the same report, raising InconsistentIndex when the stores disagree: `ragchain
check`). cli/status.py renders them."""

from __future__ import annotations

from pathlib import Path

from ..errors import InconsistentIndex
from . import versions
from .sharded import open_index

SHOWN_DIFFERENCES = 20  # chunk and document IDs listed per kind of difference; difference_counts has them all


def status_report(root: Path) -> dict:
    """The report of the index (plain or sharded) at `root`; IndexNotFound when there is none."""
    with open_index(Path(root)) as store:
        return index_report(store)


def check_index(root: Path) -> dict:
    """The report of the index at `root` when its stores agree; InconsistentIndex naming what
    differs when they do not."""
    return require_consistent(status_report(root))


def index_report(store) -> dict:
    """The report of an open Index or ShardedIndex."""
    result = store.check()
    differences = {
        "missing_from_lexical": result.missing_lexical, "missing_from_vectors": result.missing_vectors,
        "extra_in_lexical": result.extra_lexical, "extra_in_vectors": result.extra_vectors,
        "documents_missing_from_whole_index": result.missing_documents,
        "documents_extra_in_whole_index": result.extra_documents,
    }
    shards = store.shard_checks() if hasattr(store, "shard_checks") else []  # a sharded index (sharded.py)
    return {
        "index": str(store.root),
        "counts": {**store.docstore.counts(), "lexical": result.lexical, "vectors": result.vectors},
        "consistent": result.consistent and not any(shard["problem"] for shard in shards),
        "pending": result.pending,
        "differences": {k: v[:SHOWN_DIFFERENCES] for k, v in differences.items()},
        "difference_counts": {k: len(v) for k, v in differences.items()},
        "manifest": store.manifest(),
        # files whose current version failed to load: the index serves their last good version
        "stale_files": [{"path": path, "reason": reason} for path, reason in store.docstore.stale_files().items()],
        "versions": versions.counts(store.docstore.conn),
        **({"shards": shards} if shards else {}),
    }


def require_consistent(report: dict) -> dict:
    """`report` (status_report's) when it says the stores agree; else InconsistentIndex naming each
    difference, the pending operations and each shard's problem."""
    if report["consistent"]:
        return report
    named = [f"{n} {k.replace('_', ' ')}" for k, n in report["difference_counts"].items() if n]
    if report["pending"]:
        named.append(f"{report['pending']} pending operations")
    named += [f"{shard['name']}: {shard['problem']}" for shard in report.get("shards", []) if shard["problem"]]
    raise InconsistentIndex(f"stores disagree: {', '.join(named)}", "run `ragchain ingest` again to repair")


__all__ = ["check_index", "index_report", "require_consistent", "status_report"]
