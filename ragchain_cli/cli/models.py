"""`ragchain models`: what is installed locally, what each component is for, and its ragchain.toml options."""

from __future__ import annotations

from .common import JsonOpt
from .output import Output


def _registries() -> dict[str, dict[str, str]]:
    from ..fusion import FUSIONS
    from ..retrieve import RETRIEVERS

    fusion_help = {"rrf": "reciprocal rank fusion: sum of weight / (k + rank)",
                   "cc": "convex combination of normalised scores (zscore, minmax, dbsf)"}
    out = {"retrievers": RETRIEVERS.describe(), "fusion": {name: fusion_help.get(name, "") for name in sorted(FUSIONS)}}
    for kind, module, attr in (("rerankers", "ragchain_cli.rerank", "RERANKERS"),
                               ("ocr", "ragchain_cli.ingest.ocr", "OCR_BACKENDS"),
                               ("engines", "ragchain_cli.ingest.engines", "ENGINES")):
        try:
            registry = getattr(__import__(module, fromlist=[attr]), attr)
        except (ImportError, AttributeError):
            continue
        out[kind] = registry.describe()
    return out


def _options() -> dict[str, dict[str, dict]]:
    """Each component's own options and defaults, by ragchain.toml table: {"rerank": {"llm": {"window": 20}}}."""
    from ..components import KINDS, defaults

    return {kind: {name: opts for name, opts in defaults(kind).items() if opts} for kind in KINDS}


def models_command(as_json: JsonOpt = None) -> None:
    """List the local generation models, the embedding model and every component by name."""
    from ..errors import RagchainError
    from ..generate import list_models
    from ..stores.embedders import DEFAULT_MODEL, model_folder

    llms = [{"name": m.name, "installed": m.installed, "size": m.size, "path": str(m.path) if m.path else None,
             "description": m.description, "install": m.install} for m in list_models()]
    try:
        embed_path = str(model_folder(DEFAULT_MODEL))
    except RagchainError:
        embed_path = None
    payload = {"llm": llms,
               "embedding": [{"name": DEFAULT_MODEL, "installed": embed_path is not None, "path": embed_path,
                              "description": "sentence embeddings, 384 dimensions, 256-token window"}],
               **_registries(), "options": _options()}
    Output(as_json).data(payload, lambda console: _render(console, payload))


def _render(console, payload: dict) -> None:
    from rich.markup import escape

    console.print("[bold]generation models[/] (--llm NAME, or --llm PATH to any GGUF)")
    for m in payload["llm"]:
        mark = "[green]installed[/]" if m["installed"] else f"[dim]not installed: {escape(m['install'])}[/]"
        console.print(f"  {m['name']:<30} {m['size'] / 1e6:>6.0f} MB  {mark}")
        console.print(f"    [dim]{escape(m['description'])}[/]")
    console.print("[bold]embedding model[/]")
    for m in payload["embedding"]:
        console.print(f"  {m['name']:<30} {'installed' if m['installed'] else 'missing'}  [dim]{m['description']}[/]")
    for kind, table in (("retrievers", "retrieve"), ("fusion", ""), ("rerankers", "rerank"), ("ocr", "ocr"), ("engines", "")):
        if kind in payload:
            console.print(f"[bold]{kind}[/]")
            for name, help_text in payload[kind].items():
                console.print(f"  {name:<16} [dim]{escape(help_text)}[/]")
                options = payload["options"].get(table, {}).get(name)
                if options:
                    shown = ", ".join(f"{key} = {_toml(value)}" for key, value in options.items())
                    console.print(f"  {'':<16} [dim]\\[{table}.{name}] {escape(shown)}[/]")


def _toml(value) -> str:
    """A default as it is written in ragchain.toml (None: not set)."""
    import json

    return "(unset)" if value is None else json.dumps(value)
