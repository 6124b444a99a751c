"""The answer reader's training examples (tools/judge/reader.py): windows, spans and no-answer labels."""

from __future__ import annotations

import random

import numpy as np

from tokenizers import Tokenizer

from ragchain_cli.stores.embedders import model_folder
from tools.judge.reader import examples, feed
from tools.judge.reader_export import LONGEST, f1, spans_of

CONTEXT = ("The greenhouse stands at the north end.  The heating switches on below 8 °C and off again at 12 °C. "
           "Watering is done by a rota. Each plot holder takes one week in turn.")


def row(**extra) -> dict:
    return {"title": "Allotment_greenhouse", "context": CONTEXT, "question": "When does the heating switch on?",
            "answers": ["below 8 °C"], "answer_starts": [CONTEXT.index("below 8")], "is_impossible": False, **extra}


def test_an_answer_window_holds_the_answer_at_its_span():
    made = examples(row(), random.Random(1), negatives=0.0)
    assert [e.text[e.start:e.end] for e in made] == ["below 8 °C"]


def test_a_window_is_read_after_the_article_title():
    made = examples(row(), random.Random(1), negatives=0.0)
    assert made[0].text.startswith("Allotment greenhouse: ")


def test_another_window_of_the_paragraph_has_no_answer_and_lacks_it():
    made = [e for e in examples(row(), random.Random(1), negatives=1.0) if e.kind == "other-window"]
    assert made[0].start == -1 and "below 8 °C" not in made[0].text


def test_an_unanswerable_question_has_no_answer():
    made = examples(row(is_impossible=True, answers=[], plausible_answers=["12 °C"],
                        plausible_starts=[CONTEXT.index("12 °C")]), random.Random(1), negatives=0.0)
    assert [(e.kind, e.start) for e in made] == [("unanswerable", -1)]


def test_the_answer_span_is_labelled_on_its_tokens():
    tokenizer = Tokenizer.from_file(str(model_folder("all-MiniLM-L6-v2") / "tokenizer.json"))
    made = examples(row(), random.Random(1), negatives=0.0)
    inputs, labels = feed(tokenizer, made, 128)
    first, last = labels[0]
    assert tokenizer.decode(list(inputs["input_ids"][0][first:last + 1])) == "below 8 °c"


def logits(length: int, peaks: dict[int, float]) -> np.ndarray:
    out = np.zeros(length)
    for position, value in peaks.items():
        out[position] = value
    return out


def test_the_likeliest_span_runs_from_the_start_peak_to_the_end_peak():
    inside = np.array([False, False, True, True, True, True, False])
    found, _ = spans_of(logits(7, {3: 8.0}), logits(7, {4: 8.0}), inside)
    assert found[0][:2] == (3, 4)


def test_no_answer_wins_when_the_first_position_peaks():
    inside = np.array([False, False, True, True, True, True, False])
    found, none = spans_of(logits(7, {0: 8.0}), logits(7, {0: 8.0}), inside)
    assert none > found[0][2]


def test_a_span_never_ends_before_it_starts():
    inside = np.array([False] + [True] * 6)
    found, _ = spans_of(logits(7, {5: 8.0}), logits(7, {2: 8.0}), inside)
    assert all(first <= last for first, last, _ in found)


def test_no_span_is_longer_than_the_longest_answer():
    size = LONGEST + 10
    inside = np.array([False] + [True] * (size - 1))
    found, _ = spans_of(logits(size, {1: 9.0}), logits(size, {size - 1: 9.0}), inside)
    assert all(last - first < LONGEST for first, last, _ in found)


def test_the_spans_and_no_answer_sum_to_at_most_one():
    rng = np.random.default_rng(3)
    inside = np.array([False] + [True] * 20)
    found, none = spans_of(rng.normal(size=21), rng.normal(size=21), inside)
    assert sum(p for _, _, p in found) + none <= 1.0 + 1e-9


def test_squad_f1_leaves_out_articles():
    assert f1("the 8 °C", "8 °C") == 1.0


def test_squad_f1_of_a_neighbours_number_is_partial():
    assert f1("12 °C", "8 °C") == 0.5
