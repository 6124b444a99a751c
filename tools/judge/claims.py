"""Train the three-way claim judge and write its shipped weights: `python -m tools.judge.claims`.

    python -m tools.judge.claims --squad data/squad2_train.jsonl --squad data/squad_extra.jsonl \
        --nli3 data/nli3.jsonl --boolq data/boolq.jsonl --out ragchain_cli/judge/weights \
        --checkpoint ckpt --examples 60000 --max-minutes 60

Starts from the bundled all-MiniLM-L6-v2 encoder with a new three-logit head (entails, neither,
contradicts: ragchain_cli/judge/claims.py), trains one pass over the pairs of
tools/judge/claim_pairs.py with cross-entropy, and is resumable: with --checkpoint it saves the
model, optimiser and step every --save-every steps and a rerun goes on from there (the pair order
is fixed by --seed). Evaluates on the answer judge's held-out split (by article: tools/judge/split.py), exports ONNX, quantises it to int8, checks the int8 readings against PyTorch's
(the run fails when they give another label to more than 5% of the held-out pairs) and writes claims-manifest.json. The
last line logged gives the PINNED entry for ragchain_cli/judge/claims.py.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import random
import sys
import time
from pathlib import Path

import numpy as np

from ragchain_cli.judge.claims import LABELS, MANIFEST, MODEL_FILE, OnnxClaimJudge, softmax
from ragchain_cli.judge.model import TOKENIZER
from ragchain_cli.llm.models import Pin, sha256_file

from .claim_pairs import Claim, boolq_claims, nli_claims, squad_claims, unrelated
from .split import BOOLQ_TITLES, PREMISES, Split, partition
from .train import add_training_options, batches, model_feed, squad_rows, to_int8, to_weights_8bit

LOG = logging.getLogger("ragchain.judge")


def gather(args, rng: random.Random) -> tuple[list[Claim], list[Claim], dict]:
    """Training and held-out claims, split by article as the answer judge's (tools/judge/split.py)."""
    squad = squad_rows(args.squad)
    split = Split.of(squad)
    answers = list(squad_claims([r for r in squad if r["title"] not in split.titles], rng, args.others))
    nli, nli_held = partition(split.nli_rows(args.nli3), "premise", PREMISES)
    polar, polar_held = partition(split.boolq_rows(args.boolq), "title", BOOLQ_TITLES)
    sources = tuple(s.strip() for s in args.nli_sources.split(",") if s.strip())
    nli = [r for r in nli if not sources or str(r.get("source", "")).startswith(sources)]
    train = list(nli_claims(nli)) + list(boolq_claims(polar))
    train += answers
    train += list(unrelated(train, args.others_share, rng)) if args.others else []
    rng.shuffle(train)
    train = train[:args.examples]
    evaluation = list(squad_claims([r for r in squad if r["title"] in split.titles], rng))
    evaluation += nli_claims(nli_held)
    evaluation += boolq_claims(polar_held)
    counts = {"squad_questions": len(squad), "held_out_articles": sorted(split.titles), "train": _by_kind(train),
              "eval": _by_kind(evaluation)}
    return train, evaluation, counts


def _by_kind(claims: list[Claim]) -> dict:
    kinds = sorted({c.kind for c in claims})
    return {kind: [sum(1 for c in claims if c.kind == kind and c.label == y) for y in range(len(LABELS))]
            for kind in kinds}


def train(args) -> None:
    import torch
    from tokenizers import Tokenizer
    from transformers import AutoModelForSequenceClassification

    from ragchain_cli.stores.embedders import model_folder

    rng, started = random.Random(args.seed), time.time()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    train_pairs, eval_pairs, counts = gather(args, rng)
    LOG.info(f"pairs: {json.dumps(counts)}")
    base = model_folder(args.base)
    same_tokenizer(Path(args.out), base)  # before hours of training, not after
    tokenizer = Tokenizer.from_file(str(base / "tokenizer.json"))
    model = AutoModelForSequenceClassification.from_pretrained(str(base), num_labels=len(LABELS))
    groups = batches(train_pairs, args.batch, rng)
    steps = fit(model, tokenizer, groups, optimised(model, groups, args), _step, args, started)
    if steps is None:
        return
    model.eval()
    export(model, tokenizer, eval_pairs, args, counts, steps, base)


