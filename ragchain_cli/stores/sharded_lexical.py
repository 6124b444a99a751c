"""BM25 over every shard's Tantivy index, on one scale: the LexicalIndex reads a sharded index needs.

Each query word is boosted in each shard by idf(global) / idf(shard) (stores/shard_stats.py), and
each shard's pad entries (stores/shard_pads.py) give it the global mean length, so a shard's own top
k, searched by Tantivy as usual, comes back scored as one index of every shard scores it. The
shards' lists are merged by score (ties by ID); each shard is asked for about its share of the k
first, and again for k only when more of it could rank in the top k (top_across). Where the scores
are not one index's (shards written before pads; a query word the analyzer splits in two), the
first RESCORED of the merged list are scored again exactly (their texts analyzed: term frequencies
and lengths, with the global mean length), so the head ranks as an unsharded index ranks it and the
tail within a fraction of a percent of its scores."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping

from .fanout import Fanout
from .lexical import LexicalIndex, analyzer, plain_terms
from .shard_stats import GlobalStats, bm25, idf

RESCORED = 100  # entries of the merged list scored again exactly (and fetched from each shard at least)
SCORE_ERROR = 5e-6  # relative: a boost written with 6 decimals, and Tantivy's 32-bit floats
PRECISE = 1e-5  # padded shards whose mean lengths are nearer than this score the head as one index does,
# but for near ties; small shards' means, padded a whole token at a time, are not: their heads are scored again


def near_ties(ranked: list[tuple[str, float]], error: float) -> list[tuple[str, float]]:
    """The entries whose order their scores may not tell, each score being within `error` (relative)
    of the exact one: every run of neighbours less than twice that apart. Scoring these again
    exactly orders the list as exact scores would (the others are too far apart to swap)."""
    close = set()
    for (first, high), (second, low) in zip(ranked, ranked[1:]):
        if high - low <= 2 * error * abs(high):
            close.update((first, second))
    return [entry for entry in ranked if entry[0] in close]


def unique(words: Iterable[tuple[str, float]]) -> list[tuple[str, float]]:
    """Tantivy's query parser counts a word written twice with the same boost once (`my ... my`)."""
    return list(dict.fromkeys((word, float(f"{weight:.6f}")) for word, weight in words))


def merged(lists: Iterable[list[tuple[str, float]]], k: int) -> list[tuple[str, float]]:
    hits = [hit for part in lists for hit in part]
    return sorted(hits, key=lambda hit: (-hit[1], hit[0]))[:k]


