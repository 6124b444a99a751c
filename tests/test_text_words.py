"""One text layer (issue 53): one tokenizer, one stop-word list and one citation-marker pattern in
text/words.py, used by the answer path, `eval --qa`'s marker stripping and the judge's training data
(tools/judge/)."""

from __future__ import annotations

import random

from ragchain_cli.evaluation import qa
from ragchain_cli.text.replies import strip_preamble
from ragchain_cli.text.words import MARKER, STOPWORDS, content_words, without_markers
from tools.judge import data, pairs


def test_a_preamble_citing_passages_with_a_semicolon_is_stripped_like_one_with_a_comma():
    # the preamble's marker is the shared one: "[1; 2]" was left in by its own pattern
    assert strip_preamble("According to the passages [1; 2], ospreys nest in April.") == "Ospreys nest in April."


def test_eval_and_the_answer_path_take_out_the_same_markers():
    answer = "Ospreys [1; 2] nest [3] in April [ 4 ]."
    assert {qa.strip_citations(answer).replace(" ", ""), without_markers(answer).replace(" ", "")} == {
        "OspreysnestinApril."}


def test_a_marker_gives_its_numbers():
    assert MARKER.search("closed [1, 3].").group("numbers") == "1, 3"


def test_content_words_are_lower_cased_tokens_without_stop_words_or_question_words():
    assert content_words("When did the Orrin Bridge charge 1,200 pence?") == {"orrin", "bridge", "charge", "1,200",
                                                                          "pence"}


def test_the_judge_data_weighs_the_shared_content_words():
    weights, _index = data._word_index(["The Orrin Bridge opened in 1911.", "The ferry leaves hourly."])
    assert sorted(weights) == ["1911", "bridge", "ferry", "hourly", "leaves", "opened", "orrin"]


def test_a_near_miss_never_swaps_in_a_capitalised_stop_word():
    missed = {pairs.near_miss("When did the orchestra leave Warsaw?", "The orchestra left Warsaw in 1830.",
                              "Although it rained, However late, Paris waited.", random.Random(seed))
              for seed in range(20)}
    assert missed == {"When did the orchestra leave Paris?"} and {"although", "however"} <= STOPWORDS
