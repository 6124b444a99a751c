"""Pad entries (stores/shard_pads.py): each shard's Tantivy index scores BM25 with the global mean
length, so its scores are one index's, deep in the list too; pads stay out of every ID, count and
term a reader sees; near ties are what the merge scores again."""

from __future__ import annotations

import json

import pytest

from conftest import SAMPLE
from ragchain_cli.stores import sharded_lexical
from ragchain_cli.stores.index import Index
from ragchain_cli.stores.lexical import PAD_WORD
from ragchain_cli.stores.sharded import ShardedIndex
from ragchain_cli.stores.sharded_lexical import SCORE_ERROR, near_ties
from test_shard_query import sharded  # noqa: F401 (the module-scope 2-shard sample index)

QUERIES = [json.loads(line)["text"] for line in (SAMPLE / "queries.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("field", ["lexical", "documents"])
def test_padded_shards_score_every_entry_as_one_index(sharded, sample_index, monkeypatch, field):
    monkeypatch.setattr(sharded_lexical, "RESCORED", 0)  # the shards' own scores, nothing scored again
    with ShardedIndex(sharded) as many, Index(sample_index) as one:
        bound = getattr(many, field).stats.residual + SCORE_ERROR
        for query in QUERIES:
            theirs = dict(getattr(one, field).search(query, 500))
            mine = getattr(many, field).search(query, 500)
            assert {cid for cid, _ in mine} == set(theirs)
            assert all(score == pytest.approx(theirs[cid], rel=bound) for cid, score in mine), query


def test_pads_are_no_entry_a_reader_sees(sharded, sample_index):
    with ShardedIndex(sharded) as many, Index(sample_index) as one:
        assert sum(len(shard.lexical.pads()) for shard in many.shards) > 0
        assert many.lexical.ids() == one.lexical.ids() and many.lexical.count() == one.lexical.count()
        assert many.documents.ids() == one.documents.ids()
        assert not many.lexical.terms_starting(PAD_WORD[:8]) and not many.lexical.search(PAD_WORD, 10)
        assert many.check().consistent


def test_near_ties_are_the_neighbours_their_scores_cannot_order():
    ranked = [("a", 3.0), ("b", 2.0), ("c", 1.0000004), ("d", 1.0), ("e", 0.9999990), ("f", 0.5)]
    assert [cid for cid, _ in near_ties(ranked, 1e-6)] == ["c", "d", "e"]
    assert near_ties(ranked, 1e-9) == []
