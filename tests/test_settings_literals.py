"""Every tuned number has one home: a Settings field is never written again as a literal default of a
parameter that bears its name ("passages: int = 4" beside Settings.passages = 4), and a named module
constant is defined in one module only (read from the source with ast)."""

from __future__ import annotations

import ast
import dataclasses
from collections import defaultdict
from pathlib import Path

from ragchain_cli.config import Settings

PACKAGE = Path(__file__).resolve().parent.parent / "ragchain_cli"
NUMERIC = {f.name: f.default for f in dataclasses.fields(Settings)
           if isinstance(f.default, (int, float)) and not isinstance(f.default, bool)}


def _literal_defaults(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args.args[len(node.args.args) - len(node.args.defaults):]
            pairs = list(zip(args, node.args.defaults)) + list(zip(node.args.kwonlyargs, node.args.kw_defaults))
            yield from ((arg.arg, d.value) for arg, d in pairs if isinstance(d, ast.Constant))
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and isinstance(node.value, ast.Constant):
            yield node.target.id, node.value.value


def repeated_settings(files: list[Path]) -> list[str]:
    return [f"{path.name}: {name} = {value}" for path in files for name, value in _literal_defaults(ast.parse(path.read_text()))
            if path.name != "config.py" and name in NUMERIC and value == NUMERIC[name] and not isinstance(value, bool)]


def test_no_settings_default_is_written_again_as_a_literal():
    assert repeated_settings(sorted(PACKAGE.rglob("*.py"))) == []


def test_the_scan_finds_a_repeated_default(tmp_path):
    (tmp_path / "select.py").write_text("def score(question, passages: int = 4):\n    return passages\n")
    assert repeated_settings([tmp_path / "select.py"]) == ["select.py: passages = 4"]


def test_a_named_numeric_constant_is_defined_in_one_module():
    homes: dict[tuple[str, float], set[str]] = defaultdict(set)
    for path in PACKAGE.rglob("*.py"):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) \
                    and isinstance(node.value.value, (int, float)) and not isinstance(node.value.value, bool):
                for target in node.targets:
                    if isinstance(target, ast.Name) and target.id.isupper():
                        homes[(target.id, node.value.value)].add(str(path.relative_to(PACKAGE)))
    assert {k: v for k, v in homes.items() if len(v) > 1} == {}
