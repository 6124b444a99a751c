"""Can a claim judge tell a yes/no reply's side? Over a gold file's yes/no questions (answers ["yes"] or
["no"]), `ask` drafts with today's default; for every reply that takes a side and states a claim, each
claim judge reads the claim against the top sentences by the answer judge's order: the largest
entailment e and contradiction c. Reports how many replies take the right side, and the AUC of e - c, e
and -c for right sides against wrong ones (0.5: the judge does not tell them apart).

    python bench/polar_sides.py --index IDX --gold GOLD [--gold GOLD2 --index IDX2 ...] [--claims DIR] [--top 4]

Pairs of --index and --gold are read in order. --claims DIR adds a claim judge in DIR (claims-int8.onnx,
tokenizer.json, claims-manifest.json) beside the shipped one.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from ragchain_cli.answer.assemble import open_workflow
from ragchain_cli.answer.gather import gather, subject
from ragchain_cli.config import command_config_files, load_settings
from ragchain_cli.judge.claims import OnnxClaimJudge, load_claim_judge
from ragchain_cli.judge.model import passage
from ragchain_cli.text.polar import claim_of, said_side


def drafted(index: str, gold: str, top: int) -> list[dict]:
    """Each yes/no question's reply, side, claim and top sentences (read with their subjects)."""
    rows = [json.loads(line) for line in Path(gold).read_text(encoding="utf-8").splitlines() if line.strip()]
    settings = load_settings(flags={"index": index}, config_files=command_config_files())
    out = []
    with open_workflow(settings) as workflow:
        for row in (r for r in rows if r.get("answers") in (["yes"], ["no"])):
            found = gather(row["question"], workflow._newest, workflow.stats, workflow.encoder,
                           workflow.options.passages, workflow.judge).found
            judged = np.nan_to_num(found.judged if found.judged is not None else np.zeros(len(found.where)), nan=-1.0)
            order = [int(k) for k in np.argsort(-judged, kind="stable")[:top]]
            reply = workflow.ask(row["question"]).get("answer", "") or ""
            out.append({"gold": row["answers"][0], "side": said_side(reply), "claim": claim_of(reply),
                        "sentences": [passage(subject(found.top[found.where[k][0]].chunk), found.text_at(k)) for k in order]})
    return out


def auc(score: np.ndarray, right: np.ndarray) -> float:
    pos, neg = score[right], score[~right]
    if not len(pos) or not len(neg):
        return float("nan")
    return float(np.mean([(p > n) + 0.5 * (p == n) for p in pos for n in neg]))


def separation(judge, replies: list[dict]) -> dict:
    sided = [r for r in replies if r["side"] and r["claim"] and r["sentences"]]
    e, c = [], []
    for r in sided:
        readings = judge.read([(r["claim"], s) for s in r["sentences"]])
        e.append(max(x.entails for x in readings))
        c.append(max(x.contradicts for x in readings))
    right, e, c = np.array([r["side"] == r["gold"] for r in sided], dtype=bool), np.array(e), np.array(c)
    return {"sided": len(sided), "right_side": int(right.sum()), "auc_e_minus_c": round(auc(e - c, right), 3),
            "auc_e": round(auc(e, right), 3), "auc_minus_c": round(auc(-c, right), 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", action="append", required=True)
    parser.add_argument("--gold", action="append", required=True)
    parser.add_argument("--claims", default="", help="a claim judge's folder, read beside the shipped one")
    parser.add_argument("--top", type=int, default=4, help="sentences read a reply, by the answer judge's order")
    args = parser.parse_args()
    replies = [r for index, gold in zip(args.index, args.gold) for r in drafted(index, gold, args.top)]
    judges = {"shipped": load_claim_judge()}
    if args.claims:
        judges[args.claims] = OnnxClaimJudge(Path(args.claims), pins=None)
    report = {"questions": len(replies), "no_side": sum(r["side"] is None for r in replies),
              "judges": {name: separation(judge, replies) for name, judge in judges.items()}}
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
