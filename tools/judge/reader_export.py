"""The answer reader's export (tools/judge/reader.py): ONNX, int8 (per-channel, 7-bit weights as the
judges'), held-out figures for PyTorch and int8 side by side, and reader-manifest.json; and how its
logits are read (`spans_of`, `Int8Reader`). ragchain does not ship or run the reader (docs/JUDGE.md,
"An answer reader"): the code that ran it on the answer path for the measurement is outside the repository.

    python -m tools.judge.reader ... --export-only   # the checkpoint's model exported again

Held-out figures, on the held-out articles' windows: for windows that hold the answer, the share whose
best span is the answer exactly (exact) and SQuAD's token F1; for windows that do not, the share read
as no answer (the no-answer probability above the best span's). The int8 check fails the run when the
int8 model takes the other side (answer or none) for more than 1 - --int8-agreement of the windows.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ragchain_cli.judge.model import TOKENIZER
from ragchain_cli.llm.models import sha256_file

LOG = logging.getLogger("ragchain.judge")
SAMPLE = 3000  # held-out windows the export reads
MODEL_FILE = "reader-int8.onnx"
MANIFEST = "reader-manifest.json"
LONGEST = 30  # tokens in one answer span
TOP = 5  # spans kept a window


@dataclass(frozen=True)
class Span:
    text: str
    probability: float


@dataclass(frozen=True)
class Reading:
    """What the reader finds in one window for one question: its likeliest spans, best first, and the
    probability that the window does not answer (all normalised together)."""

    spans: tuple[Span, ...]
    none: float

    @property
    def best(self) -> Span:
        return self.spans[0] if self.spans else Span("", 0.0)


def spans_of(start: np.ndarray, end: np.ndarray, inside: np.ndarray) -> tuple[list[tuple[int, int, float]], float]:
    """From one pair's start and end logits: the likeliest spans of passage tokens (`inside`), as
    (first token, last token, probability), and the probability of no answer (position 0), all normalised
    together over every span of at most LONGEST tokens."""
    where = np.flatnonzero(inside)
    if not where.size:
        return [], 1.0
    pairs = start[where][:, None] + end[where][None, :]
    offset = np.arange(len(where))[None, :] - np.arange(len(where))[:, None]
    pairs = np.where((offset >= 0) & (offset < LONGEST), pairs, -np.inf)
    null = float(start[0] + end[0])
    top = float(max(pairs.max(), null))
    total = np.exp(pairs - top).sum() + np.exp(null - top)
    found = [(int(where[k // len(where)]), int(where[k % len(where)]), float(np.exp(pairs.flat[k] - top) / total))
             for k in np.argsort(-pairs, axis=None)[:TOP] if np.isfinite(pairs.flat[k])]
    return found, float(np.exp(null - top) / total)


def readings(tokenizer, windows: list, start: np.ndarray, end: np.ndarray) -> list[Reading]:
    """Each window's Reading from a batch's logits (`windows`: examples with .question and .text)."""
    encoded = tokenizer.encode_batch([(e.question, e.text) for e in windows])
    out = []
    for n, (enc, example) in enumerate(zip(encoded, windows)):
        inside = np.array([s == 1 for s in enc.sequence_ids])
        found, none = spans_of(np.asarray(start[n], np.float64), np.asarray(end[n], np.float64), inside)
        spans = tuple(Span(example.text[enc.offsets[i][0]:enc.offsets[j][1]], p) for i, j, p in found)
        out.append(Reading(spans, none))
    return out


class Int8Reader:
    """The exported int8 model, read by onnxruntime on the CPU as ragchain reads its judges."""

    def __init__(self, path: Path, tokenizer, max_length: int) -> None:
        import onnxruntime

        self.session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        self.tokenizer, self.max_length = tokenizer, max_length

    def read(self, windows: list) -> list[Reading]:
        from .reader import feed

        out = []
        for k in range(0, len(windows), 32):
            inputs, _ = feed(self.tokenizer, windows[k:k + 32], self.max_length)
            start, end = self.session.run(None, inputs)[:2]
            out += readings(self.tokenizer, windows[k:k + 32], start, end)
        return out


def to_int8(model, path: Path) -> None:
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    class Logits(torch.nn.Module):  # the two logit tensors, not HF's output object
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            out = self.inner(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
            return out.start_logits, out.end_logits

    full = path.with_name(path.stem + "-fp32.onnx")
    dummy = tuple(torch.ones((1, 8), dtype=torch.int64) for _ in range(3))
    names = ["input_ids", "attention_mask", "token_type_ids"]
    axes = {name: {0: "batch", 1: "tokens"} for name in names + ["start_logits", "end_logits"]}
    torch.onnx.export(Logits(model).eval(), dummy, str(full), input_names=names,
                      output_names=["start_logits", "end_logits"], dynamic_axes=axes, opset_version=17, dynamo=False)
    quantize_dynamic(str(full), str(path), weight_type=QuantType.QInt8, per_channel=True, reduce_range=True)
    full.unlink()


def torch_readings(model, tokenizer, held, max_length: int) -> list[Reading]:
    import torch

    from .reader import feed

    out = []
    with torch.no_grad():
        for k in range(0, len(held), 32):
            inputs, _ = feed(tokenizer, held[k:k + 32], max_length)
            logits = model(**{name: torch.from_numpy(v) for name, v in inputs.items()})
            out += readings(tokenizer, held[k:k + 32], logits.start_logits.numpy(), logits.end_logits.numpy())
    return out


def _words(text: str) -> list[str]:
    text = re.sub(r"\b(a|an|the)\b", " ", re.sub(r"[^\w\s]", " ", text.lower()))
    return text.split()


def f1(found: str, gold: str) -> float:
    """SQuAD's token F1."""
    a, b = _words(found), _words(gold)
    common = sum((Counter(a) & Counter(b)).values())
    if not a or not b or not common:
        return float(a == b)
    precision, recall = common / len(a), common / len(b)
    return 2 * precision * recall / (precision + recall)


