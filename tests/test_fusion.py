"""Hand-computed fusion cases in the ranx style."""

from __future__ import annotations

import math
import statistics

import pytest

from ragchain_cli.errors import UsageError
from ragchain_cli.fusion import (
    FUSIONS,
    NORMS,
    cc,
    best_passages,
    collapse_to_documents,
    dbsf,
    fuse,
    minmax,
    none,
    passages_to_documents,
    rrf,
    zscore,
)
from ragchain_cli.types import Chunk, Hit


def run(*pairs: tuple[str, float], doc: str = "") -> list[Hit]:
    """Hits from (chunk_id, score) pairs; doc_id is the part before '#' unless doc is given."""
    return [Hit(cid, score, doc or cid.split("#")[0]) for cid, score in pairs]


def by_id(hits: list[Hit]) -> dict[str, Hit]:
    return {h.chunk_id: h for h in hits}


# ---------------------------------------------------------------- rrf


def test_rrf_hand_computed_scores():
    runs = {
        "bm25": run(("a", 9.0), ("b", 8.0), ("c", 7.0)),
        "dense": run(("c", 0.9), ("a", 0.8), ("d", 0.7)),
    }
    fused = by_id(rrf(runs))
    assert fused["a"].score == pytest.approx(1 / (60 + 1) + 1 / (60 + 2))
    assert fused["c"].score == pytest.approx(1 / (60 + 3) + 1 / (60 + 1))
    assert fused["b"].score == pytest.approx(1 / (60 + 2))
    assert fused["d"].score == pytest.approx(1 / (60 + 3))


def test_rrf_keeps_the_union_and_orders_by_score():
    runs = {"dense": run(("a", 1.0), ("c", 0.5)), "bm25": run(("a", 3.0), ("b", 2.0))}
    fused = rrf(runs)
    assert [h.chunk_id for h in fused] == ["a", "b", "c"]  # b and c tie at 1/62: chunk_id decides
    assert fused[1].score == fused[2].score


def test_rrf_explain_and_doc_id_come_from_the_inputs():
    chunk = Chunk("d1#0", "d1", "text")
    runs = {
        "bm25": [Hit("d1#0", 4.5, "d1", chunk=chunk), Hit("d2#0", 1.5, "d2")],
        "dense": [Hit("d2#0", 0.25, "d2")],
    }
    fused = by_id(rrf(runs))
    assert fused["d1#0"].explain == {"bm25": (1, 4.5)}
    assert fused["d2#0"].explain == {"bm25": (2, 1.5), "dense": (1, 0.25)}
    assert fused["d1#0"].doc_id == "d1" and fused["d1#0"].chunk is chunk


def test_rrf_k_and_weights():
    runs = {"bm25": run(("a", 1.0), ("b", 0.5)), "dense": run(("b", 1.0), ("a", 0.5))}
    fused = by_id(rrf(runs, k=10, weights={"dense": 3.0}))
    assert fused["a"].score == pytest.approx(1.0 / 11 + 3.0 / 12)
    assert fused["b"].score == pytest.approx(1.0 / 12 + 3.0 / 11)
    assert rrf(runs, k=10, weights={"dense": 3.0})[0].chunk_id == "b"


def test_rrf_rejects_bad_k_and_unknown_weights():
    runs = {"bm25": run(("a", 1.0))}
    with pytest.raises(UsageError):
        rrf(runs, k=-1)
    with pytest.raises(UsageError) as err:
        rrf(runs, weights={"splade": 1.0})
    assert "splade" in err.value.message and "bm25" in err.value.hint


def test_rrf_duplicate_chunk_in_one_list_counts_once_at_its_best_rank():
    fused = rrf({"bm25": run(("a", 3.0), ("b", 2.0), ("a", 1.0))})
    assert by_id(fused)["a"].score == pytest.approx(1 / 61)
    assert by_id(fused)["b"].explain == {"bm25": (2, 2.0)}


def test_empty_runs_fuse_to_nothing():
    assert rrf({}) == []
    assert cc({}) == []
    assert cc({"bm25": [], "dense": []}) == []


# ---------------------------------------------------------------- normalisations


