"""The claim judge: a three-way cross-encoder ragchain trains itself (tools/judge/claims.py) and ships
beside the answer judge as int8 ONNX. For each (text, sentence) it gives the probabilities that the
sentence entails the text, contradicts it, or neither, where the text is a claim ("Pool bicycles
cannot be taken on the ferry") or a question with an answer (`asked`). Verify reads it: an answer the
cited sentence contradicts (another value for what was asked, the other side of a yes/no question) is
not verified, and a yes/no reply's claim is verified when a cited sentence entails it.

Its model file is pinned by size and SHA-256 here in code (PINNED), like the answer judge's; the
tokenizer is the answer judge's own file (pinned there).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Mapping, Protocol, Sequence

import numpy as np

from ..llm.models import Pin, verify_pinned
from .model import REINSTALL, TOKENIZER, WEIGHTS, OnnxCrossEncoder
from .model import PINNED as JUDGE_PINNED
from .model import manifest as judge_manifest

ENTAILS, NEITHER, CONTRADICTS = 0, 1, 2
LABELS = ("entails", "neither", "contradicts")
MODEL_FILE = "claims-int8.onnx"
MANIFEST = "claims-manifest.json"
TRAIN = "python -m tools.judge.claims"
PINNED: Mapping[str, Pin] = {
    MODEL_FILE: Pin(23_147_653, "5544071bee26f675933701d7a48ac6678615c1986e624a31ae231b9ac33ee747"),
}


@dataclass(frozen=True)
class Reading:
    """What the claim judge reads in one sentence for one text."""

    entails: float
    neither: float
    contradicts: float

    @property
    def label(self) -> str:
        values = (self.entails, self.neither, self.contradicts)
        return LABELS[int(np.argmax(values))]


class ClaimJudge(Protocol):
    def read(self, pairs: Sequence[tuple[str, str]]) -> list[Reading]: ...


def softmax(logits: np.ndarray) -> np.ndarray:
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


def manifest(folder: Path = WEIGHTS) -> dict:
    return judge_manifest(folder, MANIFEST, "claim judge", TRAIN)


def checked(folder: Path = WEIGHTS, pins: Mapping[str, Pin] | None = None) -> Path:
    """The model file, once it and the tokenizer match their pins: PINNED for the shipped folder,
    the folder's manifest for another one (what tools/judge/claims.py has just written)."""
    shipped = pins is None and folder.resolve() == WEIGHTS
    if pins is None:
        record = {} if shipped else manifest(folder)
        pins = ({**PINNED, TOKENIZER: JUDGE_PINNED[TOKENIZER]} if shipped
                else {MODEL_FILE: Pin(int(record["size"]), record["sha256"])})
    install = REINSTALL if shipped else f"{TRAIN} --out {folder}"
    for name, pin in pins.items():
        verify_pinned(folder / name, pin, f"claims.{name}.{pin.sha256[:12]}", install,
                      instead="" if not shipped else f"; weights retrained on purpose ({TRAIN}) need their "
                      "size and SHA-256 in PINNED in ragchain_cli/judge/claims.py")
    return folder / MODEL_FILE


class OnnxClaimJudge:
    def __init__(self, folder: Path = WEIGHTS, threads: int | None = None,
                 pins: Mapping[str, Pin] | None = None) -> None:
        path = checked(folder, pins)
        self.encoder = OnnxCrossEncoder(path, folder / TOKENIZER, int(manifest(folder)["max_length"]), threads)

    def read(self, pairs: Sequence[tuple[str, str]]) -> list[Reading]:
        if not pairs:
            return []
        return [Reading(*map(float, row)) for row in softmax(self.encoder.logits(pairs))]


@lru_cache(maxsize=2)
def load_claim_judge(folder: str = "") -> OnnxClaimJudge:
    """The claim judge, loaded once a process."""
    return OnnxClaimJudge(Path(folder) if folder else WEIGHTS)
