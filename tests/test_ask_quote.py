"""An answer that cannot be verified gives way to the passage's own sentence (answer/quote.py): the
sentence the answer judge finds answers the question best, on the sample corpus with a scripted
model, and the choice itself on passages scored by hand."""

from __future__ import annotations

import numpy as np

from ragchain_cli.answer.assemble import open_workflow
from ragchain_cli.answer.quote import QUOTED, judged_best, quote
from ragchain_cli.answer.select import score_sentences
from ragchain_cli.answer.workflow import AskOptions
from ragchain_cli.config import DEFAULTS, load_settings
from ragchain_cli.types import Chunk, Hit
from scripted import ScriptedModel

CLOSED = "When is Heron Inlet closed to sampling?"
WRONG = "Heron Inlet is closed from 3 May to 9 June."  # dates no passage gives: not verified


def ask(sample_index, question: str, model) -> dict:
    settings = load_settings({"index": str(sample_index)}, config_files=[])
    with open_workflow(settings, AskOptions(), model=model) as workflow:
        return workflow.ask(question)


def test_an_unverified_answer_gives_way_to_the_sentence_the_judge_finds_answers_the_question(sample_index):
    payload = ask(sample_index, CLOSED, ScriptedModel(WRONG, WRONG))
    assert payload["quoted"] is True and payload["supported"] is False, payload  # cited, not checked to answer
    assert payload["not_verified"] == QUOTED and payload["citations"][0]["cited"] is True
    assert payload["draft"].startswith("Heron Inlet is closed from 3 May") and payload["draft_not_verified"]
    quoted = payload["answer"].rsplit(" [", 1)[0]
    assert "15 July" in quoted, quoted
    (cited,) = payload["citations"]
    assert quoted in payload["hits"][cited["number"] - 1]["text"]  # the citation holds the quote


def test_a_verified_answer_and_a_yes_no_question_are_never_quoted(sample_index):
    verified = ask(sample_index, CLOSED, ScriptedModel("Sampling is closed from 1 April to 15 July [1]."))
    assert verified["supported"] is True and "quoted" not in verified, verified
    polar = ask(sample_index, "Is Heron Inlet closed to sampling in May?",
                ScriptedModel("Ospreys nest in the dead pine.", "Ospreys nest in the dead pine."))
    assert polar["supported"] is False and "quoted" not in polar, polar


def judged_found(texts: list[str], judged: list[float]):
    """The texts as passages, their sentences given the judge's probabilities by hand."""
    hits = [Hit(f"c{i}", 1.0, doc_id=f"d{i}", chunk=Chunk(f"c{i}", f"d{i}", t)) for i, t in enumerate(texts)]
    found = score_sentences("question?", hits, {"x": 1.0}, None, passages=len(texts))
    found.judged = np.array(judged, dtype=float)
    return found, hits


def test_the_judge_s_best_sentence_is_quoted_only_at_its_bar():
    texts = ["The hall opens at nine on weekdays.", "The hall closes at ten on Saturdays."]
    found, hits = judged_found(texts, [0.2, 0.9])
    assert found.text_at(judged_best(found, DEFAULTS.judge_answers)) == texts[1]
    found, _ = judged_found(texts, [0.2, DEFAULTS.judge_answers - 0.01])
    assert quote(found, hits, DEFAULTS.judge_answers) is None


def test_a_quoted_sentence_that_points_back_is_quoted_with_the_sentence_before_it():
    text = ("Panels are wired in series, so one shaded cell limits the current of the whole string. "
            "For this reason the two birch trees west of the hall were pruned before installation.")
    found, hits = judged_found([text], [0.1, 0.9])
    quoted = quote(found, hits, 0.5)
    assert quoted.verdict.text.startswith("Panels are wired in series") and "For this reason" in quoted.verdict.text
    assert quoted.verdict.text.endswith("[1]")  # the passage read holds both sentences


def test_the_tail_of_a_sentence_cut_at_a_chunk_s_edge_is_never_quoted():
    texts = ["presented three options for the generator: overhaul it, replace it, or retire it for a battery bank."]
    found, _ = judged_found(texts, [0.9])
    assert judged_best(found, 0.5) is None
