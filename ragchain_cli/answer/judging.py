"""The answer judge on the answer path (judge/model.py: a cross-encoder ragchain trains and ships).

- gather/select: the JUDGED sentences that retrieval scores best are scored by the judge as answers
  to the question, and the context the model reads takes them in the judge's order;
- decide: the documents answer the question only when one of them reaches the `answers` bar;
- verify (default-deny): an answer is verified only when a sentence of the passages it cites (or,
  uncited, of those it read) reaches the `supports` bar for the question with that answer; a yes/no
  reply is read twice, as its side ("yes" or "no") to the question and as the claim it states ("No,
  X" claims X), and one sentence must support both (a right claim under the wrong side is not verified);
  a bare "Yes." or "No." states no claim, and the side alone is no evidence (the judge gives "yes" to
  almost any sentence), so it is never verified;
- quote: a sentence the judge says answers the question stands in for an unverified reply.
Both bars are Settings fields (`judge_answers`, `judge_supports`; docs/JUDGE.md says how they were
chosen). `verdicts` says who decides: "judge" alone, or "both", the judge with the few word checks a
sealed probe showed still help (answer/support.py; docs/JUDGE.md).
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np

from ..judge.claims import ClaimJudge, Reading
from ..judge.model import Judge, asked, passage
from ..text.polar import SIDE, claim_of
from ..text.sentences import sentences
from ..text.words import without_markers
from ..types import Hit
from .select import Sentences

JUDGED = 24  # sentences the judge reads per question: the best by retrieval's score (about 0.2 s on 2 cores)


def judged(found: Sentences, question: str, judge: Judge, subjects: Sequence[str], polar: bool = False) -> Sentences:
    """The sentences with the judge's probability that each answers the question (NaN: not read), and
    scores that order the judged ones first, best first. A yes/no question is answered by a sentence
    that says yes or says no: the larger of the two."""
    order = [int(k) for k in np.argsort(-found.scores, kind="stable")[:JUDGED]]
    probabilities = np.full(len(found.where), np.nan)
    if order:
        texts = [asked(question, "yes"), asked(question, "no")] if polar else [question]
        pairs = [(text, passage(subjects[found.where[k][0]], found.text_at(k))) for text in texts for k in order]
        probabilities[order] = np.asarray(judge.score(pairs)).reshape(len(texts), len(order)).max(axis=0)
    scores = np.where(np.isnan(probabilities), found.scores - 10.0, 10.0 * np.nan_to_num(probabilities) + 0.01 * found.scores)
    return dataclasses.replace(found, scores=scores, judged=probabilities)


def best_answering(found: Sentences) -> float:
    """The judge's highest probability that a sentence answers the question (0.0: none read)."""
    values = found.judged
    return float(np.nanmax(values)) if values is not None and np.isfinite(values).any() else 0.0


def support(judge: Judge, question: str, reply: str, polar: bool, read: Sequence[Hit], cited: set[int],
            subjects: Sequence[str], claims: ClaimJudge | None = None) -> tuple[float, str]:
    """The judge's best probability that one sentence of the cited passages (all read ones when none
    is cited) gives `reply` to `question`, and that sentence. With the claim judge, the support of a
    yes/no reply that takes a side is the claim judge's probability that one sentence entails the
    claim it states (a reply that takes no side must also give the answer judge an answer to the question)."""
    chosen = [n for n in range(1, len(read) + 1) if n in cited] or list(range(1, len(read) + 1))
    units = [(subjects[n - 1], s) for n in chosen for s in sentences(read[n - 1].chunk.text) if s != "..."]
    if not units:
        return 0.0, ""
    answer = without_markers(reply).strip()
    claim = claim_of(reply) if polar else ""
    if polar and not claim:  # a bare "Yes." states nothing to check: the side alone is no evidence
        return 0.0, ""
    side = SIDE.match(answer)
    if polar and claims is not None:  # the side is no evidence (see above): the claim judge reads the claim
        values = np.array([r.entails for r in claims.read([(claim, passage(subject, s)) for subject, s in units])])
        if not side:  # a reply that takes no side must also answer the question, as the answer judge reads it
            values = np.minimum(values, judge.score([(asked(question, answer), passage(subject, s)) for subject, s in units]))
        best = int(np.argmax(values))
        return float(values[best]), units[best][1]
    texts = [asked(question, side.group(1).lower() if polar and side else answer)]
    texts += [claim] if polar else []
    pairs = [(text, passage(subject, s)) for text in texts for subject, s in units]
    values = np.asarray(judge.score(pairs)).reshape(len(texts), len(units)).min(axis=0)
    best = int(np.argmax(values))
    return float(values[best]), units[best][1]


def reading(claims: ClaimJudge, question: str, reply: str, polar: bool, subject: str, sentence: str) -> Reading:
    """The claim judge's reading of one sentence for the reply: its claim for a yes/no reply, else
    the question with the reply as its answer."""
    text = claim_of(reply) if polar else asked(question, without_markers(reply).strip())
    return claims.read([(text, passage(subject, sentence))])[0]
