"""The answer judge: a cross-encoder ragchain trains itself (tools/judge/train.py) and ships inside the
package as int8 ONNX, run by onnxruntime on the CPU. Nothing is downloaded. The shipped model and
tokenizer are pinned by size and SHA-256 here in code (PINNED), each hashed once and then vouched for
by a marker in the model cache (llm.models.verify_pinned); manifest.json beside them records how
they were trained, and pins only a judge in another folder (one tools/judge/train.py has just written).

One main method, `score(pairs) -> probabilities`: for each (text, sentence), how likely the sentence
supports the text, where the text is a question (does the sentence answer it?), a question with an
answer (`asked`: does the sentence give that answer?) or a claim (does it entail it?). A sentence is
read after what its passage is about (`passage`). Training builds its pairs with the same two
functions, so the judge is trained on the texts it is run on.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Mapping, Protocol, Sequence

import numpy as np

from ..errors import DependencyMissing, ModelNotFound
from ..llm.models import Pin, verify_pinned

WEIGHTS = Path(__file__).resolve().parent / "weights"
MODEL_FILE = "judge-int8.onnx"
TOKENIZER = "tokenizer.json"
MANIFEST = "manifest.json"  # the model's SHA-256, size, input length and how it was trained
BATCH = 32
ANSWER_SEP = " Answer: "
TRAIN = "python -m tools.judge.train"  # from a checkout's root (docs/JUDGE.md#training)

# The shipped judge. New weights from tools/judge/train.py need their size and SHA-256 here (train.py logs
# them; tests/test_judge.py fails until they match): manifest.json alone pins nothing.
PINNED: Mapping[str, Pin] = {
    MODEL_FILE: Pin(23_146_867, "0e8610899f18f9a60aa3c750750bfc43810fc7e1f02ad4de0352964422e74190"),
    TOKENIZER: Pin(466_247, "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"),
}
REINSTALL = "./install.sh, or `git checkout ragchain_cli/judge/weights` in a checkout"
RETRAINED = (f"; weights retrained on purpose ({TRAIN}) need their size and SHA-256 "
             "in PINNED in ragchain_cli/judge/model.py")


def asked(question: str, answer: str) -> str:
    """A question with the answer to judge, as the judge reads it."""
    return f"{question.strip()}{ANSWER_SEP}{answer.strip()}"


def passage(subject: str, sentence: str) -> str:
    """A sentence as the judge reads it: after what its passage is about (a title, a file name),
    which a sentence saying "she" or "it" leaves out."""
    return f"{subject.strip()}: {sentence.strip()}" if subject.strip() else sentence.strip()


class Judge(Protocol):
    def score(self, pairs: Sequence[tuple[str, str]]) -> list[float]: ...


def encode(tokenizer, pairs: Sequence[tuple[str, str]], max_length: int) -> dict[str, np.ndarray]:
    """The pairs as a cross-encoder's inputs (the same code trains and runs the judges); a model that takes
    no token_type_ids (MPNet) is fed the others only."""
    tokenizer.enable_truncation(max_length=max_length, strategy="longest_first")
    pad = "[PAD]" if tokenizer.token_to_id("[PAD]") is not None else "<pad>"  # BERT's, or MPNet's and RoBERTa's
    tokenizer.enable_padding(pad_id=tokenizer.token_to_id(pad) or 0, pad_token=pad)
    encoded = tokenizer.encode_batch([(a, b) for a, b in pairs])
    return {"input_ids": np.array([e.ids for e in encoded], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encoded], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encoded], dtype=np.int64)}


def sigmoid(logits: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(logits, -30.0, 30.0)))


def manifest(folder: Path = WEIGHTS, name: str = MANIFEST, judge: str = "answer judge", train: str = TRAIN) -> dict:
    """What the judge's manifest (`name` in `folder`) records: its model's SHA-256, size, input length, training."""
    path = folder / name
    if not path.is_file():
        raise ModelNotFound(f"the {judge} is missing from {folder}",
                            f"reinstall ragchain (./install.sh); `{train}` in a checkout rebuilds it")
    return json.loads(path.read_text(encoding="utf-8"))


def manifest_pins(folder: Path) -> dict[str, Pin]:
    """The model file as the folder's manifest.json pins it (what tools/judge/train.py wrote)."""
    record = manifest(folder)
    return {MODEL_FILE: Pin(int(record["size"]), record["sha256"])}


def checked(folder: Path = WEIGHTS, pins: Mapping[str, Pin] | None = None) -> Path:
    """The judge's model file, once every pinned file matches its pin: by default PINNED for the
    shipped folder, the folder's manifest for any other."""
    shipped = pins is None and folder.resolve() == WEIGHTS
    if pins is None:
        pins = PINNED if shipped else manifest_pins(folder)
    install = REINSTALL if shipped else f"{TRAIN} --out {folder}"
    for name, pin in pins.items():
        verify_pinned(folder / name, pin, f"judge.{name}.{pin.sha256[:12]}", install,
                      instead=RETRAINED if shipped else "; its manifest.json pins it")
    return folder / MODEL_FILE


class OnnxCrossEncoder:
    """A cross-encoder as int8 ONNX on the CPU with its tokenizer: the logits of (text, sentence) pairs."""

    def __init__(self, path: Path, tokenizer: Path, max_length: int, threads: int | None = None) -> None:
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError:
            raise DependencyMissing("ragchain's judges need onnxruntime and tokenizers",
                                    "pip install onnxruntime tokenizers") from None
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads or min(4, os.cpu_count() or 1)
        options.inter_op_num_threads = 1
        self.session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.tokenizer = Tokenizer.from_file(str(tokenizer))
        self.max_length = max_length
        self.inputs = {i.name for i in self.session.get_inputs()}

    def logits(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        out = []
        for start in range(0, len(pairs), BATCH):
            feed = encode(self.tokenizer, pairs[start:start + BATCH], self.max_length)
            out.append(np.asarray(self.session.run(None, {k: v for k, v in feed.items() if k in self.inputs})[0],
                                  dtype=np.float64))
        return np.concatenate(out) if out else np.zeros((0, 1))


class OnnxJudge:
    """The shipped judge (or a folder holding another one's manifest, model file and tokenizer);
    `pins` overrides what checked() compares the files with."""

    def __init__(self, folder: Path = WEIGHTS, threads: int | None = None,
                 pins: Mapping[str, Pin] | None = None) -> None:
        path = checked(folder, pins)
        self.encoder = OnnxCrossEncoder(path, folder / TOKENIZER, int(manifest(folder)["max_length"]), threads)

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        return sigmoid(self.encoder.logits(pairs).reshape(-1)).tolist()


@lru_cache(maxsize=2)
def load_judge(folder: str = "") -> OnnxJudge:
    """The judge, loaded once a process."""
    return OnnxJudge(Path(folder) if folder else WEIGHTS)
