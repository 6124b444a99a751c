"""Which rows tools/judge/reword.py rewords, and which of a model's replies it keeps as a rewording."""

from __future__ import annotations

from tools.judge.reword import chosen, reworded
from tools.judge.split import Split


def test_a_reply_in_other_words_is_kept():
    assert reworded("What is the size of the factory's workforce?\n", "How many employees does the factory have?")


def test_a_reply_that_is_not_a_question_is_dropped():
    assert reworded("The factory employs many people.", "How many employees does the factory have?") == ""


def test_a_reply_with_the_original_words_is_dropped():
    assert reworded("How many employees does the factory have?", "How many employees does the factory have?") == ""


def rows() -> list[dict]:
    return [{"id": f"{n:024x}", "title": f"Article_{n % 40}", "question": f"Question {n}?",
             "is_impossible": n % 5 == 0} for n in range(400)]


def test_held_out_rows_are_chosen_only_for_the_held_out_share():
    split = Split.of([{**r, "context": "A paragraph."} for r in rows()])
    picked = chosen([{**r, "context": "A paragraph."} for r in rows()], 20, 0, seed=1)
    assert not any(r["title"] in split.titles for r in picked)


def test_a_quarter_of_the_chosen_rows_are_unanswerable():
    picked = chosen([{**r, "context": "A paragraph."} for r in rows()], 20, 0, seed=1)
    assert sum(r["is_impossible"] for r in picked) == 5