def test_minmax_hand_computed():
    assert minmax([4.0, 2.0, 0.0]) == pytest.approx([1.0, 0.5, 0.0])
    assert minmax([-1.0, -3.0]) == pytest.approx([1.0, 0.0])


def test_zscore_hand_computed_uses_population_std():
    # mean 2, population std sqrt(8/3)
    std = math.sqrt(8 / 3)
    assert zscore([4.0, 2.0, 0.0]) == pytest.approx([2 / std, 0.0, -2 / std])
    assert zscore([4.0, 2.0, 0.0]) == pytest.approx(
        [(s - 2.0) / statistics.pstdev([4.0, 2.0, 0.0]) for s in [4.0, 2.0, 0.0]]
    )


def test_dbsf_hand_computed_uses_three_sample_sigmas():
    # mean 2, sample std 2 -> range [2 - 6, 2 + 6] = [-4, 8], width 12
    assert dbsf([4.0, 2.0, 0.0]) == pytest.approx([8 / 12, 6 / 12, 4 / 12])


def test_dbsf_is_not_clamped_for_outliers():
    scores = [100.0] + [0.0] * 19
    assert dbsf(scores)[0] > 1.0


@pytest.mark.parametrize(
    ("norm", "constant"),
    [("minmax", 1.0), ("zscore", 0.0), ("dbsf", 0.5), ("none", 0.3)],
)
def test_equal_scores_give_a_documented_constant(norm, constant):
    assert NORMS[norm]([0.3, 0.3, 0.3]) == [constant] * 3
    assert NORMS[norm]([0.3]) == [constant]
    assert NORMS[norm]([]) == []


def test_equal_scores_that_float_mean_would_not_reproduce_exactly():
    # fsum-mean of [0.1]*3 may differ from 0.1 in the last bit; the result must stay exact
    assert zscore([0.1, 0.1, 0.1]) == [0.0, 0.0, 0.0]
    assert dbsf([0.1, 0.1, 0.1]) == [0.5, 0.5, 0.5]


def test_none_is_identity_and_a_copy():
    scores = [3.0, -1.0]
    out = none(scores)
    assert out == scores and out is not scores


# ---------------------------------------------------------------- cc


def test_cc_minmax_hand_computed():
    runs = {
        "bm25": run(("a", 10.0), ("b", 5.0), ("c", 0.0)),
        "dense": run(("b", 0.9), ("a", 0.5), ("c", 0.1)),
    }
    fused = by_id(cc(runs, norm="minmax"))
    assert fused["a"].score == pytest.approx(0.5 * 1.0 + 0.5 * 0.5)
    assert fused["b"].score == pytest.approx(0.5 * 0.5 + 0.5 * 1.0)
    assert fused["c"].score == pytest.approx(0.0)
    assert [h.chunk_id for h in cc(runs, norm="minmax")] == ["a", "b", "c"]  # a, b tie: chunk_id


def test_cc_missing_candidate_gets_the_lists_minimum_not_zero():
    # zscore of dense [3, 2, 1] is [+1.2247, 0, -1.2247]; d is absent from dense
    runs = {
        "bm25": run(("a", 2.0), ("b", 2.0), ("c", 2.0), ("d", 2.0)),
        "dense": run(("a", 3.0), ("b", 2.0), ("c", 1.0)),
    }
    fused = by_id(cc(runs, norm="zscore"))
    low = -math.sqrt(1.5)
    assert fused["d"].score == pytest.approx(0.5 * 0.0 + 0.5 * low)
    assert fused["d"].score == pytest.approx(fused["c"].score)  # as bad as the worst retrieved
    assert fused["d"].score < fused["b"].score  # ranx's 0 would have tied d with b


@pytest.mark.parametrize("norm", sorted(NORMS))
def test_cc_absent_chunk_never_beats_a_present_one(norm):
    # x is in both lists at the bottom of dense; y is missing from dense; bm25 scores equal
    runs = {
        "bm25": run(("x", 5.0), ("y", 5.0), ("z", 9.0)),
        "dense": run(("z", -0.5), ("x", -2.0)),
    }
    fused = by_id(cc(runs, norm=norm))
    assert fused["x"].score >= fused["y"].score
    assert set(fused) == {"x", "y", "z"}


