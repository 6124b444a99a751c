"""The torch-free query encoder gives the same vectors as sentence-transformers."""

import json
import os

import numpy as np
import pytest

from ragchain_cli.errors import ModelNotFound
from ragchain_cli.stores.embedders import load_embedder, model_folder
from ragchain_cli.stores.numpy_bert import NumpyBertEncoder, supported, unsupported_reason

TEXTS = [
    "When is Heron Inlet closed to sampling?",
    "a",
    "Ünïcödé tëxt — with dashes, emoji 🙂 and symbols & < > !",
    "A long passage about lakes and ferries. " * 60,  # truncated at 256 tokens by both
    "",
]


def test_same_vectors_as_sentence_transformers_within_1e_4_cosine():
    folder = model_folder("all-MiniLM-L6-v2")
    assert supported(folder)
    ours = NumpyBertEncoder(folder).embed(TEXTS)
    reference = load_embedder("all-MiniLM-L6-v2").embed(TEXTS)
    cosines = (ours * reference).sum(axis=1)
    assert ours.shape == reference.shape == (len(TEXTS), 384)
    assert np.all(cosines > 1 - 1e-4), cosines
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


def test_batch_padding_does_not_change_a_vector():
    encoder = NumpyBertEncoder(model_folder("all-MiniLM-L6-v2"))
    alone = encoder.embed([TEXTS[0]])[0]
    padded = encoder.embed([TEXTS[0], TEXTS[3]])[0]
    assert float(alone @ padded) > 1 - 1e-6


def test_unsupported_folder_is_detected(tmp_path):
    (tmp_path / "config.json").write_text('{"model_type": "t5"}', encoding="utf-8")
    assert not supported(tmp_path)


def _copy_of_minilm(tmp_path, modules=None, pooling=None):
    """A folder holding the bundled MiniLM (files linked), with modules.json / pooling config edited."""
    import shutil

    source = model_folder("all-MiniLM-L6-v2")
    folder = tmp_path / "model"
    shutil.copytree(source, folder, copy_function=os.symlink)
    if modules is not None:
        (folder / "modules.json").unlink()
        (folder / "modules.json").write_text(json.dumps(modules), encoding="utf-8")
    if pooling is not None:
        config = json.loads((source / "1_Pooling" / "config.json").read_text(encoding="utf-8"))
        (folder / "1_Pooling" / "config.json").unlink()
        (folder / "1_Pooling" / "config.json").write_text(json.dumps({**config, **pooling}), encoding="utf-8")
    return folder


def test_the_bundled_model_is_read_from_its_modules_json(tmp_path):
    assert unsupported_reason(_copy_of_minilm(tmp_path)) == ""


@pytest.mark.parametrize("pooling, says", [
    ({"pooling_mode_mean_tokens": False, "pooling_mode_cls_token": True}, "not mean pooling"),
    ({"pooling_mode_mean_tokens": False}, "not mean pooling"),
    ({"pooling_mode_max_tokens": True}, "not mean pooling"),
    ({"include_prompt": False}, "excludes the prompt"),
])
def test_a_model_with_other_pooling_is_refused(tmp_path, pooling, says):
    folder = _copy_of_minilm(tmp_path, pooling=pooling)
    assert says in unsupported_reason(folder)
    with pytest.raises(ModelNotFound):
        NumpyBertEncoder(folder)


def test_a_model_with_another_module_or_none_is_refused(tmp_path):
    modules = json.loads((model_folder("all-MiniLM-L6-v2") / "modules.json").read_text(encoding="utf-8"))
    dense = {"idx": 3, "name": "3", "path": "3_Dense", "type": "sentence_transformers.models.Dense"}
    assert "modules" in unsupported_reason(_copy_of_minilm(tmp_path / "a", modules=modules + [dense]))
    assert "modules" in unsupported_reason(_copy_of_minilm(tmp_path / "b", modules=modules[:1]))
    folder = _copy_of_minilm(tmp_path / "c")
    (folder / "modules.json").unlink()
    assert "modules.json" in unsupported_reason(folder)


def test_a_refused_model_encodes_queries_with_torch_and_the_manifest_says_which(tmp_path):
    from ragchain_cli.ingest.pipeline import ingest, ingest_options
    from ragchain_cli.retrieve.dense import DenseRetriever
    from ragchain_cli.stores.embedders import NUMPY, TORCH, SentenceTransformerEmbedder, load_query_encoder
    from ragchain_cli.stores.index import Index

    corpus = tmp_path / "docs"
    corpus.mkdir()
    (corpus / "a.txt").write_text("Heron Inlet is closed to sampling in spring.", encoding="utf-8")
    folder = _copy_of_minilm(tmp_path, pooling={"pooling_mode_mean_tokens": False, "pooling_mode_cls_token": True})
    assert isinstance(load_query_encoder(str(folder)), SentenceTransformerEmbedder)
    for model, expected in ((str(folder), TORCH), ("all-MiniLM-L6-v2", NUMPY)):
        index = Index(tmp_path / f"idx-{expected}", create=True)
        try:
            ingest(index, [corpus], ingest_options(embed_model=model))
            assert index.manifest()["query_encoder"] == expected
            encoder = DenseRetriever(index).encoder
            assert isinstance(encoder, SentenceTransformerEmbedder) == (expected == TORCH)
        finally:
            index.close()
