"""The answer path end to end on the sample corpus (real index, real search, real checks) with a
scripted stand-in model, so that each test asserts one outcome of the orchestrator's loop."""

from __future__ import annotations

import pytest

from ragchain_cli.answer.assemble import open_workflow
from ragchain_cli.config import load_settings
from ragchain_cli.answer.decide import NOT_SAID
from ragchain_cli.answer.prompt import YES_NO_REMINDER
from ragchain_cli.answer.workflow import AskOptions
from scripted import ScriptedModel

CLOSED = "When is Heron Inlet closed to sampling?"


def ask(sample_index, question: str, model: ScriptedModel, **options) -> dict:
    settings = load_settings({"index": str(sample_index)}, config_files=[])
    with open_workflow(settings, AskOptions(**options), model=model) as workflow:
        return workflow.ask(question)


def test_an_answer_the_judge_supports_is_verified_and_read_once(sample_index):
    model = ScriptedModel("Sampling is closed from 1 April to 15 July.")
    payload = ask(sample_index, CLOSED, model)
    assert len(model.calls) == 1 and payload["supported"] is True, payload
    assert any("1 April to 15 July" in payload["hits"][c["number"] - 1]["text"] for c in payload["citations"])


def test_an_answer_the_judge_does_not_support_is_read_again_on_its_best_sentence(sample_index):
    model = ScriptedModel("Stay at least 200 metres from the nest tree.", "From 1 April to 15 July.")
    payload = ask(sample_index, CLOSED, model)
    assert len(model.calls) == 2, payload
    assert payload["answer"].startswith("From 1 April to 15 July") and payload["supported"], payload
    first, second = model.asked(0), model.asked(1)
    assert len(second) < len(first) and "Heron Inlet is closed to all sampling" in second
    assert all(h["text"] in second for h in payload["hits"])  # citations point at what the model read


def test_a_second_reading_the_judge_finds_no_better_supported_keeps_the_first_answer(sample_index):
    model = ScriptedModel("Stay at least 200 metres from the nest tree.", "Anglers may fish from the shore.")
    payload = ask(sample_index, CLOSED, model)
    assert len(model.calls) == 2 and payload["draft"].startswith("Stay at least 200 metres"), payload


def test_a_yes_no_reply_that_takes_no_side_is_asked_again_for_yes_or_no(sample_index):
    model = ScriptedModel("Ospreys nest in the dead pine.", "Yes, Heron Inlet is closed to sampling in May.")
    payload = ask(sample_index, "Is Heron Inlet closed to sampling in May?", model)
    assert YES_NO_REMINDER in model.asked(1) and YES_NO_REMINDER not in model.asked(0)
    assert payload["answer"].startswith("Yes, Heron Inlet is closed") and payload["answered"], payload


def test_a_yes_no_reply_that_never_takes_a_side_is_not_verified(sample_index):
    model = ScriptedModel("Ospreys nest in the dead pine.", "Ospreys nest in the dead pine.")
    payload = ask(sample_index, "Is Heron Inlet closed to sampling in May?", model)
    assert payload["supported"] is False and "judge does not find" in payload["not_verified"], payload
    assert not any(c["cited"] for c in payload["citations"]) and "[" not in payload["answer"]


@pytest.mark.parametrize("reply", ["", "The model gave no answer from the retrieved passages.", "I do not know."])
def test_an_empty_reply_or_a_refusal_is_a_refusal_not_an_answer(sample_index, reply):
    payload = ask(sample_index, CLOSED, ScriptedModel(reply, reply))
    assert payload["answered"] is False and payload["answer"] == NOT_SAID and payload["citations"] == [], payload


def test_a_refusal_decided_from_the_evidence_costs_no_model_load(sample_index):
    settings = load_settings({"index": str(sample_index)}, config_files=[])
    with open_workflow(settings, AskOptions()) as workflow:
        workflow._load = lambda: pytest.fail("the model was loaded for a question the documents do not answer")
        payload = workflow.ask("What is the airspeed velocity of an unladen swallow?")
    assert payload["answered"] is False and payload["evidence"]["score"] < 0


def test_no_abstain_answers_even_when_the_evidence_is_weak(sample_index):
    model = ScriptedModel("Swallows fly at about 11 metres per second.")
    payload = ask(sample_index, "What is the airspeed velocity of an unladen swallow?", model, abstain=False)
    assert model.calls and payload["answered"] is True, payload
    assert payload["supported"] is False and payload["evidence"]["score"] < 0  # invented: not verified


def test_a_yes_no_reply_the_judge_does_not_support_is_read_again_on_its_best_sentences(sample_index):
    model = ScriptedModel("No, Heron Inlet is not closed to sampling.",
                          "Yes, Heron Inlet is closed to all sampling from 1 April to 15 July.")
    payload = ask(sample_index, "Is Heron Inlet closed to sampling?", model)
    assert len(model.calls) == 2 and YES_NO_REMINDER in model.asked(1), payload
    assert "Heron Inlet is closed to all sampling from 1 April to 15 July" in model.asked(1)
    assert len(model.asked(1)) < len(model.asked(0))  # the judge's best sentences and their neighbours only
    assert payload["answer"].startswith("Yes, Heron Inlet is closed"), payload  # the better supported reply is kept


def test_an_answer_a_refusal_and_a_blank_line_have_the_same_keys(sample_index):
    # a JSONL reader of `ask -` sees one shape whatever each line's outcome
    model = ScriptedModel("Sampling is closed from 1 April to 15 July.")
    settings = load_settings({"index": str(sample_index)}, config_files=[])
    with open_workflow(settings, AskOptions(), model=model) as workflow:
        answered, refused, blank = workflow.ask_many([CLOSED, "What is the airspeed of an unladen swallow?", ""])
    assert answered["answered"] and not refused["answered"] and blank["answer"] == ""
    assert set(answered) == set(refused) == set(blank), (set(answered) ^ set(refused), set(answered) ^ set(blank))
