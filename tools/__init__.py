"""Scripts that build what ragchain ships, run from the repository root (`python -m tools.judge.train`).

Not installed (pyproject's packages are ragchain_cli's alone) and never imported by ragchain_cli
(tests/test_tools_apart.py)."""
