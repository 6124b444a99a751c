"""The abstention trade-off: from one `ask --json --no-abstain` run, what each threshold on the
evidence score would give.

`ask` answers when the answer judge finds a sentence that answers the question (the payload's
`evidence.judge` reaches `evidence.judge_bar`) and its evidence score (`evidence.score`, a logistic
model's z) reaches its threshold. Run once with --no-abstain, every question gets the model's answer
and the same evidence, so any threshold t on the score can be replayed without running the model
again: a question counts as answered at t when the prediction answered (the model may still have said
it found nothing), the judge's bar is met (when the payload reports one) and its score is at least t.
A prediction without an evidence score (a blank question) is never answered.

Per threshold, with correctness from qa_score.score_question (qa.py's plain measures):
- correct_answerable: answerable questions answered at t and correct, over the answerable ones;
- abstained_unanswerable: unanswerable questions not answered at t, over the unanswerable ones;
- abstained_answerable: answerable questions not answered at t, over the answerable ones;
- overall_correct: (correct answerable + abstained unanswerable) over all questions.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from .qa_io import GoldQuestion
from .qa_score import score_question


def evidence_score(prediction: Mapping) -> float | None:
    """The payload's evidence.score, or None when it has none."""
    score = (prediction.get("evidence") or {}).get("score")
    return float(score) if isinstance(score, (int, float)) else None


def tradeoff(gold: Sequence[GoldQuestion], predictions: Sequence[Mapping], thresholds: Sequence[float]) -> list[dict[str, float]]:
    """One row per threshold (in the order given) of the four figures above; gold and predictions
    are paired in order (qa_io.pair)."""
    rows = [(g, _correct(g, p), _score(p)) for g, p in zip(gold, predictions)]
    answerable = sum(1 for g, _, _ in rows if g.answerable)
    unanswerable = len(rows) - answerable
    table = []
    for t in thresholds:
        said = [(g, ok, score is not None and score >= t) for g, ok, score in rows]
        right = sum(1 for g, ok, answered in said if g.answerable and answered and ok)
        silent_ans = sum(1 for g, _, answered in said if g.answerable and not answered)
        silent_unans = sum(1 for g, _, answered in said if not g.answerable and not answered)
        table.append({"threshold": t, "correct_answerable": _share(right, answerable),
                      "abstained_unanswerable": _share(silent_unans, unanswerable),
                      "abstained_answerable": _share(silent_ans, answerable),
                      "overall_correct": _share(right + silent_unans, len(rows))})
    return table


def _score(prediction: Mapping) -> float | None:
    """The score a threshold is compared with; None: not answered at any threshold."""
    evidence = prediction.get("evidence") or {}
    judged, bar = evidence.get("judge"), evidence.get("judge_bar")
    if not prediction.get("answered") or (isinstance(judged, (int, float)) and isinstance(bar, (int, float)) and judged < bar):
        return None
    return evidence_score(prediction)


def _correct(gold: GoldQuestion, prediction: Mapping) -> bool:
    return gold.answerable and bool(score_question(gold, {**prediction, "answered": True})["correct"])


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def score_grid(predictions: Sequence[Mapping], steps: int = 10, marks: Sequence[float] = ()) -> list[float]:
    """Thresholds to sweep: -inf (answer everything), the 1/steps ... (steps-1)/steps quantiles of the
    scores seen (lowest value at or above each), the given marks (such as ask's own threshold), and
    +inf (answer nothing); sorted."""
    scores = sorted(s for s in (evidence_score(p) for p in predictions) if s is not None)
    grid = {-math.inf, math.inf, *marks}
    for i in range(1, steps):
        if scores:
            grid.add(scores[min(len(scores) - 1, math.ceil(i * len(scores) / steps))])
    return sorted(grid)
