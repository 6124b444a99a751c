"""Shared fixtures: every test runs in its own temporary folder with a private cache and no
ragchain settings from the environment; the sample corpus is ingested once per session."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from ragchain_cli.cli.app import run

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_corpus"


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory) -> Path:
    """One model cache per test session (assembling a bundled GGUF once is enough)."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch, cache_dir):
    for name in list(os.environ):
        if name.startswith("RAGCHAIN_"):
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("RAGCHAIN_CACHE", str(cache_dir))
    monkeypatch.chdir(tmp_path)


class Result:
    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err

    def json(self):
        return json.loads(self.out)

    def jsonl(self) -> list:
        return [json.loads(line) for line in self.out.splitlines() if line.strip()]


@pytest.fixture
def cli(capsys):
    """Run `ragchain ARGS...` in-process (models load once per session); stdout is not a TTY."""

    def invoke(*args: str) -> Result:
        capsys.readouterr()
        code = run([str(a) for a in args])
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return invoke


@pytest.fixture(scope="session")
def sample_index(tmp_path_factory) -> Path:
    """sample_corpus/ ingested once into a session index (read-only for the tests using it)."""
    base = tmp_path_factory.mktemp("sample")
    corpus = base / "sample_corpus"
    shutil.copytree(SAMPLE, corpus)
    index = base / "index"
    code = run(["ingest", str(corpus), "--index", str(index), "--json"])
    if code != 0:
        raise RuntimeError(f"sample ingest failed with exit code {code}")
    return index
