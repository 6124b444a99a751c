"""The answer judge: a cross-encoder ragchain trains itself (judge/train.py) and ships inside the
package as int8 ONNX, pinned by SHA-256, run by onnxruntime on the CPU. Nothing is downloaded.

One main method, `score(pairs) -> probabilities`: for each (text, sentence), how likely the sentence
supports the text, where the text is a question (does the sentence answer it?), a question with an
answer (`pairs.asked`: does the sentence give that answer?) or a claim (does it entail it?).
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Protocol, Sequence

import numpy as np

from ..errors import DependencyMissing, ModelNotFound

WEIGHTS = Path(__file__).resolve().parent / "weights"
MODEL_FILE = "judge-int8.onnx"
MANIFEST = "manifest.json"  # the model's SHA-256, size, input length and how it was trained
BATCH = 32


class Judge(Protocol):
    def score(self, pairs: Sequence[tuple[str, str]]) -> list[float]: ...


def encode(tokenizer, pairs: Sequence[tuple[str, str]], max_length: int) -> dict[str, np.ndarray]:
    """The pairs as BERT inputs (the same code trains and runs the judge)."""
    tokenizer.enable_truncation(max_length=max_length, strategy="longest_first")
    tokenizer.enable_padding()
    encoded = tokenizer.encode_batch([(a, b) for a, b in pairs])
    return {"input_ids": np.array([e.ids for e in encoded], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encoded], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encoded], dtype=np.int64)}


def sigmoid(logits: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(logits, -30.0, 30.0)))


def manifest(folder: Path = WEIGHTS) -> dict:
    path = folder / MANIFEST
    if not path.is_file():
        raise ModelNotFound(f"the answer judge is missing from {folder}",
                            "reinstall ragchain (./install.sh); `python -m ragchain_cli.judge.train` rebuilds it")
    return json.loads(path.read_text(encoding="utf-8"))


def checked(folder: Path = WEIGHTS) -> Path:
    """The judge's model file, after its size and SHA-256 match the manifest's."""
    pinned, path = manifest(folder), folder / MODEL_FILE
    if not path.is_file() or path.stat().st_size != pinned["size"]:
        raise ModelNotFound(f"the answer judge {path} is missing or truncated",
                            "reinstall ragchain (./install.sh)")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != pinned["sha256"]:
        raise ModelNotFound(f"the answer judge {path} does not match its pinned SHA-256 ({pinned['sha256'][:16]}...)",
                            "reinstall ragchain (./install.sh)")
    return path


class OnnxJudge:
    """The shipped judge (or a folder holding another one's manifest, model file and tokenizer)."""

    def __init__(self, folder: Path = WEIGHTS, threads: int | None = None) -> None:
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError:
            raise DependencyMissing("the answer judge needs onnxruntime and tokenizers",
                                    "pip install onnxruntime tokenizers") from None
        path = checked(folder)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads or min(4, os.cpu_count() or 1)
        options.inter_op_num_threads = 1
        self.session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.max_length = int(manifest(folder)["max_length"])
        self.inputs = {i.name for i in self.session.get_inputs()}

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        out: list[float] = []
        for start in range(0, len(pairs), BATCH):
            feed = encode(self.tokenizer, pairs[start:start + BATCH], self.max_length)
            logits = self.session.run(None, {k: v for k, v in feed.items() if k in self.inputs})[0]
            out.extend(sigmoid(np.asarray(logits, dtype=np.float64).reshape(-1)).tolist())
        return out


@lru_cache(maxsize=2)
def load_judge(folder: str = "") -> OnnxJudge:
    """The judge, loaded once a process."""
    return OnnxJudge(Path(folder) if folder else WEIGHTS)
