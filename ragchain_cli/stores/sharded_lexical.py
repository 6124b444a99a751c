"""BM25 over every shard's Tantivy index, on one scale: the LexicalIndex reads a sharded index needs.

Each query word is boosted in each shard by idf(global) / idf(shard) (stores/shard_stats.py), so
a shard's own top k, searched by Tantivy as usual, comes back scored with the global document
frequencies; the shards' lists are then merged by score (ties by ID). One search per shard, no
re-scoring of candidates, and each shard's top k is exactly its top k under the global scale.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .lexical import LexicalIndex, analyzer, plain_terms
from .shard_stats import GlobalStats, idf


def merged(lists: Iterable[list[tuple[str, float]]], k: int) -> list[tuple[str, float]]:
    hits = [hit for part in lists for hit in part]
    return sorted(hits, key=lambda hit: (-hit[1], hit[0]))[:k]


class ShardedLexical:
    def __init__(self, shards: list[LexicalIndex], stats: GlobalStats) -> None:
        self.shards, self.stats = shards, stats

    # -- searches -------------------------------------------------------------------------------
    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        words = plain_terms(query).split()
        if not words or k <= 0:
            return []
        return self._top([(word, 1.0) for word in words], k)

    def search_weighted(self, weights: Mapping[str, float], k: int) -> list[tuple[str, float]]:
        words = [(word, weight) for term, weight in sorted(weights.items()) if weight > 5e-7
                 for word in plain_terms(term).split()]
        if not words or k <= 0:
            return []
        return self._top(words, k)

    def search_within(self, query: str, chunk_ids: list[str]) -> list[tuple[str, float]]:
        words = plain_terms(query).split()
        if not words or not chunk_ids:
            return []
        weighted = [(word, 1.0) for word in words]
        lists = [shard.search_within_text(self._boosted(shard, weighted), chunk_ids) for shard in self.shards]
        return merged(lists, len(chunk_ids))

    def _top(self, words: list[tuple[str, float]], k: int) -> list[tuple[str, float]]:
        return merged((shard.search_text(self._boosted(shard, words), k) for shard in self.shards), k)

    def _boosted(self, shard: LexicalIndex, words: list[tuple[str, float]]) -> str:
        """The query text for one shard: each word boosted by its weight x idf(global) / idf(shard)."""
        stems = {word: analyzer().analyze(word) for word, _ in words}
        single = sorted({s[0] for s in stems.values() if len(s) == 1})
        local, total = shard.term_counts(single), shard.count()
        wide = self.stats.doc_freqs(single)
        parts = []
        for word, weight in words:
            stem = stems[word]
            if len(stem) == 1 and local[stem[0]]:  # a word the shard holds: rescaled to the global idf
                weight *= idf(wide[stem[0]], self.stats.entries) / idf(local[stem[0]], total)
            if stem:
                parts.append(f"{word}^{weight:.6f}")
        return " ".join(parts)

    # -- statistics and terms (spelling, answer checks) -------------------------------------------
    def count(self) -> int:
        return sum(shard.count() for shard in self.shards)

    def doc_freqs(self, words: list[str]) -> dict[str, int]:
        found = {word: 0 for word in words}
        for shard in self.shards:
            for word, n in shard.doc_freqs(words).items():
                found[word] += n
        return found

    def stems(self, text: str) -> list[str]:
        return analyzer().analyze(plain_terms(text))

    def term_counts(self, terms: Iterable[str]) -> dict[str, int]:
        return self.stats.doc_freqs(list(terms))

    def terms_starting(self, prefix: str) -> list[tuple[str, int]]:
        counts: dict[str, int] = {}
        for shard in self.shards:
            for term, n in shard.terms_starting(prefix):
                counts[term] = counts.get(term, 0) + n
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))

    def chunks_with_both(self, term: str, others: Iterable[str]) -> dict[str, str]:
        others, found = list(others), {}
        for shard in self.shards:
            wanted = [other for other in others if other not in found]
            found.update(shard.chunks_with_both(term, wanted) if wanted else {})
        return found

    def ids(self) -> set[str]:
        return set().union(*(shard.ids() for shard in self.shards)) if self.shards else set()

    def close(self) -> None:
        for shard in self.shards:
            shard.close()


__all__ = ["ShardedLexical", "merged"]
