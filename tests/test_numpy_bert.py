"""The torch-free query encoder gives the same vectors as sentence-transformers."""

import numpy as np

from ragchain_cli.stores.embedders import load_embedder, model_folder
from ragchain_cli.stores.numpy_bert import NumpyBertEncoder, supported

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
