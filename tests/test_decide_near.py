"""decide: a yes/no question whose passages lie near it in meaning (decide.NEAR) is drafted even when the
retrieval signals' score is under its bar (`near_yes_no`, on by default); a question that asks for a
value is not (its closest sentence is quoted instead), nor is a yes/no question far from its passages."""

from __future__ import annotations

import dataclasses

import numpy as np

from ragchain_cli.answer.decide import NEAR, THRESHOLD, decide, score
from ragchain_cli.answer.gather import Gathered, Searched, Signals
from ragchain_cli.answer.select import score_sentences
from ragchain_cli.types import Chunk, Hit

TEXT = "Petrol-powered tools must not be carried on the cargo trike, whether or not the tank is empty."


def gathered(question: str, cosine: float) -> Gathered:
    hits = [Hit("c0", 1.0, doc_id="d0", chunk=Chunk("c0", "d0", TEXT))]
    found = score_sentences(question, hits, {"petrol": 1.0}, None, passages=1)
    found = dataclasses.replace(found, judged=np.full(len(found.where), 0.6))  # over the judge's bar
    signals = Signals(coverage=0.0, local=0.0, dense=0.0, bm25=0.0, sentence=cosine, sentence_coverage=0.0)
    return Gathered(question, Searched(hits, question), found, signals)


def test_the_signals_alone_would_refuse_these_questions():
    assert score(gathered("Can a petrol mower ride on the trike?", NEAR + 0.1).signals) < THRESHOLD


def test_a_yes_no_question_near_its_passages_is_drafted():
    decision = decide(gathered("Can a petrol mower ride on the trike?", NEAR + 0.1))
    assert (decision.answerable, decision.near) == (True, False)


def test_without_near_yes_no_it_is_refused():
    decision = decide(gathered("Can a petrol mower ride on the trike?", NEAR + 0.1), near_yes_no=False)
    assert decision.answerable is False


def test_a_yes_no_question_far_from_its_passages_is_refused():
    decision = decide(gathered("Can a petrol mower ride on the trike?", NEAR - 0.1))
    assert decision.answerable is False


def test_a_question_for_a_value_near_its_passages_is_refused_and_marked_near():
    decision = decide(gathered("Which tools may not ride on the trike?", NEAR + 0.1))
    assert (decision.answerable, decision.near) == (False, True)
