"""`ragchain status` (counts per store, do they agree) and `ragchain check` (exit 4 if not)."""

from __future__ import annotations

from ..stores import versions
from .common import ConfigOpt, IndexOpt, JsonOpt, open_index, settings_from
from .output import Output, shown

SHOWN_GROUPS = 10  # version groups listed on a terminal; --json has them all


def _payload(store) -> dict:
    result = store.check()
    differences = {
        "missing_from_lexical": result.missing_lexical, "missing_from_vectors": result.missing_vectors,
        "extra_in_lexical": result.extra_lexical, "extra_in_vectors": result.extra_vectors,
        "documents_missing_from_whole_index": result.missing_documents,
        "documents_extra_in_whole_index": result.extra_documents,
    }
    shards = store.shard_checks() if hasattr(store, "shard_checks") else []  # a sharded index (stores/sharded.py)
    return {
        "index": str(store.root),
        "counts": {**store.docstore.counts(), "lexical": result.lexical, "vectors": result.vectors},
        "consistent": result.consistent and not any(shard["problem"] for shard in shards),
        "pending": result.pending,
        "differences": {k: v[:20] for k, v in differences.items()},
        "difference_counts": {k: len(v) for k, v in differences.items()},
        "manifest": store.manifest(),
        # files whose current version failed to load: the index serves their last good version
        "stale_files": [{"path": path, "reason": reason} for path, reason in store.docstore.stale_files().items()],
        "versions": versions.counts(store.docstore.conn),
        **({"shards": shards} if shards else {}),
    }


def status_command(index: IndexOpt = None, as_json: JsonOpt = None, config: ConfigOpt = None) -> None:
    """Counts per store and whether the three stores agree."""
    with open_index(settings_from(config, index=index)) as store:
        payload = _payload(store)
    Output(as_json).data(payload, lambda console: _render(console, payload))


def check_command(index: IndexOpt = None, as_json: JsonOpt = None, config: ConfigOpt = None) -> None:
    """Verify that docstore, Tantivy and LanceDB hold exactly the same chunk IDs (and documents)."""
    from ..errors import InconsistentIndex

    with open_index(settings_from(config, index=index)) as store:
        payload = _payload(store)
    Output(as_json).data(payload, lambda console: _render_check(console, payload))
    if not payload["consistent"]:
        named = [f"{n} {k.replace('_', ' ')}" for k, n in payload["difference_counts"].items() if n]
        if payload["pending"]:
            named.append(f"{payload['pending']} pending operations")
        named += [f"{shard['name']}: {shard['problem']}" for shard in payload.get("shards", []) if shard["problem"]]
        raise InconsistentIndex(f"stores disagree: {', '.join(named)}", "run `ragchain ingest` again to repair")


def _render_check(console, payload: dict) -> None:
    _render(console, payload)
    if payload["consistent"]:
        console.print(f"[green]check passed:[/] the docstore, the lexical index and the vector table hold the same "
                      f"{payload['counts']['chunks']} chunk IDs")


def _render(console, payload: dict) -> None:
    counts = payload["counts"]
    console.print(f"index {payload['index']}")
    console.print(f"  files {counts['files']}  documents {counts['documents']}  chunks {counts['chunks']}")
    console.print(f"  docstore {counts['chunks']}  lexical {counts['lexical']}  vectors {counts['vectors']}  "
                  f"pending {payload['pending']}")
    state = "[green]consistent[/]" if payload["consistent"] else "[red]stores disagree[/]"
    console.print(f"  {state}")
    for item in payload["stale_files"]:
        console.print(f"  [yellow]stale[/] {shown(item['path'])}: {shown(item['reason'])} (last good version kept)")
    groups = payload["versions"]
    console.print(f"  version groups {groups['groups']} ({groups['documents']} documents, "
                  f"{groups['superseded']} superseded by a newer version)")
    for group in groups["newest"][:SHOWN_GROUPS]:
        console.print(f"    {shown(group['doc_id'])}\n      supersedes {', '.join(shown(d) for d in group['older'])}")
    if len(groups["newest"]) > SHOWN_GROUPS:
        console.print(f"    ... and {len(groups['newest']) - SHOWN_GROUPS} more (--json lists them all)")
    for shard in payload.get("shards", []):
        state = f"[red]{shown(shard['problem'])}[/]" if shard["problem"] else shard["state"]
        console.print(f"  {shard['name']}  files {shard['files']}  documents {shard['documents']}  "
                      f"chunks {shard['chunks']}  {state}")
    manifest = payload["manifest"]
    if manifest:
        console.print("  built with " + ", ".join(f"{k}={v}" for k, v in sorted(manifest.items())))
