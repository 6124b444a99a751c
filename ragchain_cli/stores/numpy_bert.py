"""A torch-free encoder for BERT-family sentence-transformers models (all-MiniLM-L6-v2 and kin).

The query side of dense search needs one short forward pass. Importing torch and
sentence-transformers for it costs seconds per command; this runs the same network with numpy
from the model folder's own safetensors weights and tokenizer.json (the `tokenizers` library),
with mean pooling and L2 normalisation, and matches sentence-transformers to ~1e-6 cosine
(tests/test_numpy_bert.py checks it). Models it does not support fall back to torch.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..errors import ModelNotFound
from ..offline import quiet_hub

_SQRT_HALF = np.float32(np.sqrt(0.5))


TRANSFORMER, POOLING, NORMALIZE = (f"sentence_transformers.models.{name}" for name in ("Transformer", "Pooling",
                                                                                       "Normalize"))


def supported(folder: Path) -> bool:
    return not unsupported_reason(folder)


def unsupported_reason(folder: Path) -> str:
    """Why this encoder would not reproduce the model's sentence-transformers vectors ("" when it would).

    It implements exactly: a BERT encoder (GELU, absolute positions) from model.safetensors and
    tokenizer.json, then mean pooling over the tokens, then L2 normalisation, in the order the
    folder's modules.json gives. Any other module (Dense, a second pooling, a custom one), another
    pooling mode or a prompt excluded from the pooling is refused: that model encodes with torch.
    """
    try:
        modules = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return f"no readable modules.json/config.json ({exc.__class__.__name__})"
    kinds = [m.get("type") for m in modules] if isinstance(modules, list) else []
    if kinds not in ([TRANSFORMER, POOLING], [TRANSFORMER, POOLING, NORMALIZE]) or modules[0].get("path"):
        return f"modules {kinds} are not Transformer, Pooling[, Normalize] with the transformer at the root"
    if (config.get("model_type"), config.get("hidden_act"), config.get("position_embedding_type", "absolute")) != (
            "bert", "gelu", "absolute"):
        return "not a BERT encoder with GELU and absolute positions"
    return _pooling_reason(folder / modules[1].get("path", ""), int(config.get("hidden_size", 0))) or next(
        (f"no {name}" for name in ("model.safetensors", "tokenizer.json") if not (folder / name).is_file()), "")


def _pooling_reason(folder: Path, hidden: int) -> str:
    try:
        pooling = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return f"no readable pooling config in {folder.name or '.'}"
    modes = sorted(k for k, v in pooling.items() if k.startswith("pooling_mode_") and v)
    if modes != ["pooling_mode_mean_tokens"]:
        return f"pooling {modes or 'none'} is not mean pooling alone"
    if pooling.get("include_prompt", True) is not True or pooling.get("word_embedding_dimension", hidden) != hidden:
        return "pooling excludes the prompt or changes the dimension"
    return ""


def _erf(x: np.ndarray) -> np.ndarray:
    """Abramowitz-Stegun 7.1.26 (max error 1.5e-7), vectorised."""
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-x * x))


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


class NumpyBertEncoder:
    def __init__(self, folder: Path, max_tokens: int | None = None) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        quiet_hub()
        reason = unsupported_reason(folder)
        if reason:
            raise ModelNotFound(f"the numpy encoder cannot reproduce {folder}: {reason}",
                                "encode with sentence-transformers (load_embedder)")
        self.config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        st_config = folder / "sentence_bert_config.json"
        limit = json.loads(st_config.read_text(encoding="utf-8")).get("max_seq_length", 512) if st_config.is_file() else 512
        self.max_tokens = max_tokens or limit
        self.w = load_file(str(folder / "model.safetensors"))
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(self.max_tokens)
        self.tokenizer.no_padding()
        self.dim = int(self.config["hidden_size"])
        self.heads = int(self.config["num_attention_heads"])
        self.eps = float(self.config.get("layer_norm_eps", 1e-12))

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        encodings = self.tokenizer.encode_batch(texts)
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(texts), width), dtype=np.int64)
        mask = np.zeros((len(texts), width), dtype=np.float32)
        for row, enc in enumerate(encodings):
            ids[row, : len(enc.ids)] = enc.ids
            mask[row, : len(enc.ids)] = 1.0
        hidden = self._encode(ids, mask)
        pooled = (hidden * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)

    def _encode(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w = self.w
        positions = np.arange(ids.shape[1])
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][positions]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        for layer in range(int(self.config["num_hidden_layers"])):
            x = self._layer(x, bias, f"encoder.layer.{layer}.")
        return x

    def _dense(self, x: np.ndarray, name: str) -> np.ndarray:
        return x @ self.w[name + ".weight"].T + self.w[name + ".bias"]

    def _layer(self, x: np.ndarray, bias: np.ndarray, p: str) -> np.ndarray:
        batch, length, dim = x.shape
        head = dim // self.heads

        def split(t: np.ndarray) -> np.ndarray:
            return t.reshape(batch, length, self.heads, head).transpose(0, 2, 1, 3)

        q = split(self._dense(x, p + "attention.self.query"))
        k = split(self._dense(x, p + "attention.self.key"))
        v = split(self._dense(x, p + "attention.self.value"))
        scores = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(head)) + bias
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        attn = (scores / scores.sum(-1, keepdims=True)) @ v
        attn = attn.transpose(0, 2, 1, 3).reshape(batch, length, dim)
        w = self.w
        x = _layer_norm(x + self._dense(attn, p + "attention.output.dense"),
                        w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"], self.eps)
        inner = self._dense(x, p + "intermediate.dense")
        inner = 0.5 * inner * (1.0 + _erf(inner * _SQRT_HALF))
        return _layer_norm(x + self._dense(inner, p + "output.dense"),
                           w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], self.eps)
