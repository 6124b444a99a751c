"""`ragchain status` (counts per store, do they agree) and `ragchain check` (exit 4 if not)."""

from __future__ import annotations

from .common import ConfigOpt, IndexOpt, JsonOpt, settings_from
from .output import Output, shown

SHOWN_GROUPS = 10  # version groups listed on a terminal; --json has them all


def status_command(index: IndexOpt = None, as_json: JsonOpt = None, config: ConfigOpt = None) -> None:
    """Counts per store and whether the three stores agree."""
    from ..stores.report import status_report

    payload = status_report(settings_from(config, index=index).index)
    Output(as_json).data(payload, lambda console: _render(console, payload))


def check_command(index: IndexOpt = None, as_json: JsonOpt = None, config: ConfigOpt = None) -> None:
    """Verify that docstore, Tantivy and LanceDB hold exactly the same chunk IDs (and documents)."""
    from ..stores.report import require_consistent, status_report

    payload = status_report(settings_from(config, index=index).index)
    Output(as_json).data(payload, lambda console: _render_check(console, payload))
    require_consistent(payload)  # the report is shown first, then the verdict (exit 4)


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
