"""The registry, the shared Hit handling, the bm25 reranker, and `search --rerank` end to end."""

from __future__ import annotations

import math
import os

import pytest

from ragchain_cli.errors import UsageError
from ragchain_cli.rerank import RERANKERS
from ragchain_cli.rerank._common import reranked
from ragchain_cli.rerank.bm25 import bm25_scores
from ragchain_cli.types import Chunk, Hit

# As llm/llama.py does before importing llama_cpp, but before anything imports torch: torch and
# llama.cpp share libgomp, and spinning idle torch workers make llama.cpp ~20x slower on 2 busy cores.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def hit(n: int, text: str, score: float) -> Hit:
    return Hit(f"c{n}", score, doc_id=f"d{n}", explain={"dense": (n, score)},
               chunk=Chunk(f"c{n}", f"d{n}", text))


HITS = [
    hit(1, "The station keeps boats in the boathouse over winter.", 0.9),
    hit(2, "Visitors should sign the guest book at reception.", 0.8),
    hit(3, "Dissolved oxygen sensors on the buoy are calibrated monthly against Winkler titrations.", 0.7),
    hit(4, "Oxygen tanks for diving are refilled in town.", 0.6),
]


def test_every_family_is_registered_with_help():
    assert RERANKERS.names() == ["bm25", "cross-encoder", "llm", "monot5", "tart", "upr"]
    assert all(RERANKERS.describe().values())


def test_unknown_reranker_is_a_usage_error():
    with pytest.raises(UsageError, match="unknown reranker"):
        RERANKERS.create("colbert")


def test_bm25_puts_the_lexically_matching_passage_first():
    reranker = RERANKERS.create("bm25", model="ignored", llm="ignored", n_ctx=99)
    out = reranker.rerank("how is the dissolved oxygen sensor calibrated?", HITS)
    assert [h.chunk_id for h in out][:2] == ["c3", "c4"]
    assert [h.explain["rerank"][0] for h in out] == [1, 2, 3, 4]
    assert out[0].explain["fused"] == (3, 0.7) and out[0].explain["dense"] == (3, 0.7)
    assert HITS[2].score == 0.7 and "rerank" not in HITS[2].explain  # the input is left alone


def test_bm25_scores_match_a_hand_computation():
    docs = [["oxygen", "buoy"], ["boat"]]
    idf = math.log(1 + (2 - 1 + 0.5) / (1 + 0.5))
    k1, b, avg = 1.2, 0.75, 1.5
    expected = idf * 1 * (k1 + 1) / (1 + k1 * (1 - b + b * 2 / avg))
    assert bm25_scores(["oxygen", "oxygen"], docs, k1, b) == pytest.approx([expected, 0.0])
    assert bm25_scores(["x"], [], k1, b) == []


def test_ties_break_by_chunk_id_and_scores_are_higher_is_better():
    hits = [hit(2, "b", 0.1), hit(1, "a", 0.2), hit(3, "c", 0.3)]
    out = reranked(hits, [1.0, 1.0, 5.0])
    assert [h.chunk_id for h in out] == ["c3", "c1", "c2"]
    assert out[0].explain["rerank"] == (1, 5.0)


def test_a_hit_without_its_chunk_is_refused():
    with pytest.raises(UsageError, match="without its text"):
        RERANKERS.create("bm25").rerank("q", [Hit("c1", 1.0)])


def test_search_rerank_bm25_cli(cli, sample_index):
    result = cli("search", "dissolved oxygen calibration", "--rerank", "bm25", "--rerank-depth", "5",
                 "--index", sample_index, "--json")
    assert result.code == 0, result.err
    hits = result.json()["hits"]
    assert len(hits) >= 6
    assert [h["explain"]["rerank"]["rank"] for h in hits[:5]] == [1, 2, 3, 4, 5]
    assert all("rerank" not in h["explain"] for h in hits[5:])
    scores = [h["score"] for h in hits]
    assert scores == sorted(scores, reverse=True)


def test_eval_and_ask_take_rerank_too(cli, sample_index, tmp_path):
    from conftest import SAMPLE

    common = ("--index", sample_index, "--retrievers", "dense", "--json")
    plain = cli("eval", SAMPLE / "qrels.tsv", "--queries", SAMPLE / "queries.jsonl", *common,
                "--run-out", tmp_path / "plain.trec")
    reranked = cli("eval", SAMPLE / "qrels.tsv", "--queries", SAMPLE / "queries.jsonl", *common,
                   "--rerank", "bm25", "--rerank-depth", "10", "--run-out", tmp_path / "reranked.trec")
    assert plain.code == 0 and reranked.code == 0, plain.err + reranked.err
    assert (tmp_path / "plain.trec").read_text() != (tmp_path / "reranked.trec").read_text()
    asked = cli("ask", "How is dissolved oxygen calibrated?", "--rerank", "bm25", "--rerank-depth", "3",
                "--no-generate", *common)
    assert asked.code == 0, asked.err
    assert [h["explain"]["rerank"]["rank"] for h in asked.json()["hits"][:3]] == [1, 2, 3]
