"""The runtime holds no training code: tools/ (the judge's data and training scripts) is neither
installed nor imported by ragchain_cli (issue 53)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "ragchain_cli"
TRAINING = ("judge.train", "judge.data", "judge.pairs", "judge.explorer")

# Every module of the package imported (but `python -m ragchain_cli`'s entry, which runs the CLI), with
# tools/ importable: then no name under tools may be among the modules loaded.
IMPORT_ALL = """
import importlib, pkgutil, sys
import ragchain_cli
for info in pkgutil.walk_packages(ragchain_cli.__path__, "ragchain_cli."):
    if not info.name.endswith("__main__"):
        importlib.import_module(info.name)
print(sorted(m for m in sys.modules if m == "tools" or m.startswith("tools.")))
"""


def test_importing_every_module_of_the_package_imports_nothing_from_tools():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", IMPORT_ALL], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert (done.returncode, done.stdout.strip()) == (0, "[]"), done.stderr[-2000:]


def _imported(path: Path) -> set[str]:
    """The modules a file imports, and each name it imports from one, relative ones made absolute."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    package = parts[:-1]  # a module's package; an __init__.py's is its own
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = ".".join(base + (node.module.split(".") if node.module else []))
            found |= {module} | {f"{module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found


def test_no_module_of_the_package_imports_tools_or_the_training_modules():
    offending = sorted(f"{path.relative_to(ROOT)}: {name}" for path in PACKAGE.rglob("*.py")
                       for name in _imported(path)
                       if name.split(".")[0] == "tools" or name.startswith(tuple(f"ragchain_cli.{t}" for t in TRAINING)))
    assert offending == []


def test_the_wheel_holds_the_package_alone():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["tool"]["setuptools"]["packages"]["find"]["include"] == ["ragchain_cli*"]