def top_across(fanout: Fanout, parts: list, search: Callable[[object, int], list[tuple[str, float]]],
               k: int) -> list[tuple[str, float]]:
    """The top k of every part's ranked list, as asking each part for k would give it, asking each
    for about its share first: a part whose last entry scores at least the merged k-th (so that more
    of it could rank in the top k) is asked again for k."""
    first = k if len(parts) < 2 else min(k, -(-3 * k // (2 * len(parts))) + 10)
    lists = fanout.map(lambda part: search(part, first), parts)
    top = merged(lists, k)
    if first < k:
        bar = top[-1][1] if len(top) == k else float("-inf")
        again = [i for i, found in enumerate(lists) if len(found) == first and found[-1][1] >= bar]
        for i, found in zip(again, fanout.map(lambda i: search(parts[i], k), again)):
            lists[i] = found
        top = merged(lists, k)
    return top


class ShardedLexical:
    def __init__(self, shards: list[LexicalIndex], stats: GlobalStats,
                 texts: Callable[[list[str]], dict[str, str]], fanout: Fanout | None = None) -> None:
        self.shards, self.stats, self.texts = shards, stats, texts  # texts: ID -> the text indexed for it
        self.fanout = fanout or Fanout(1, "serial")  # every shard asked at once (stores/fanout.py)

    # -- searches -------------------------------------------------------------------------------
    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        words = plain_terms(query).split()
        if not words or k <= 0:
            return []
        return self._top(unique((word, 1.0) for word in words), k)

    def search_weighted(self, weights: Mapping[str, float], k: int) -> list[tuple[str, float]]:
        words = [(word, weight) for term, weight in sorted(weights.items()) if weight > 5e-7
                 for word in plain_terms(term).split()]
        if not words or k <= 0:
            return []
        return self._top(unique(words), k)

    def search_within(self, query: str, chunk_ids: list[str]) -> list[tuple[str, float]]:
        words = plain_terms(query).split()
        if not words or not chunk_ids:
            return []
        exact = self._exact(unique((word, 1.0) for word in words), chunk_ids)
        return merged([[(cid, score) for cid, score in exact.items() if score > 0]], len(chunk_ids))

    def _top(self, words: list[tuple[str, float]], k: int) -> list[tuple[str, float]]:
        fetch = max(k, RESCORED)
        stems = {word: analyzer().analyze(word) for word, _ in words}
        single = sorted({s[0] for s in stems.values() if len(s) == 1})
        wide = self.stats.doc_freqs(single)  # the global df, once for every shard
        texts = self.fanout.map(lambda shard: self._boosted(shard, words, stems, wide), self.shards)
        approximate = top_across(self.fanout, list(zip(self.shards, texts)),
                                 lambda pair, n: pair[0].search_text(pair[1], n), fetch)
        head = approximate[:RESCORED]
        residual = self.stats.residual
        if residual is not None and residual <= PRECISE and all(len(stem) <= 1 for stem in stems.values()):
            head = near_ties(head, residual + SCORE_ERROR)  # every shard scores as one index, near enough
        exact = self._exact(words, [cid for cid, _ in head])
        return merged([[(cid, exact.get(cid, score)) for cid, score in approximate]], k)

    def _exact(self, words: list[tuple[str, float]], ids: list[str]) -> dict[str, float]:
        """BM25 of these entries as one index of all shards scores them (Tantivy's formula)."""
        stems = [(weight, analyzer().analyze(word)) for word, weight in words]
        wide = self.stats.doc_freqs([stem for _, found in stems for stem in found])
        terms = [(weight * idf(wide[stem], self.stats.entries), stem) for weight, found in stems for stem in found]
        scores = {}
        for cid, text in self.texts(ids).items():
            tokens = analyzer().analyze(text)
            counts = Counter(tokens)
            scores[cid] = bm25([(weight, counts[stem]) for weight, stem in terms], len(tokens), self.stats.mean_length)
        return scores

    def _boosted(self, shard: LexicalIndex, words: list[tuple[str, float]], stems: dict[str, list[str]],
                 wide: dict[str, int]) -> str:
        """The query text for one shard: each word boosted by its weight x idf(global) / idf(shard)."""
        local, total = shard.term_counts(list(wide)), shard.max_doc()  # Tantivy's own N and df
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
        return sum(self.fanout.map(lambda shard: shard.count(), self.shards))

    def doc_freqs(self, words: list[str]) -> dict[str, int]:
        found = {word: 0 for word in words}
        for part in self.fanout.map(lambda shard: shard.doc_freqs(words), self.shards):
            for word, n in part.items():
                found[word] += n
        return found

    def stems(self, text: str) -> list[str]:
        return analyzer().analyze(plain_terms(text))

    def term_counts(self, terms: Iterable[str]) -> dict[str, int]:
        return self.stats.doc_freqs(list(terms))

    def terms_starting(self, prefix: str) -> list[tuple[str, int]]:
        counts: dict[str, int] = {}
        for part in self.fanout.map(lambda shard: shard.terms_starting(prefix), self.shards):
            for term, n in part:
                counts[term] = counts.get(term, 0) + n
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))

    def chunks_with_both(self, term: str, others: Iterable[str]) -> dict[str, str]:
        others, found = list(others), {}
        for shard in self.shards:
            wanted = [other for other in others if other not in found]
            found.update(shard.chunks_with_both(term, wanted) if wanted else {})
        return found

    def holders(self, term: str) -> list[str]:
        return [entry for part in self.fanout.map(lambda shard: shard.holders(term), self.shards) for entry in part]

    def ids(self) -> set[str]:
        return set().union(*self.fanout.map(lambda shard: shard.ids(), self.shards)) if self.shards else set()

    def close(self) -> None:
        for shard in self.shards:
            shard.close()


__all__ = ["ShardedLexical", "merged", "top_across"]