def test_cc_nothing_is_dropped_and_explain_lists_only_where_it_appeared():
    runs = {"bm25": run(("a", 1.0), ("b", 0.5)), "dense": run(("c", 0.8))}
    fused = by_id(cc(runs))
    assert set(fused) == {"a", "b", "c"}
    assert fused["c"].explain == {"dense": (1, 0.8)}
    assert fused["a"].explain == {"bm25": (1, 1.0)}


def test_cc_weights_are_normalised_and_missing_ones_default_to_one():
    runs = {
        "bm25": run(("a", 1.0), ("b", 0.0)),
        "dense": run(("b", 1.0), ("a", 0.0)),
        "hyde": run(("a", 1.0), ("b", 0.0)),
    }
    # weights 2, 1 (default), 1 (default) -> 0.5, 0.25, 0.25
    fused = by_id(cc(runs, weights={"bm25": 2.0}, norm="minmax"))
    assert fused["a"].score == pytest.approx(0.5 + 0.25)
    assert fused["b"].score == pytest.approx(0.25)
    scaled = by_id(cc(runs, weights={"bm25": 20.0, "dense": 10.0, "hyde": 10.0}, norm="minmax"))
    assert scaled["a"].score == pytest.approx(fused["a"].score)


def test_cc_weights_flip_the_winner():
    runs = {"bm25": run(("a", 1.0), ("b", 0.0)), "dense": run(("b", 1.0), ("a", 0.0))}
    assert cc(runs, weights={"bm25": 0.7, "dense": 0.3}, norm="minmax")[0].chunk_id == "a"
    assert cc(runs, weights={"bm25": 0.3, "dense": 0.7}, norm="minmax")[0].chunk_id == "b"


def test_cc_handles_negative_scores():
    runs = {"bm25": run(("a", -1.0), ("b", -5.0)), "dense": run(("b", -0.1), ("a", -0.9))}
    fused = by_id(cc(runs, weights={"bm25": 3.0}, norm="minmax"))
    assert fused["a"].score == pytest.approx(0.75 * 1.0 + 0.25 * 0.0)
    assert fused["b"].score == pytest.approx(0.75 * 0.0 + 0.25 * 1.0)
    assert fused["a"].explain["bm25"] == (1, -1.0)


@pytest.mark.parametrize(
    "weights",
    [{"splade": 1.0}, {"bm25": -0.5}, {"bm25": float("nan")}, {"bm25": 0.0, "dense": 0.0}],
)
def test_cc_rejects_bad_weights(weights):
    runs = {"bm25": run(("a", 1.0)), "dense": run(("a", 1.0))}
    with pytest.raises(UsageError):
        cc(runs, weights=weights)


def test_cc_rejects_unknown_norm_listing_valid_ones():
    with pytest.raises(UsageError) as err:
        cc({"bm25": run(("a", 1.0))}, norm="softmax")
    assert "zscore" in err.value.hint and "dbsf" in err.value.hint


# ---------------------------------------------------------------- fuse


def test_registries_name_the_documented_methods():
    assert FUSIONS == {"rrf": rrf, "cc": cc}
    assert sorted(NORMS) == ["dbsf", "minmax", "none", "zscore"]


def test_fuse_dispatches_and_ignores_other_methods_options():
    runs = {"bm25": run(("a", 1.0), ("b", 0.5)), "dense": run(("b", 1.0))}
    via_fuse = fuse("rrf", runs, k=10, norm="minmax", weights=None)
    assert [(h.chunk_id, h.score) for h in via_fuse] == [(h.chunk_id, h.score) for h in rrf(runs, k=10)]
    via_cc = fuse("cc", runs, k=60, norm="minmax", weights={})
    assert [(h.chunk_id, h.score) for h in via_cc] == [(h.chunk_id, h.score) for h in cc(runs, norm="minmax")]


def test_fuse_rejects_unknown_method_and_option():
    with pytest.raises(UsageError) as err:
        fuse("borda", {"bm25": run(("a", 1.0))})
    assert "cc" in err.value.hint and "rrf" in err.value.hint
    with pytest.raises(UsageError):
        fuse("rrf", {"bm25": run(("a", 1.0))}, kk=3)


