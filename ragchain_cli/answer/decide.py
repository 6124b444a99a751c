"""Stage 2, decide: do the documents answer the question, is it a yes/no question, which passages.

Decided from the gathered signals before any model is loaded, so a refusal costs no model load.
The signals (gather.py) are combined by a logistic model, z = BIAS + sum(weight * signal); the
question counts as answerable when z >= THRESHOLD. The weights were fit on half A of the
qa-cmu-dev split only (bench/qa_abstain.py; bench/RESULTS.md has its command and both halves).
Before the score, two refusals that read the question against the passages: a name or number of
the question that no top passage holds (`unmentioned`), and a negated question whose negated word
the passages hold but never deny (`text/negations.never_said`: "What is not used ...?" over
passages that only say what is used answer a different question).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from ..config import DEFAULTS
from ..text.claims import is_polar
from ..text.negations import never_said
from ..text.units import met_by_measure
from ..text.words import calendar_names, stem, stems_of
from .gather import Gathered, Signals, subject
from .judging import best_answering
from .support import key_terms

WEIGHTS = {"coverage": 0.300, "local": 1.912, "dense": 2.880, "bm25": 0.971, "sentence": 3.773,
           "sentence_coverage": 3.395}
BIAS = -8.775
THRESHOLD = -3.5  # z at a probability of 0.03: the evidence only has to rule out passages on another subject
# (chosen on half A of squad2-dev with bench/squad2_bench.py; bench/RESULTS.md has the curve and half B)
NOT_SAID = "The documents do not say."
NOT_SAID_NO_MATCH = "The documents do not say: no passage matches the question."


@dataclass
class Decision:
    question: str
    gathered: Gathered
    polar: bool
    answerable: bool
    refusal: str  # what is said instead of an answer ("" when answerable)
    unmentioned: list[str] = field(default_factory=list)  # the question's names and numbers no passage holds
    unsaid: list[str] = field(default_factory=list)  # the question's negated words ("not used") no passage denies
    verdicts: str = "rules"  # who decided (judge, rules or both)
    bar: float = DEFAULTS.judge_answers  # the judge's bar, when it decided

    def evidence(self) -> dict:
        judged = {"judge": round(best_answering(self.gathered.found), 4), "judge_bar": self.bar} \
            if self.verdicts != "rules" else {}
        return {**evidence_payload(self.gathered.signals), **judged, "verdicts": self.verdicts,
                "unmentioned": self.unmentioned, "unsaid": self.unsaid}


def decide(gathered: Gathered, abstain: bool = True, verdicts: str = DEFAULTS.verdicts,
           bar: float = DEFAULTS.judge_answers) -> Decision:
    """verdicts: who refuses, "rules" (the checks below and the signals' score), "judge" (the answer
    judge's best sentence must reach `bar`: answer/judging.py) or "both" (either refuses)."""
    decision = _decide(gathered, abstain, verdicts, bar)
    decision.verdicts, decision.bar = verdicts, bar
    return decision


def _decide(gathered: Gathered, abstain: bool, verdicts: str, bar: float) -> Decision:
    question = gathered.question
    polar = is_polar(question)
    if not gathered.found.where:
        return Decision(question, gathered, polar, False, NOT_SAID_NO_MATCH)
    if verdicts == "judge":
        answerable = not abstain or best_answering(gathered.found) >= bar
        return Decision(question, gathered, polar, answerable, "" if answerable else NOT_SAID)
    if abstain and verdicts == "both" and best_answering(gathered.found) < bar:
        return Decision(question, gathered, polar, False, NOT_SAID)
    missing = [] if polar else unmentioned(question, gathered)
    unsaid = [] if polar else never_said(question, [s for units in gathered.found.split for s in units])
    if not abstain:
        return Decision(question, gathered, polar, True, "", missing, unsaid)
    if missing:
        return Decision(question, gathered, polar, False, f"{NOT_SAID[:-1]}: no passage mentions {', '.join(missing)}.",
                        missing, unsaid)
    if unsaid:  # a near miss: "What is not used ...?" over passages that only say what is used
        return Decision(question, gathered, polar, False,
                        f"{NOT_SAID[:-1]}: no passage says " + ", ".join(f'"{u}"' for u in unsaid) + ".", missing, unsaid)
    answerable = score(gathered.signals) >= THRESHOLD
    return Decision(question, gathered, polar, answerable, "" if answerable else NOT_SAID, missing, unsaid)


def unmentioned(question: str, gathered: Gathered) -> list[str]:
    """The question's names and numbers that no top passage holds (with its subject: gather.subject):
    a question about "Kilbride school" is not answered by passages on another school, nor one about 2019 by the 2021 figures. Rare
    lowercase words are not required (a question may paraphrase: "login" for "sign in"). A unit or a
    measured number is held in any unit ("Fahrenheit", "350 °F": a passage's "180 °C", text/units.py),
    a day or month by a range that holds it ("Wednesdays": "Mon-Fri").
    A yes/no question is exempt: "Was it built by Telford?" over passages that name Brunel is answered "no"."""
    keys = [k for k in key_terms(question, "", None) if k[0].isdigit() or k[0].isupper()]
    texts = [f"{subject(h.chunk)}\n{h.chunk.text}" for h in gathered.found.top]
    held = set().union(*(stems_of(t) | calendar_names(t, ranges=True) for t in texts)) if texts else set()
    return [k for k in keys if stem(k) not in held and not met_by_measure(k, question, texts)]


def score(signals: Signals) -> float:
    return BIAS + sum(w * getattr(signals, name) for name, w in WEIGHTS.items())


def probability(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def evidence_payload(signals: Signals) -> dict:
    z = score(signals)
    values = {k: round(v, 4) for k, v in asdict(signals).items()}
    return {**values, "score": round(z, 4), "probability": round(probability(z), 4),
            "answers_from": round(probability(THRESHOLD), 4)}
