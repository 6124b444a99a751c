"""Stage 2, decide: do the documents answer the question, is it a yes/no question, which passages.

Decided before any model is loaded, so a refusal costs no model load. The answer judge
(answer/judging.py) must find a sentence that answers the question with a probability of at least
`judge_answers`. With `verdicts = "both"` (the default) the retrieval signals (gather.py) must also
rule out passages on another subject: they are combined by a logistic model, z = BIAS + sum(weight *
signal), and the question counts as answerable when z >= THRESHOLD, or, for a yes/no question, when
one of their sentences is NEAR it in the query encoder's cosine (`near_yes_no`).

WEIGHTS and BIAS were fit in d2ff0b1 by `python bench/qa_abstain.py collect-retrieval --index INDEX
--out A-retr.jsonl` then `python bench/qa_abstain.py fit A-retr.jsonl` (a class-balanced logistic
regression on half A of qa-cmu-dev, bench/qa/split.json: 219 answerable questions, the same 220 with
their article's chunks removed, 30 written unanswerable ones), and are not re-derivable today: the
script was removed in 29a3e57, it called the answer path's API of then (ragchain_cli.answering,
generate/), and the signals' code has changed since, so a port run now would fit other numbers.
docs/history/RESULTS-history.md, "Abstention from sentence-level evidence (issue 13, session 5)",
has the commands, the data and the rates on both halves.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from ..config import DEFAULTS
from ..text.polar import is_polar
from .gather import Gathered, Signals
from .judging import best_answering

WEIGHTS = {"coverage": 0.300, "local": 1.912, "dense": 2.880, "bm25": 0.971, "sentence": 3.773,
           "sentence_coverage": 3.395}
BIAS = -8.775
THRESHOLD = -3.5  # z at a probability of 0.03: the evidence only has to rule out passages on another subject
# (chosen in e1a450b on half A of squad2-dev: bench/squad2_halves.py writes the halves, one `ask --no-abstain`
# run a half, evaluation/qa_tradeoff.tradeoff replays the bars; docs/history/RESULTS-history.md, "The answer
# path in stages, the case table and the abstention bar", has the commands, the curve and half B)
# A refused question is still near its passages when one of their sentences is this close to it in the
# query encoder's cosine (gather.Signals.sentence): the workflow then quotes the closest sentence instead
# (quote.closest). Chosen on probe 10 (a tuning set) and four questions on another subject: its reworded
# questions' best sentences lie at 0.32-0.65, the other subject's at 0.07-0.21 (bench/RESULTS.md, "Closest sentence").
# A yes/no question this near is drafted instead (`near_yes_no`; bench/RESULTS.md, "Yes/no questions").
NEAR = 0.3
NOT_SAID = "The documents do not say."
NOT_SAID_NO_MATCH = "The documents do not say: no passage matches the question."


@dataclass
class Decision:
    question: str
    gathered: Gathered
    polar: bool
    answerable: bool
    refusal: str  # what is said instead of an answer ("" when answerable)
    verdicts: str = DEFAULTS.verdicts  # who decided: the judge alone, or both (the judge and the signals' score)
    bar: float = DEFAULTS.judge_answers  # the judge's bar
    near: bool = False  # refused, but a sentence of the passages is near the question in meaning (NEAR)

    def evidence(self) -> dict:
        return {**evidence_payload(self.gathered.signals), "judge": round(best_answering(self.gathered.found), 4),
                "judge_bar": self.bar, "verdicts": self.verdicts}


def decide(gathered: Gathered, abstain: bool = True, verdicts: str = DEFAULTS.verdicts,
           bar: float = DEFAULTS.judge_answers, near_yes_no: bool = DEFAULTS.near_yes_no) -> Decision:
    """Answerable when the judge's best sentence reaches `bar` (and, with verdicts "both", the signals'
    score reaches THRESHOLD, or, for a yes/no question with `near_yes_no`, a sentence is NEAR it); always,
    when `abstain` is off and a passage was found."""
    question = gathered.question
    polar = is_polar(question)
    if not gathered.found.where:
        return Decision(question, gathered, polar, False, NOT_SAID_NO_MATCH, verdicts, bar)
    close = gathered.signals.sentence >= NEAR
    evidence = verdicts == "judge" or score(gathered.signals) >= THRESHOLD or (polar and near_yes_no and close)
    answerable = not abstain or (best_answering(gathered.found) >= bar and evidence)
    near = not answerable and not polar and close  # a yes/no question's sentence takes no side
    return Decision(question, gathered, polar, answerable, "" if answerable else NOT_SAID, verdicts, bar, near)


def score(signals: Signals) -> float:
    return BIAS + sum(w * getattr(signals, name) for name, w in WEIGHTS.items())


def probability(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def evidence_payload(signals: Signals) -> dict:
    z = score(signals)
    values = {k: round(v, 4) for k, v in asdict(signals).items()}
    return {**values, "score": round(z, 4), "probability": round(probability(z), 4),
            "answers_from": round(probability(THRESHOLD), 4)}