def optimised(model, groups: list, args) -> tuple:
    """The optimiser and schedule for one pass over `groups`, and the steps done (from --checkpoint)."""
    import torch
    from transformers import get_linear_schedule_with_warmup

    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    schedule = get_linear_schedule_with_warmup(optimizer, int(0.05 * len(groups)), len(groups))
    return optimizer, schedule, _resume(args.checkpoint, model, optimizer, schedule)


def fit(model, tokenizer, groups: list, state: tuple, step, args, started: float) -> int | None:
    """The pass over `groups` from the steps done (`state`: optimised()'s), `step(model, tokenizer, group,
    optimizer, schedule, args)` a batch, saved every --save-every steps and at the end; the last step, or
    None when --max-minutes stopped it (saved: a rerun goes on)."""
    optimizer, schedule, done = state
    model.train()
    last = done
    for last, group in enumerate(groups[done:], done + 1):
        loss = step(model, tokenizer, group, optimizer, schedule, args)
        if last % args.log_every == 0:
            LOG.info(f"step {last}/{len(groups)} loss {loss:.4f} {time.time() - started:.0f}s")
        if args.checkpoint and last % args.save_every == 0:
            _save(args.checkpoint, model, optimizer, schedule, last)
        if (time.time() - started) / 60 > args.max_minutes:
            LOG.info(f"stopped at step {last}: --max-minutes {args.max_minutes}; rerun to go on")
            if args.checkpoint:
                _save(args.checkpoint, model, optimizer, schedule, last)
            return None
    if args.checkpoint:  # the finished model too: a failed export can be run again without training
        _save(args.checkpoint, model, optimizer, schedule, last)
    return last


def _step(model, tokenizer, group: list[Claim], optimizer, schedule, args) -> float:
    import torch

    feed = model_feed(model, tokenizer, [(c.text, c.sentence) for c in group], args.max_length)
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16):  # the weights and optimiser stay fp32
        logits = model(**feed).logits.float()
    loss = torch.nn.functional.cross_entropy(logits, torch.tensor([c.label for c in group]))
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    schedule.step()
    optimizer.zero_grad()
    return float(loss.item())


def _save(folder: str, model, optimizer, schedule, step: int) -> None:
    import torch

    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "schedule": schedule.state_dict(), "step": step}, path / "partial.pt")
    (path / "partial.pt").replace(path / "checkpoint.pt")
    LOG.info(f"checkpoint at step {step}")


def _resume(folder: str, model, optimizer, schedule) -> int:
    import torch

    path = Path(folder) / "checkpoint.pt" if folder else None
    if not path or not path.is_file():
        return 0
    state = torch.load(path, map_location="cpu")
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    schedule.load_state_dict(state["schedule"])
    LOG.info(f"resumed at step {state['step']}")
    return int(state["step"])


def torch_readings(model, tokenizer, claims: list[Claim], max_length: int) -> np.ndarray:
    import torch

    out = []
    with torch.no_grad():
        for k in range(0, len(claims), 64):
            feed = model_feed(model, tokenizer, [(c.text, c.sentence) for c in claims[k:k + 64]], max_length)
            out.append(softmax(model(**feed).logits.numpy().astype(np.float64)))
    return np.concatenate(out) if out else np.zeros((0, len(LABELS)))


def figures(claims: list[Claim], probs: np.ndarray) -> dict:
    out = {}
    labels, predicted = np.array([c.label for c in claims]), probs.argmax(axis=1)
    for kind in sorted({c.kind for c in claims}):
        mask = np.array([c.kind == kind for c in claims], dtype=bool)
        out[kind] = {"n": int(mask.sum()), "accuracy": round(float((predicted[mask] == labels[mask]).mean()), 4),
                     "confusion": [[int(((labels == y) & (predicted == p) & mask).sum()) for p in range(len(LABELS))]
                                   for y in range(len(LABELS))]}
    return out


def same_tokenizer(out: Path, base: Path) -> bool:
    """Whether `out` already holds the base's tokenizer (False: none yet). The claim judge reads the
    folder's tokenizer.json, which in the shipped folder is the answer judge's: a judge from another
    encoder (all-mpnet-base-v2) written there would read with the wrong one, so that fails here."""
    held = out / TOKENIZER
    if not held.is_file():
        return False
    if held.read_bytes() != (base / "tokenizer.json").read_bytes():
        raise SystemExit(f"{held} is another encoder's tokenizer: write this judge to a folder of its own (--out)")
    return True


