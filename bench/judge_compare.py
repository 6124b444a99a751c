"""Two or more judge weights on the same held-out pairs: the SQuAD paragraphs a training run keeps out
(by a hash of the paragraph) and its held-out claims, rebuilt from the training data with the training
run's own sampling (tools/judge/train.py, the same seed and --examples), so old and new weights are scored
side by side on one set. Prints, per weights and form of text, the AUC, and for the question-with-answer
form the precision and recall at support bars (the rule for `judge_supports`: the lowest bar at which
80% of what it verifies is right).

    python bench/judge_compare.py --data DATA WEIGHTS_DIR [WEIGHTS_DIR ...]

DATA holds the JSONL files `python -m tools.judge.data` writes; each WEIGHTS_DIR a manifest,
model file and tokenizer (ragchain_cli/judge/weights, or an older one: `git show REV:PATH`).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout's root: tools/ is not installed

from ragchain_cli.judge.model import OnnxJudge  # noqa: E402
from tools.judge.train import figures, gather  # noqa: E402

BARS = (0.5, 0.6, 0.7, 0.8)


def held_out_pairs(data: Path, examples: int, seed: int) -> list:
    args = argparse.Namespace(squad=[str(data / "squad2_train.jsonl"), str(data / "squad_extra.jsonl")],
                              nli=[str(data / "nli.jsonl")], boolq=[str(data / "boolq.jsonl")],
                              qnli=[str(data / "qnli.jsonl"), str(data / "squad2cr.jsonl")],
                              reworded=[], examples=examples, seed=seed)
    _, evaluation, _ = gather(args, random.Random(seed))
    return evaluation


def scored(folder: Path, pairs: list) -> dict:
    judge = OnnxJudge(folder)
    pairs = [p for kind in ("question", "answer", "claim") for p in pairs if p.kind == kind]
    # one form of text a call: int8 scores shift a little with what a call pads to
    scores = np.concatenate([judge.score([(p.text, p.sentence) for p in pairs if p.kind == kind])
                             for kind in ("question", "answer", "claim")])
    found = figures(pairs, scores)  # AUC per form of text, as the training run reports it
    answers = np.array([p.kind == "answer" for p in pairs], dtype=bool)
    labels, chosen = np.array([p.label for p in pairs])[answers], scores[answers]
    found["answer"]["bars"] = {str(bar): {"precision": round(float(labels[chosen >= bar].mean()), 3),
                                          "recall": round(float((chosen[labels == 1] >= bar).mean()), 3)}
                               for bar in BARS if (chosen >= bar).any()}
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True, type=Path)
    parser.add_argument("--examples", type=int, default=90000, help="as the training run was given")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("weights", nargs="+", type=Path)
    args = parser.parse_args()
    pairs = held_out_pairs(args.data, args.examples, args.seed)
    print(json.dumps({str(folder): scored(folder, pairs) for folder in args.weights}, indent=1))


if __name__ == "__main__":
    main()
