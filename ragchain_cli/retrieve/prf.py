"""Pseudo-relevance feedback without an LLM: RM3 term expansion for BM25, Rocchio for dense.

bm25-prf (RM3, as in Anserini/Pyserini): the top `prf_docs` BM25 chunks are the feedback set.
Each feedback chunk d gets the weight s_d / sum(s) of its BM25 score, and each of its words
(lower-cased, stopwords, single letters and bare numbers dropped) the probability tf(w, d) / |d|
over the kept words. P(w|R) = sum_d weight_d * P(w|d); the top `prf_terms` words, renormalised
to sum 1, are mixed with the query model (each query word tf / |q|) as
    prf_weight * P(w|q) + (1 - prf_weight) * P(w|R)
and the mixture runs as one boosted Tantivy query (`word^weight ...`, analysed by the index's
own stemmer, so `cell` and `cells` add up). prf_weight = 1 gives plain BM25's ranking.

dense-prf (Rocchio): q' = alpha * q + beta * mean(top `prf_docs` vectors), re-normalised. The
feedback vectors are read from LanceDB by chunk ID (exactly what was indexed, no re-embedding).

Neither is on by default: on the 809 SciFact train queries (bench/query_ext_bench.py, removed in
29a3e57; docs/history/RESULTS-history.md has the figures, "Query-side extensions") RM3 cost
0.019-0.042 nDCG@10 against BM25 and Rocchio 0.008-0.015 against dense, and hybrid with prf did
no better than hybrid without it.
"""

from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np

from ..errors import UsageError
from ..stores.index import Index
from ..stores.lexical import plain_terms
from ..types import Hit
from .dense import DenseRetriever
from ..text.words import STOPWORDS


def _check(name: str, value: float, low: float, high: float | None = None) -> None:
    if value < low or (high is not None and value > high):
        upper = f" and {high}" if high is not None else ""
        raise UsageError(f"{name} must be between {low}{upper}, got {value!r}")


def feedback_words(text: str) -> list[str]:
    """The words of a feedback text that may become expansion terms."""
    return [w for w in plain_terms(text).split() if len(w) > 1 and not w.isdigit() and w not in STOPWORDS]


def relevance_model(feedback: list[tuple[str, float]], terms: int) -> dict[str, float]:
    """RM1 over (text, score) pairs: the top `terms` words of P(w|R), renormalised to sum 1."""
    scores = [max(float(score), 0.0) for _, score in feedback]
    total = sum(scores)
    doc_weights = [s / total for s in scores] if total > 0 else [1.0 / len(feedback)] * len(feedback)
    model: dict[str, float] = defaultdict(float)
    for (text, _), doc_weight in zip(feedback, doc_weights):
        counts = Counter(feedback_words(text))
        length = sum(counts.values())
        for word, tf in counts.items():
            model[word] += doc_weight * tf / length
    top = sorted(model.items(), key=lambda item: (-item[1], item[0]))[:terms]
    mass = sum(weight for _, weight in top)
    return {word: weight / mass for word, weight in top} if mass > 0 else {}


def rm3_weights(query: str, feedback: list[tuple[str, float]], terms: int = 10,
                original_weight: float = 0.5) -> dict[str, float]:
    """Query word -> weight: original_weight * P(w|q) + (1 - original_weight) * P(w|R)."""
    query_words = plain_terms(query).split()
    if not query_words:
        return {}
    mixed: dict[str, float] = defaultdict(float)
    for word, tf in Counter(query_words).items():
        mixed[word] += original_weight * tf / len(query_words)
    if feedback and original_weight < 1:
        for word, weight in relevance_model(feedback, terms).items():
            mixed[word] += (1 - original_weight) * weight
    return {word: weight for word, weight in mixed.items() if weight > 0}


class BM25PRFRetriever:
    """BM25, then RM3 expansion from its own top chunks, then BM25 again with the weighted terms."""

    name = "bm25-prf"

    def __init__(self, index: Index, prf_docs: int = 10, prf_terms: int = 10, prf_weight: float = 0.5,
                 **_options) -> None:
        _check("prf_docs", prf_docs, 1)
        _check("prf_terms", prf_terms, 0)
        _check("prf_weight", prf_weight, 0.0, 1.0)
        self.lexical = index.lexical
        self.docstore = index.docstore
        self.docs, self.terms, self.original_weight = int(prf_docs), int(prf_terms), float(prf_weight)

    def expansion(self, query: str) -> dict[str, float]:
        """The weighted query this retriever runs for `query` (empty when BM25 finds nothing)."""
        first = self.lexical.search(query, self.docs)
        chunks = self.docstore.chunks([cid for cid, _ in first])
        feedback = [(chunks[cid].index_text(), score) for cid, score in first if cid in chunks]
        if not feedback:
            return {}
        return rm3_weights(query, feedback, self.terms, self.original_weight)

    def search(self, query: str, k: int) -> list[Hit]:
        weights = self.expansion(query)
        return [Hit(chunk_id=cid, score=score) for cid, score in self.lexical.search_weighted(weights, k)]


def rocchio(query: np.ndarray, feedback: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    """alpha * q + beta * mean(feedback rows), L2-normalised; q itself when there is no feedback."""
    if len(feedback) == 0:
        return np.asarray(query, dtype=np.float32)
    moved = alpha * np.asarray(query, dtype=np.float64) + beta * np.asarray(feedback, dtype=np.float64).mean(axis=0)
    norm = np.linalg.norm(moved)
    return (moved / norm if norm > 0 else np.asarray(query, dtype=np.float64)).astype(np.float32)


class DensePRFRetriever(DenseRetriever):
    """Dense search, Rocchio-moved toward its own top chunks' vectors, then dense search again."""

    name = "dense-prf"

    def __init__(self, index: Index, prf_docs: int = 3, rocchio_alpha: float = 1.0, rocchio_beta: float = 0.5,
                 **_options) -> None:
        _check("prf_docs", prf_docs, 1)
        _check("rocchio_alpha", rocchio_alpha, 0.0)
        _check("rocchio_beta", rocchio_beta, 0.0)
        super().__init__(index)
        self.docs, self.alpha, self.beta = int(prf_docs), float(rocchio_alpha), float(rocchio_beta)

    def feedback_vectors(self, vectors: np.ndarray) -> np.ndarray:
        """Each query vector moved by Rocchio toward the vectors of its top `prf_docs` chunks."""
        first = super().search_vectors(vectors, self.docs)
        stored = self.vectors.vectors(sorted({h.chunk_id for hits in first for h in hits}))
        moved = []
        for query, hits in zip(vectors, first):
            rows = [stored[h.chunk_id] for h in hits if h.chunk_id in stored]
            feedback = np.stack(rows) if rows else np.zeros((0, len(query)), np.float32)
            moved.append(rocchio(query, feedback, self.alpha, self.beta))
        return np.stack(moved) if moved else np.zeros((0, vectors.shape[1]), np.float32)

    def search_vectors(self, vectors: np.ndarray, k: int) -> list[list[Hit]]:
        return super().search_vectors(self.feedback_vectors(vectors), k)
