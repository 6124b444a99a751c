"""`ragchain models`: what is installed locally, what each component is for, and its ragchain.toml options."""

from __future__ import annotations

import importlib

from .common import JsonOpt
from .output import Output, shown


REGISTRIES = (("retrievers", "ragchain_cli.retrieve", "RETRIEVERS"), ("rerankers", "ragchain_cli.rerank", "RERANKERS"),
              ("ocr", "ragchain_cli.ingest.ocr", "OCR_BACKENDS"), ("engines", "ragchain_cli.ingest.engines", "ENGINES"))


def _registries() -> tuple[dict[str, dict[str, str]], dict[str, dict[str, str]]]:
    """Every component by kind, and by kind those that cannot be imported here, with the reason."""
    from ..fusion import FUSIONS

    fusion_help = {"rrf": "reciprocal rank fusion: sum of weight / (k + rank)",
                   "cc": "convex combination of normalised scores (zscore, minmax, dbsf)"}
    out = {"retrievers": {}, "fusion": {name: fusion_help.get(name, "") for name in sorted(FUSIONS)}}
    unavailable: dict[str, dict[str, str]] = {}
    for kind, module, attr in REGISTRIES:
        out[kind], failed = _listed(module, attr)
        if failed:
            unavailable[kind] = failed
    return out, unavailable


def _listed(module: str, attr: str) -> tuple[dict[str, str], dict[str, str]]:
    """A registry's components ({name: help}) and those that fail to import ({name: reason}); when
    the registry itself fails to import, its module is named with the reason: listed, never left out."""
    try:
        registry = getattr(importlib.import_module(module), attr)
    except Exception as exc:  # any failure: said, with its reason
        return {}, {module: _reason(exc)}
    return registry.describe(), {name: why for name in registry.names() if (why := _import_failure(registry, name))}


def _import_failure(registry, name: str) -> str:
    """Why the component `name` cannot be imported here ("" when it can)."""
    try:
        registry.get(name)
    except Exception as exc:  # a broken module, a missing package, ...: said, not hidden
        return _reason(exc)
    return ""


def _reason(exc: BaseException) -> str:
    """An import failure in one line: its type and the first line of its message."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


def _options() -> dict[str, dict[str, dict]]:
    """Each component's own options and defaults, by ragchain.toml table: {"rerank": {"llm": {"window": 20}}};
    a component that cannot be imported has none listed (it is listed as unavailable)."""
    from ..components import KINDS, registry

    out: dict[str, dict[str, dict]] = {}
    for kind in KINDS:
        try:
            reg = registry(kind)
        except Exception:  # the kind is listed as unavailable (_registries)
            continue
        out[kind] = {name: opts for name in reg.names() if (opts := _defaults(reg, name))}
    return out


def _defaults(reg, name: str) -> dict:
    try:
        return {key: p.default for key, p in reg.options(name).items()}
    except Exception:  # listed as unavailable, with its reason (_registries)
        return {}


def models_command(as_json: JsonOpt = None) -> None:
    """List the local generation models, the embedding model and every component by name."""
    from ..errors import RagchainError
    from ..llm import list_models
    from ..stores.embedders import DEFAULT_MODEL, model_folder

    llms = [{"name": m.name, "installed": m.installed, "size": m.size, "path": str(m.path) if m.path else None,
             "description": m.description, "install": m.install} for m in list_models()]
    try:
        embed_path = str(model_folder(DEFAULT_MODEL))
    except RagchainError:
        embed_path = None
    components, unavailable = _registries()
    payload = {"llm": llms,
               "embedding": [{"name": DEFAULT_MODEL, "installed": embed_path is not None, "path": embed_path,
                              "description": "sentence embeddings, 384 dimensions, 256-token window"}],
               **components, "unavailable": unavailable, "options": _options()}
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
    _render_components(console, payload)


def _render_components(console, payload: dict) -> None:
    """Each kind's components with their help and options; one that cannot be imported marked so, with the reason."""
    from rich.markup import escape

    for kind, table in (("retrievers", "retrieve"), ("fusion", ""), ("rerankers", "rerank"), ("ocr", "ocr"), ("engines", "")):
        console.print(f"[bold]{kind}[/]")
        failed = payload["unavailable"].get(kind, {})
        for name in [*payload[kind], *(name for name in failed if name not in payload[kind])]:
            if name in failed:
                console.print(f"  {shown(name):<16} [yellow]unavailable:[/] {shown(failed[name])}")
                continue
            console.print(f"  {name:<16} [dim]{escape(payload[kind][name])}[/]")
            options = payload["options"].get(table, {}).get(name)
            if options:
                listed = ", ".join(f"{key} = {_toml(value)}" for key, value in options.items())
                console.print(f"  {'':<16} [dim]\\[{table}.{name}] {escape(listed)}[/]")


def _toml(value) -> str:
    """A default as it is written in ragchain.toml (None: not set)."""
    import json

    return "(unset)" if value is None else json.dumps(value)
