"""The packages and the top-level modules form layers: no import cycle among them (read from the
source's imports, lazy ones included), and cli/ is imported by nothing but the package's `python -m`
entry."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "ragchain_cli"


def _module(path: Path) -> list[str]:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def _unit(parts: list[str]) -> str:
    """ragchain_cli.X.Y -> X (a package, or a top-level module)."""
    return parts[1] if len(parts) > 1 else parts[0]


def _resolved(parts: list[str]) -> list[str]:
    """The module a name imported from belongs to: `from .. import __version__` imports ragchain_cli."""
    while len(parts) > 1 and not _exists(parts):
        parts = parts[:-1]
    return parts


def _exists(parts: list[str]) -> bool:
    path = PACKAGE.parent.joinpath(*parts)
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _imports(path: Path) -> set[str]:
    here = _module(path)
    package = here if path.name == "__init__.py" else here[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[:len(package) - (node.level - 1)] + (node.module.split(".") if node.module else [])
            targets = [base + [alias.name] for alias in node.names] if not node.module else [base]
            found.update(_unit(_resolved(t)) for t in targets if len(t) > 1)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ragchain_cli."):
            found.add(_unit(_resolved(node.module.split("."))))
        elif isinstance(node, ast.Import):
            found.update(_unit(_resolved(a.name.split("."))) for a in node.names if a.name.startswith("ragchain_cli."))
    return found


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for path in PACKAGE.rglob("*.py"):
        unit = _unit(_module(path))
        graph[unit] |= _imports(path) - {unit}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of the graph as a path (a -> b -> ... -> a), or [] when its units form layers."""
    state: dict[str, int] = {}  # depth-first search: 1 = on the path, 2 = done

    def visit(path: list[str]) -> list[str]:
        state[path[-1]] = 1
        for nxt in sorted(graph.get(path[-1], ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            found = visit(path + [nxt]) if nxt not in state else []
            if found:
                return found
        state[path[-1]] = 2
        return []

    for unit in sorted(graph):
        found = visit([unit]) if unit not in state else []
        if found:
            return found
    return []


def test_the_cycle_finder_names_a_cycle_through_top_level_modules():
    # the cycle of issue 53: types.py imported snippets.py for hit_payload, and text/ imports stores.analyzer
    graph = {"stores": {"types"}, "types": {"snippets"}, "snippets": {"text"}, "text": {"stores"}, "cli": {"stores"}}
    assert _cycle(graph) == ["stores", "types", "snippets", "text", "stores"]


def test_no_cycle_among_packages_and_top_level_modules():
    cycle = _cycle(_graph())
    assert not cycle, " -> ".join(cycle)


def test_cli_is_imported_by_nothing_but_the_entry():
    importers = sorted(unit for unit, targets in _graph().items() if "cli" in targets and unit != "cli")
    assert importers == ["__main__"]


def test_retrieval_and_reranking_reach_the_model_runtime_not_the_answer_path():
    graph = _graph()
    assert "llm" in graph["retrieve"] | graph["rerank"]
    assert "answer" not in graph["retrieve"] | graph["rerank"]
