"""The packages form layers: no cycle among them (read from the source's imports, lazy ones
included), and cli/ is imported by nothing but the package's `python -m` entry."""

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


def _imports(path: Path) -> set[str]:
    here = _module(path)
    package = here if path.name == "__init__.py" else here[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[:len(package) - (node.level - 1)] + (node.module.split(".") if node.module else [])
            targets = [base + [alias.name] for alias in node.names] if not node.module else [base]
            found.update(_unit(t) for t in targets if len(t) > 1)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ragchain_cli."):
            found.add(_unit(node.module.split(".")))
        elif isinstance(node, ast.Import):
            found.update(_unit(a.name.split(".")) for a in node.names if a.name.startswith("ragchain_cli."))
    return found


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for path in PACKAGE.rglob("*.py"):
        unit = _unit(_module(path))
        graph[unit] |= _imports(path) - {unit}
    return graph


def test_no_cycle_among_packages():
    graph = _graph()
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    edges = {a: graph[a] & packages for a in packages}
    cycles = sorted(f"{a} <-> {b}" for a in edges for b in edges[a] if a < b and a in edges.get(b, ()))
    assert not cycles, cycles
    seen: dict[str, int] = {}  # longer cycles too: depth-first search, 1 = on the path, 2 = done

    def visit(node: str, path: list[str]) -> None:
        seen[node] = 1
        for nxt in sorted(edges[node]):
            assert seen.get(nxt) != 1, " -> ".join(path + [node, nxt])
            if nxt not in seen:
                visit(nxt, path + [node])
        seen[node] = 2

    for package in sorted(packages):
        if package not in seen:
            visit(package, [])


def test_cli_is_imported_by_nothing_but_the_entry():
    importers = sorted(unit for unit, targets in _graph().items() if "cli" in targets and unit != "cli")
    assert importers == ["__main__"]


def test_retrieval_and_reranking_reach_the_model_runtime_not_the_answer_path():
    graph = _graph()
    assert "llm" in graph["retrieve"] | graph["rerank"]
    assert "answer" not in graph["retrieve"] | graph["rerank"]
