"""cli/ parses, calls the library and renders: no function there grows past 25 lines of body (what
follows the signature and the docstring); a longer one holds logic that belongs in a library module."""

from __future__ import annotations

import ast
from pathlib import Path

CLI = Path(__file__).resolve().parent.parent / "ragchain_cli" / "cli"
MAX_BODY = 25


def body_lines(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Source lines from the first statement after the docstring to the end of the last one."""
    body = function.body
    first = body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        body = body[1:]
    return body[-1].end_lineno - body[0].lineno + 1 if body else 0


def long_functions(source: str, name: str) -> list[str]:
    tree = ast.parse(source)
    return [f"{name}:{node.lineno} {node.name} ({body_lines(node)} lines)" for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and body_lines(node) > MAX_BODY]


def test_every_cli_function_body_is_at_most_25_lines():
    files = sorted(CLI.glob("*.py"))
    assert len(files) > 5  # the commands were found
    found = [line for path in files for line in long_functions(path.read_text(encoding="utf-8"), path.name)]
    assert not found, found


def test_the_count_skips_the_docstring_and_catches_a_long_body():
    docstring = '    """' + "\n".join(["a line of the docstring"] * 30) + '"""\n'
    statements = "".join(f"    x{n} = {n}\n" for n in range(MAX_BODY + 1))
    assert long_functions(f"def f():\n{docstring}{statements}", "m.py") == ["m.py:1 f (26 lines)"]
