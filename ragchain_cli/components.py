"""Component options from ragchain.toml's namespaced tables, checked against the components.

    [retrieve.bm25-prf]        # one retriever's options
    prf_terms = 20
    [rerank.llm]               # one reranker's
    window = 20
    [ocr]                      # every OCR backend that has the option ...
    language = "deu"
    [ocr.rapidocr]             # ... or one backend
    max_dpi = 200

A component's options are its registry factory's keyword parameters with a default (minus the
registry's `shared` ones, which come from the flat settings); `ragchain models` lists them with
their defaults. TOML cannot hold both `rerank = "llm"` and a `[rerank.llm]` table, so inside
`[rerank]` and `[ocr]` the key `use` chooses the component as the flat key does.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path
from typing import Any

from .errors import UsageError

KINDS = {"retrieve": ("ragchain_cli.retrieve", "RETRIEVERS"), "rerank": ("ragchain_cli.rerank", "RERANKERS"),
         "ocr": ("ragchain_cli.ingest.ocr", "OCR_BACKENDS")}
SELECTS = {"rerank": "rerank", "ocr": "ocr"}  # kind -> the flat setting that `use` stands for
USE = "use"
Tables = dict[str, dict[str, dict[str, Any]]]  # kind -> component name ("" for the whole kind) -> options
_TYPES = {bool: "true or false", int: "a whole number", float: "a number", str: "text"}


def registry(kind: str):
    module, attr = KINDS[kind]
    return getattr(importlib.import_module(module), attr)


def defaults(kind: str) -> dict[str, dict[str, Any]]:
    """Every component of a kind with its options and their defaults (for `ragchain models`)."""
    reg = registry(kind)
    return {name: {key: p.default for key, p in reg.options(name).items()} for name in reg.names()}


def split_tables(path: Path, data: dict[str, Any]) -> tuple[dict[str, Any], Tables]:
    """ragchain.toml's data -> (its flat settings, its checked component tables)."""
    flat = {key: value for key, value in data.items() if not (key in KINDS and isinstance(value, dict))}
    tables: Tables = {}
    for kind in KINDS:
        table = data.get(kind)
        if not isinstance(table, dict):
            continue
        table = dict(table)
        if USE in table and kind in SELECTS:
            flat[SELECTS[kind]] = table.pop(USE)
        tables[kind] = _check_kind(path, kind, table)
    return flat, tables


def _check_kind(path: Path, kind: str, table: dict[str, Any]) -> dict[str, dict[str, Any]]:
    reg = registry(kind)
    shared = {key: value for key, value in table.items() if not isinstance(value, dict)}
    checked = {"": _check(path, kind, "", shared, _union(reg))} if shared else {}
    for name, options in table.items():
        if isinstance(options, dict):
            if name not in reg:
                raise UsageError(f"{path}: [{kind}.{name}]: unknown {reg.kind} {name!r}",
                                 f"choose one of: {', '.join(reg.names())}")
            checked[name] = _check(path, kind, name, options, reg.options(name))
    return checked


def _union(reg) -> dict[str, inspect.Parameter]:
    """The options of every component of a registry (a shared [kind] key must fit one of them)."""
    found: dict[str, inspect.Parameter] = {}
    for name in reg.names():
        for key, param in reg.options(name).items():
            found.setdefault(key, param)
    return found


def _check(path: Path, kind: str, name: str, options: dict[str, Any], known: dict[str, inspect.Parameter]) -> dict:
    where = f"[{kind}.{name}]" if name else f"[{kind}]"
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise UsageError(f"{path}: {where}: unknown option(s) {', '.join(unknown)}",
                         f"known: {', '.join(known) or 'none'} (ragchain models lists them with defaults)")
    for key, value in options.items():
        wanted = _type_of(known[key])
        if wanted is not None and not _fits(value, wanted):
            raise UsageError(f"{path}: {where}: {key} must be {_TYPES[wanted]}, got {value!r}",
                             f"for example: {key} = {_example(known[key].default, wanted)}")
    return {key: float(value) if _type_of(known[key]) is float else value for key, value in options.items()}


def _type_of(param: inspect.Parameter) -> type | None:
    """The option's type: from its annotation (a string here: `int | None`), else from its default."""
    text = str(param.annotation)
    named = [t for t in (bool, float, int, str) if t.__name__ in text.replace("None", "")]
    if named:
        return named[0]
    return type(param.default) if type(param.default) in _TYPES else None


def _fits(value: Any, wanted: type) -> bool:
    if wanted is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if wanted is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, wanted)


def _example(default: Any, wanted: type) -> str:
    if default is None:
        return {bool: "true", int: "1", float: "0.5", str: '"text"'}[wanted]
    return str(default).lower() if wanted is bool else repr(default).replace("'", '"')


def options_for(tables: Tables, kind: str, name: str) -> dict[str, Any]:
    """The options ragchain.toml gives one component: its kind's shared keys it has, then its own table."""
    kind_tables = tables.get(kind, {})
    own = registry(kind).options(name) if kind_tables.get("") else {}
    return {**{k: v for k, v in kind_tables.get("", {}).items() if k in own}, **kind_tables.get(name, {})}


def merge(base: Tables, extra: Tables) -> Tables:
    """Later layers (files) override earlier ones option by option."""
    merged = {kind: {name: dict(opts) for name, opts in names.items()} for kind, names in base.items()}
    for kind, names in extra.items():
        for name, opts in names.items():
            merged.setdefault(kind, {}).setdefault(name, {}).update(opts)
    return merged
