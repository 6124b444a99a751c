"""bm25: lexical re-scoring of the candidate set, with statistics taken from the candidates alone.

Useful after dense-only retrieval: the passages a vector search found are re-ordered by how well
their words match the query's. Terms go through the same analysis as the Tantivy index (simple
tokenizer, long tokens dropped, lower case, English Snowball stemmer). IDF is Lucene's
ln(1 + (N - n + 0.5) / (n + 0.5)) over the N candidates, so a word every candidate shares counts
for almost nothing. No model, no torch.
"""

from __future__ import annotations

import math
from collections import Counter

from ..errors import UsageError
from ..stores.lexical import analyzer
from ..types import Hit
from ._common import passage_text, reranked


def bm25_scores(query_terms: list[str], docs: list[list[str]], k1: float, b: float) -> list[float]:
    """Okapi BM25 of each tokenized doc for the distinct query terms, IDF over `docs`."""
    if not docs:
        return []
    n_docs = len(docs)
    avg_len = sum(len(d) for d in docs) / n_docs or 1.0
    frequencies = [Counter(d) for d in docs]
    terms = sorted(set(query_terms))
    idf = {}
    for term in terms:
        having = sum(1 for tf in frequencies if term in tf)
        idf[term] = math.log(1 + (n_docs - having + 0.5) / (having + 0.5))
    scores = []
    for doc, tf in zip(docs, frequencies):
        norm = k1 * (1 - b + b * len(doc) / avg_len)
        scores.append(math.fsum(idf[t] * tf[t] * (k1 + 1) / (tf[t] + norm) for t in terms if t in tf))
    return scores


class BM25Reranker:
    name = "bm25"

    def __init__(self, k1: float = 1.2, b: float = 0.75, **_options) -> None:
        if k1 < 0 or not 0 <= b <= 1:
            raise UsageError(f"bm25 needs k1 >= 0 and 0 <= b <= 1, got k1={k1}, b={b}")
        self.k1, self.b = float(k1), float(b)
        self._analyzer = analyzer()

    def tokens(self, text: str) -> list[str]:
        return self._analyzer.analyze(text)

    def rerank(self, query: str, hits: list[Hit]) -> list[Hit]:
        docs = [self.tokens(passage_text(h)) for h in hits]
        return reranked(hits, bm25_scores(self.tokens(query), docs, self.k1, self.b))
