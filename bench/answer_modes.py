"""Who decides "answerable" and "verified": the trained answer judge alone, or both it and the word
checks that remain (answer/verify.py), side by side in one process on one gold file (issue 44's risk
and coverage). The word rules alone ("rules", deleted) are measured by running this script from a
checkout before their deletion (`git worktree add OLD 7ff817f`, then `PYTHONPATH=OLD python
OLD/bench/answer_modes.py --modes rules ...`).

    python bench/answer_modes.py --index IDX --gold gold.jsonl [--modes judge,both] [--out DIR]

A mode is a `verdicts` value, optionally with ask settings after colons: `both:claim_judge=false`
is the default without the claim judge, `both:judge_answers=0.1` the default with a lower bar,
`both:judge=DIR` the default with the answer judge in DIR (judge-int8.onnx, tokenizer.json and the
manifest.json that pins it: other weights beside the shipped ones, in one run), `both:claims=DIR` with
the claim judge in DIR (claims-int8.onnx, tokenizer.json, claims-manifest.json).

The gold file is `eval --qa`'s JSONL ({"question", "answers": [...], "answerable"}: no answers means
the documents do not answer it). Every mode asks every question through the same workflow and one
loaded model; the model's replies are cached on the exact prompt, so a mode that reads the same
context gets the same reply (generation is greedy). Per mode it reports, over the answerable
questions: the share answered, verified, right (`eval --qa`'s key-words measure) and verified but
wrong; over the unanswerable ones: the share refused and the share shown verified (wrong by
definition); and the share of verified answers that are right (risk), with the median seconds. When
the gold rows carry a "kind" (the probes' fact, paraphrase, yesno, near-miss), the same per kind.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from ragchain_cli.answer.assemble import open_workflow
from ragchain_cli.answer.workflow import AskOptions
from ragchain_cli.config import command_config_files, load_settings
from ragchain_cli.evaluation.qa import is_correct, strip_citations
from ragchain_cli.judge.claims import load_claim_judge
from ragchain_cli.judge.model import load_judge
from ragchain_cli.llm import LocalLLM, resolve_model


class CachedChat:
    """A LocalLLM whose replies are cached on the prompt (greedy decoding: the same prompt, the same reply)."""

    def __init__(self, model) -> None:
        self.model, self.cache, self.hits = model, {}, 0

    @property
    def n_ctx(self) -> int:
        return self.model.n_ctx

    def count_tokens(self, text: str) -> int:
        return self.model.count_tokens(text)

    def chat(self, messages, max_tokens, temperature=0.0, stop=None, on_token=None):
        key = json.dumps([messages, max_tokens, temperature, stop])
        if key in self.cache:
            self.hits += 1
        else:
            self.cache[key] = self.model.chat(messages, max_tokens, temperature=temperature, stop=stop)
        return self.cache[key]


def row_outcome(gold: dict, payload: dict) -> dict:
    answerable = bool(gold.get("answers")) and gold.get("answerable", True) is not False
    answered, verified = bool(payload.get("answered")), payload.get("supported") is True
    right = answerable and answered and bool(is_correct(strip_citations(payload.get("answer", "")), gold["answers"]))
    return {"answerable": answerable, "answered": answered, "verified": verified, "right": right,
            "seconds": payload.get("timings", {}).get("total", 0.0)}


def summary(outcomes: list[dict]) -> dict:
    yes = [o for o in outcomes if o["answerable"]]
    no = [o for o in outcomes if not o["answerable"]]
    verified = [o for o in outcomes if o["verified"]]

    def share(rows, key):
        return round(sum(o[key] for o in rows) / len(rows), 3) if rows else None

    return {"answerable": len(yes), "unanswerable": len(no), "answered": share(yes, "answered"),
            "verified": share(yes, "verified"), "right": share(yes, "right"),
            "right_and_verified": sum(o["right"] and o["verified"] for o in yes),
            "wrong_but_verified": sum(o["verified"] and not o["right"] for o in outcomes),
            "refused_unanswerable": round(sum(not o["answered"] for o in no) / len(no), 3) if no else None,
            "refused_answerable": round(sum(not o["answered"] for o in yes) / len(yes), 3) if yes else None,
            "verified_right_share": round(sum(o["right"] for o in verified) / len(verified), 3) if verified else None,
            "median_seconds": round(statistics.median(o["seconds"] for o in outcomes), 2) if outcomes else None}


def sweep(gold: list[dict], payloads: list[dict]) -> list[dict]:
    """From one judge-mode run with abstention off: for bars on the judge's answering and support
    probabilities, the share of answerable questions answered, right and verified, of unanswerable
    ones refused, and of verified answers that are right."""
    rows = []
    for g, p in zip(gold, payloads):
        o, evidence = row_outcome(g, p), p.get("evidence") or {}
        rows.append({**o, "judge": evidence.get("judge") or 0.0, "support": evidence.get("support") or 0.0})
    table = []
    for answers in (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7):
        for supports in (0.3, 0.5, 0.7, 0.8, 0.9):
            kept = [r for r in rows if r["judge"] >= answers]
            yes = [r for r in rows if r["answerable"]]
            no = [r for r in rows if not r["answerable"]]
            verified = [r for r in kept if r["answered"] and r["support"] >= supports]
            table.append({"answers": answers, "supports": supports,
                          "answered": round(sum(r in kept for r in yes) / max(1, len(yes)), 3),
                          "refused_unanswerable": round(sum(r not in kept for r in no) / max(1, len(no)), 3),
                          "right_and_verified": sum(r["right"] for r in verified),
                          "wrong_but_verified": sum(not r["right"] for r in verified),
                          "right": sum(r["right"] for r in kept)})
    return table


def mode_fields(mode: str) -> dict:
    """`both:claim_judge=false:judge_answers=0.1` -> the AskOptions fields it sets."""
    verdicts, *pairs = mode.split(":")
    fields = {"verdicts": verdicts}
    for pair in pairs:
        name, value = pair.split("=", 1)
        if name in JUDGES:
            continue
        default = getattr(AskOptions(), name)
        fields[name] = value.lower() in ("1", "true", "yes") if isinstance(default, bool) else type(default)(value)
    return fields


JUDGES = ("judge", "claims")  # a mode's judge=DIR and claims=DIR: weights other than the shipped ones


def mode_judge(mode: str, which: str) -> str:
    """The folder of the judge a mode names (`judge=DIR`, `claims=DIR`), or "" for the shipped one."""
    return next((pair.split("=", 1)[1] for pair in mode.split(":")[1:] if pair.startswith(which + "=")), "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", required=True)
    parser.add_argument("--gold", required=True)
    parser.add_argument("--modes", default="judge,both")
    parser.add_argument("--out", default="")
    parser.add_argument("--sweep", action="store_true",
                        help="judge mode with abstention off, then the outcomes for a grid of the judge's bars")
    args = parser.parse_args()
    gold = [json.loads(line) for line in Path(args.gold).read_text(encoding="utf-8").splitlines() if line.strip()]
    settings = load_settings(flags={"index": args.index}, config_files=command_config_files())  # ./ragchain.toml
    model = CachedChat(LocalLLM(resolve_model(settings.llm or None), n_ctx=settings.n_ctx))
    kinds = sorted({g["kind"] for g in gold if g.get("kind")})  # a probe's kinds of question (fact, paraphrase, ...)
    report = {}
    for mode in (["judge"] if args.sweep else args.modes.split(",")):
        options = AskOptions(**{**settings.ask_fields(), "abstain": not args.sweep, **mode_fields(mode)})
        with open_workflow(settings, options, model=model) as workflow:
            workflow.judge = load_judge(mode_judge(mode, "judge"))
            if workflow.claims is not None:
                workflow.claims = load_claim_judge(mode_judge(mode, "claims"))
            payloads = [workflow.ask(g["question"]) for g in gold]
        outcomes = [row_outcome(g, p) for g, p in zip(gold, payloads)]
        report[mode] = summary(outcomes)
        if kinds:
            report[mode]["by_kind"] = {k: summary([o for g, o in zip(gold, outcomes) if g.get("kind") == k]) for k in kinds}
        print(f"{mode}: {json.dumps(report[mode])}", file=sys.stderr, flush=True)
        if args.out:
            Path(args.out).mkdir(parents=True, exist_ok=True)
            with open(Path(args.out) / (mode.replace("/", "_") + ".jsonl"), "w", encoding="utf-8") as handle:
                handle.writelines(json.dumps(p) + "\n" for p in payloads)
        if args.sweep:
            report["sweep"] = sweep(gold, payloads)
    print(json.dumps({"gold": args.gold, "index": args.index, "modes": report}, indent=1))


if __name__ == "__main__":
    main()