@pytest.mark.parametrize("method", ["rrf", "cc"])
def test_fuse_single_run_is_returned_unchanged_with_explain(method):
    hits = run(("b", 2.0), ("a", 2.0), ("c", -1.0))  # deliberately not in chunk_id order on the tie
    fused = fuse(method, {"dense": hits})
    assert [(h.chunk_id, h.score) for h in fused] == [("b", 2.0), ("a", 2.0), ("c", -1.0)]
    assert [h.explain for h in fused] == [{"dense": (1, 2.0)}, {"dense": (2, 2.0)}, {"dense": (3, -1.0)}]
    assert hits[0].explain == {}  # inputs are not mutated


def test_fuse_single_run_still_validates_options():
    with pytest.raises(UsageError):
        fuse("cc", {"bm25": run(("a", 1.0))}, weights={"dense": 1.0})


def test_inputs_are_not_mutated_by_fusion():
    hits = run(("a", 3.0), ("b", 1.0))
    cc({"bm25": hits, "dense": run(("b", 1.0))})
    rrf({"bm25": hits})
    assert [(h.score, h.explain) for h in hits] == [(3.0, {}), (1.0, {})]


# ---------------------------------------------------------------- collapse_to_documents


def test_collapse_keeps_each_documents_best_passage():
    hits = [
        Hit("d1#3", 0.9, "d1"),
        Hit("d2#0", 0.8, "d2"),
        Hit("d1#1", 0.95, "d1"),
        Hit("d3#2", 0.1, "d3"),
    ]
    collapsed = collapse_to_documents(hits)
    assert [(h.doc_id, h.chunk_id) for h in collapsed] == [("d1", "d1#1"), ("d2", "d2#0"), ("d3", "d3#2")]


def test_collapse_ties_by_chunk_id_within_a_document_and_doc_id_across():
    hits = [Hit("b#9", 0.5, "b"), Hit("b#1", 0.5, "b"), Hit("a#7", 0.5, "a")]
    collapsed = collapse_to_documents(hits)
    assert [h.chunk_id for h in collapsed] == ["a#7", "b#1"]


def test_collapse_keys_hits_without_doc_id_by_chunk_id():
    collapsed = collapse_to_documents([Hit("x", 1.0), Hit("y", 2.0)])
    assert [h.chunk_id for h in collapsed] == ["y", "x"]


# ---------------------------------------------------------------- documents before fusion


def test_passages_to_documents_max_and_decayed_sum():
    hits = run(("a#1", 3.0), ("b#1", 2.5), ("a#2", 1.0), ("a#3", 0.5), ("a#1", 0.1))
    assert [(h.chunk_id, h.score) for h in passages_to_documents(hits)] == [("a", 3.0), ("b", 2.5)]
    decayed = passages_to_documents(hits, decay=0.5)
    assert [h.doc_id for h in decayed] == ["a", "b"]
    assert decayed[0].score == pytest.approx(3.0 + 0.5 * 1.0 + 0.25 * 0.5)  # the repeated a#1 counts once
    assert best_passages(hits) == {"a": "a#1", "b": "b#1"}
    with pytest.raises(UsageError):
        passages_to_documents(hits, decay=1.0)


def test_fusing_documents_differs_from_fusing_chunks():
    """bm25 fills its head with three passages of x; fused as chunks, x wins on rank sums, fused as
    documents y does (hand-computed rrf, k = 60)."""
    runs = {"bm25": run(("x#1", 9.0), ("x#2", 8.0), ("x#3", 7.0), ("y#1", 6.0)),
            "dense": run(("y#1", 0.9), ("z#1", 0.8), ("x#1", 0.7))}
    chunks = collapse_to_documents(rrf(runs))
    assert [h.doc_id for h in chunks][:2] == ["x", "y"]
    assert chunks[0].score == pytest.approx(1 / 61 + 1 / 63)
    docs = rrf({name: passages_to_documents(hits) for name, hits in runs.items()})
    assert [h.doc_id for h in docs] == ["y", "x", "z"]
    assert docs[0].score == pytest.approx(1 / 62 + 1 / 61)
    assert docs[1].score == pytest.approx(1 / 61 + 1 / 63)
