"""A small registry per kind of component, keyed by the short names used in flags, config and JSON.

Built-ins register lazily as "module:attribute" so that looking a name up imports only the
component that is asked for (the dense retriever pulls in torch; bm25 must not).
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any, Callable

from .errors import UsageError


class Registry:
    """`shared` names the factory parameters that come from the flat settings (index, llm, ...);
    every other keyword parameter with a default is a component option (options(name))."""

    def __init__(self, kind: str, shared: tuple[str, ...] = ()) -> None:
        self.kind = kind
        self.shared = frozenset(shared)
        self._entries: dict[str, Callable[..., Any] | str] = {}
        self._help: dict[str, str] = {}

    def register(self, name: str, target: Callable[..., Any] | str, help: str = "") -> None:
        self._entries[name] = target
        self._help[name] = help

    def names(self) -> list[str]:
        return sorted(self._entries)

    def describe(self) -> dict[str, str]:
        return {name: self._help[name] for name in self.names()}

    def get(self, name: str) -> Callable[..., Any]:
        target = self._entries.get(name)
        if target is None:
            raise UsageError(
                f"unknown {self.kind} {name!r}",
                f"choose one of: {', '.join(self.names())}",
            )
        if isinstance(target, str):
            module, _, attr = target.partition(":")
            target = getattr(importlib.import_module(module), attr)
            self._entries[name] = target
        return target

    def options(self, name: str) -> dict[str, inspect.Parameter]:
        """The component's own options: its factory's keyword parameters with a default, in order."""
        kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        return {p.name: p for p in inspect.signature(self.get(name)).parameters.values()
                if p.kind in kinds and p.default is not inspect.Parameter.empty and p.name not in self.shared}

    def create(self, name: str, **options: Any) -> Any:
        return self.get(name)(**options)

    def __contains__(self, name: str) -> bool:
        return name in self._entries