def export(model, tokenizer, eval_pairs: list[Claim], args, counts: dict, steps: int, base: Path) -> None:
    import shutil

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.weights_8bit:  # all-mpnet-base-v2: dynamic int8 reads 10% of held-out pairs otherwise than PyTorch
        to_weights_8bit(model, tokenizer, out / MODEL_FILE)
    else:
        to_int8(model, tokenizer, out / MODEL_FILE, per_channel=True)  # per-tensor read up to 0.72 apart from PyTorch
    if not same_tokenizer(out, base):
        shutil.copy(base / "tokenizer.json", out / TOKENIZER)
    data = (out / MODEL_FILE).read_bytes()
    record = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data), "max_length": args.max_length,
              "labels": list(LABELS), "base": args.base, "steps": steps, "batch": args.batch, "lr": args.lr,
              "seed": args.seed, "threads": args.threads, "bf16": args.bf16, "nli_sources": args.nli_sources,
              "others": args.others, "others_share": args.others_share if args.others else None,
              "quantisation": "8-bit weights (MatMulNBits), int8 embeddings" if args.weights_8bit else "dynamic int8",
              "data": counts}
    (out / MANIFEST).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    # drawn at random, not every n-th pair: BoolQ's pairs alternate entailed and contradicted, so a stride of 2
    # read one label alone (the shipped manifest's 297 held-out polar pairs are all entailed ones)
    sample = random.Random(args.seed).sample(eval_pairs, min(3000, len(eval_pairs)))
    reference = torch_readings(model, tokenizer, sample, args.max_length)
    judge = OnnxClaimJudge(out, pins={MODEL_FILE: Pin(record["size"], record["sha256"])})
    shipped = np.array([[r.entails, r.neither, r.contradicts] for r in judge.read([(c.text, c.sentence) for c in sample])]).reshape(-1, len(LABELS))
    worst = float(np.abs(shipped - reference).max()) if len(sample) else 0.0
    agree = float((shipped.argmax(axis=1) == reference.argmax(axis=1)).mean()) if len(sample) else 1.0
    record["held_out"] = {"torch": figures(sample, reference), "int8": figures(sample, shipped),
                          "int8_max_abs_diff": round(worst, 4), "int8_same_label": round(agree, 4)}
    (out / MANIFEST).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    LOG.info(f"held out: {json.dumps(record['held_out'])}")
    if agree < args.int8_agreement:
        raise SystemExit(f"the int8 model reads {1 - agree:.1%} of the held-out pairs otherwise than PyTorch "
                         f"(--int8-agreement {args.int8_agreement}); the largest difference is {worst:.3f}")
    LOG.info(f"to ship these weights, put this pin in PINNED in ragchain_cli/judge/claims.py: "
             f"{MODEL_FILE!r}: Pin({len(data)}, {sha256_file(out / MODEL_FILE)!r})")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.judge.claims", description=__doc__.split("\n")[0])
    parser.add_argument("--squad", action="append", default=[], help="SQuAD train as JSONL (tools/judge/data.py)")
    parser.add_argument("--nli3", action="append", default=[], help="three-way NLI pairs as JSONL")
    parser.add_argument("--boolq", action="append", default=[], help="yes/no questions as JSONL")
    parser.add_argument("--nli-sources", default="", help="only the NLI rows whose source starts with one of these "
                        "(comma-separated, e.g. mnli: MultiNLI without SNLI's caption pairs); default all")
    parser.add_argument("--others", action="store_true", help="also pairs a sentence that says nothing of the text: "
                        "neither (tools/judge/claim_pairs.py, unrelated)")
    parser.add_argument("--others-share", type=float, default=0.25, help="share of texts paired so with --others")
    parser.add_argument("--out", required=True, help="folder for claims-int8.onnx and claims-manifest.json")
    parser.add_argument("--checkpoint", default="", help="folder to save to and resume from")
    add_training_options(parser, "share of held-out pairs the int8 model must read as PyTorch does (else the run fails)")
    parser.add_argument("--save-every", type=int, default=200)
    parser.add_argument("--weights-8bit", action="store_true",
                        help="export 8-bit weights with float32 activations (MatMulNBits; needs onnx-ir) instead of "
                             "dynamic int8: what keeps a larger encoder's readings (docs/JUDGE.md)")
    parser.add_argument("--bf16", action="store_true",
                        help="train under bfloat16 autocast (weights, optimiser and export stay fp32): "
                             "2.5x faster a step for all-mpnet-base-v2 on a CPU with AVX-512 BF16")
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    train(parser.parse_args(argv))


if __name__ == "__main__":
    main()
