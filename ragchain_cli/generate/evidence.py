"""Do the documents answer the question? Decided from evidence, not from one score.

Seven signals, each cheap:
- coverage: the IDF-weighted share of the question's content words found in the top passages
  (a subject the index never mentions weighs most, so "Who discovered penicillin?" over articles
  that never say "penicillin" covers little);
- local: the same share in the best single top passage. An answer needs the question's words
  together: "How long is a giraffe's tongue?" over a corpus with giraffes in one article and long
  tongues in another covers everything across passages, little within one;
- dense: the best dense cosine among the hits (0 without a dense retriever);
- sentence, sentence_coverage: the best cosine between the question and one sentence of the top
  passages (the query encoder's, computed anyway to choose the context; 0 without one), and the
  largest share of the question's words in one sentence: an answer usually sits in one sentence;
- bm25: the best BM25 score divided by the question's total IDF (so long and short questions
  compare; 0 without BM25);
- judge: the model's own judgement, log p("yes") - log p("no") for its first reply token after the
  packed passages, the question and "Do the passages answer the question?" (one forward step
  that shares the prompt's KV cache with the answer; see LocalLLM.choice_logprobs).

They are combined by a logistic model, z = bias + sum(weight * signal); the question counts as
answerable when z >= 0. The few weights were fit on half A of the QA split only (bench/qa_abstain.py;
its command and the half-B results are in bench/RESULTS.md).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from ..types import Hit
from .select import Sentences
from .terms import TermStats, is_content, stem, stems_of, tokens

# Fit on half A only: `bench/qa_abstain.py collect-retrieval` (each answerable question whose
# article is among the top passages, the same question with that article's chunks removed from the
# hits, and the 30 written unanswerable ones), then `fit` (class-balanced logistic; the bias set so
# that A abstains on 8% of its answerable questions). bench/RESULTS.md has both halves.
# The judge is computed and reported but weighs 0: with qwen over half A's 90 tuning questions
# (`bench/qa_abstain.py collect`), five-fold cross-validated AUC was 0.902 with it and 0.900
# without (0.69 alone), so it does not earn a weight (bench/RESULTS.md).
WEIGHTS = {"coverage": 0.300, "local": 1.912, "dense": 2.880, "bm25": 0.971, "sentence": 3.773,
           "sentence_coverage": 3.395, "judge": 0.0}
JUDGE_WEIGHTED = WEIGHTS["judge"] != 0.0
BIAS = -8.775


@dataclass
class Evidence:
    coverage: float
    local: float
    dense: float
    bm25: float
    sentence: float
    sentence_coverage: float
    judge: float | None = None  # None: not asked (it weighs 0, so ask skips the model's forward step)

    def score(self) -> float:
        return BIAS + sum(w * (getattr(self, name) or 0.0) for name, w in WEIGHTS.items())

    def answerable(self) -> bool:
        return self.score() >= 0.0

    def payload(self) -> dict:
        values = {k: None if v is None else round(v, 4) for k, v in asdict(self).items()}
        return {**values, "score": round(self.score(), 4),
                "probability": round(1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, self.score())))), 4)}


def question_weights(question: str, stats: TermStats | None) -> dict[str, float]:
    """The question's content stems with their IDF (1.0 each without index statistics)."""
    words = {}
    for token in tokens(question):
        if is_content(token):
            words.setdefault(stem(token), token.lower())
    if stats is None:
        return {s: 1.0 for s in words}
    idf = stats.idf(list(words.values()))
    return {s: idf[w] for s, w in words.items()}


def coverage(weights: dict[str, float], passages: list[str]) -> float:
    """IDF-weighted share of the question's stems that some passage contains (1.0 for no content words)."""
    return _share(weights, set().union(*(stems_of(p) for p in passages)) if passages else set())


def _share(weights: dict[str, float], present: set[str]) -> float:
    total = sum(weights.values())
    if total <= 0:
        return 1.0
    return sum(w for s, w in weights.items() if s in present) / total


def retrieval_evidence(hits: list[Hit], weights: dict[str, float], passages: int, found: Sentences) -> Evidence:
    """The signals that need no model (judge left unasked); `found`: the top passages' sentences, scored."""
    held = [stems_of(h.chunk.text) for h in hits[:passages] if h.chunk is not None]
    dense = max((h.explain["dense"][1] for h in hits if "dense" in h.explain), default=0.0)
    bm25 = max((h.explain["bm25"][1] for h in hits if "bm25" in h.explain), default=0.0)
    total_idf = sum(weights.values()) or 1.0
    local = max((_share(weights, h) for h in held), default=0.0)  # the best passage alone
    return Evidence(coverage=_share(weights, set().union(*held)), local=local, dense=float(dense),
                    bm25=float(bm25) / total_idf, sentence=found.best_cosine, sentence_coverage=found.best_share)
