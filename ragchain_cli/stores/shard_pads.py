"""Pad entries: each shard's Tantivy index made to score BM25 with the mean length of all shards.

Tantivy divides an entry's length by the mean length of the index it searches (its tokens over
its entries, deleted ones a merge has not dropped counted too). Each shard has its own mean, so
even with every query term boosted to the global idf (sharded_lexical.py) a shard scored an entry a
little otherwise than one index of every shard would. At the end of a sharded ingest each shard's
word indexes get pad entries that bring their mean to the global one (the live tokens of every
shard over their live entries, as an unsharded index built fresh has it): one entry holding PAD_WORD
as often as needed, and empty entries first when the mean must come down. Each shard's own top k
is then scored as one index scores it, however deep the list.

Pads are never deleted (a deleted entry still counts until a merge drops it, unseen), so what they
hold is known: each pad's ID says its tokens (lexical.PAD_PREFIX + number + ":" + tokens). The
tokens of a shard's deleted entries are not known: they are taken at the shard's mean, so a shard
with deletions is padded near, not exactly, to the global mean, and says so (pad returns None).
Pads match no query and are left out of every ID, count and term the lexical index reads (lexical.py).
"""

from __future__ import annotations

import math

from .lexical import PAD_PREFIX, PAD_WORD, LexicalIndex

TOLERANCE = 1e-6  # relative difference of the means left as it is


def pad(lexical: LexicalIndex, live_tokens: int, mean: float) -> float | None:
    """Add the pad entries that bring the shard's mean length to `mean` (its live entries hold
    `live_tokens`); the relative difference of its mean from `mean` after them, or None when the shard
    holds deleted entries (their tokens unknown: its mean is then near `mean`, not known to be)."""
    held = lexical.pads()
    entries, live = lexical.max_doc(), lexical.count()
    if not live or mean <= 0:
        return 0.0
    deleted = entries - live - len(held)
    tokens = live_tokens + deleted * live_tokens / live + sum(held)  # what Tantivy's mean divides
    if abs(tokens / entries - mean) > TOLERANCE * mean:
        empty = max(0, math.ceil(tokens / mean - entries - 1))  # lower a mean that is too high
        last = max(0, round(mean * (entries + empty + 1) - tokens))  # then one entry with the tokens left
        sizes = [0] * empty + [last]
        lexical.stage([], [(f"{PAD_PREFIX}{len(held) + n:09d}:{size}", " ".join([PAD_WORD] * size))
                           for n, size in enumerate(sizes)])
        lexical.commit()
        tokens, entries = tokens + last, entries + len(sizes)
    return abs(tokens / entries - mean) / mean if deleted == 0 else None


__all__ = ["pad"]