def figures(held, readings: list[Reading]) -> dict:
    answered = [(e, r) for e, r in zip(held, readings) if e.start >= 0]
    unanswered = [(e, r) for e, r in zip(held, readings) if e.start < 0]
    return {"answer_windows": len(answered),
            "exact": round(float(np.mean([r.best.text.strip() == e.text[e.start:e.end].strip() for e, r in answered])), 4),
            "f1": round(float(np.mean([f1(r.best.text, e.text[e.start:e.end]) for e, r in answered])), 4),
            "answered_as_none": round(float(np.mean([r.none > r.best.probability for _, r in answered])), 4),
            "other_windows": len(unanswered),
            "none_read": round(float(np.mean([r.none > r.best.probability for _, r in unanswered])), 4)}


def export(model, tokenizer, held, args, counts: dict, steps: int, base: Path) -> None:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    to_int8(model, out / MODEL_FILE)
    if not (out / TOKENIZER).is_file():
        shutil.copy(base / "tokenizer.json", out / TOKENIZER)
    data = (out / MODEL_FILE).read_bytes()
    record = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data), "max_length": args.max_length,
              "base": args.base, "steps": steps, "batch": args.batch, "lr": args.lr, "seed": args.seed,
              "negatives": args.negatives, "unanswerable_share": args.unanswerable_share, "bf16": args.bf16,
              "data": counts}
    (out / MANIFEST).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    sample = held[:: max(1, len(held) // SAMPLE)]
    reference = torch_readings(model, tokenizer, sample, args.max_length)
    shipped = Int8Reader(out / MODEL_FILE, tokenizer, args.max_length).read(sample)
    sides = [(a.none > a.best.probability) == (b.none > b.best.probability) for a, b in zip(reference, shipped)]
    agree = float(np.mean(sides)) if sides else 1.0
    record["held_out"] = {"torch": figures(sample, reference), "int8": figures(sample, shipped),
                          "int8_same_side": round(agree, 4),
                          "int8_same_best": round(float(np.mean([a.best.text == b.best.text
                                                                 for a, b in zip(reference, shipped)])), 4)}
    (out / MANIFEST).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    LOG.info(f"held out: {json.dumps(record['held_out'])}")
    if agree < args.int8_agreement:
        raise SystemExit(f"the int8 model takes the other side for {1 - agree:.1%} of the held-out windows "
                         f"(--int8-agreement {args.int8_agreement})")
    LOG.info(f"{MODEL_FILE}: {len(data)} bytes, SHA-256 {sha256_file(out / MODEL_FILE)}")
