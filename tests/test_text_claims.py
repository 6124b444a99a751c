"""The restatement reader (text/claims.py) and the reply rules (text/replies.py), one rule a test,
on invented sentences (the broad case table is tests/cases/answers.yaml)."""

from ragchain_cli.text.claims import (comparison, is_polar, opposite_side, side_case, side_of, state_side,
                                      takes_side)
from ragchain_cli.text.replies import says_unknown, shorten, speaks_of_passages
from ragchain_cli.text.words import stems_of, values


def test_yes_no_questions_are_recognised():
    assert is_polar("Is the ferry free?") and is_polar("Can't the kiln reach 1200 degrees?")
    assert is_polar("In winter, does the ferry run daily?")  # the main clause after a leading phrase
    assert not is_polar("Is the flag green or white?") and not is_polar("In 1990, who ran the mill?")
    assert not is_polar("Island ferries: when do they leave?")
    assert is_polar("Were 20 or more boats lost?")  # "or more" is a comparison, not two alternatives


def test_numbers_in_words_and_digits_are_the_same_number():
    assert values("twelve boats and 1,200 nets") == [12.0, 1200.0]
    assert values("3.5 million visitors") == [3_500_000.0]
    assert "12" in stems_of("twelve eggs") and "1200" in stems_of("1,200 eggs")


def test_a_comparison_is_worked_out_on_the_answers_number():
    assert comparison("Was the bridge built before 1900?")[1:] == (1900.0, None)
    assert side_of("The bridge was built in 1890.", "Was the bridge built before 1900?") == "yes"
    assert side_of("The bridge was built in 1925.", "Was the bridge built before 1900?") == "no"
    assert side_of("The hall seats 450 people.", "Does the hall seat more than four hundred people?") == "yes"
    assert side_of("The tank holds 15 litres.", "Does the tank hold between 10 and 20 litres?") == "yes"
    assert side_of("The tank holds 25 litres.", "Does the tank hold at least thirty litres?") == "no"


def test_another_number_or_a_negated_claim_says_no():
    assert side_of("The kiln reaches 900 degrees.", "Does the kiln reach 1200 degrees?") == "no"
    assert side_of("The ferry does not run on Sundays.", "Does the ferry run on Sundays?") == "no"
    assert side_of("The ferry never runs on Sundays [1].", "Does the ferry run on Sundays?") == "no"


def test_a_negation_inside_a_relative_clause_negates_nothing_of_the_claim():
    question = "Are applicants refused a permit?"
    assert side_of("Applicants who have not paid the fee are refused a permit.", question) != "no"


def test_a_contrast_is_no_plain_yes_or_no():
    question = "Does road grit harm frogs?"
    assert side_of("Road grit does not kill frogs, but it slows their growth.", question) is None
    assert side_of("Frogs avoid road grit except in spring.", "Do frogs avoid road grit?") is None


def test_a_restatement_of_every_word_of_the_claim_says_yes_first():
    assert state_side("The ferry runs daily in winter [1].", "In winter, does the ferry run daily?") \
        == "Yes, the ferry runs daily in winter [1]."
    assert side_of("Every kiln reaches different heats.", "Does every kiln reach the same heat?") is None
    assert side_of("Kilns need vents.", "Do all kilns need vents?") is None  # "all" is the claim


def test_a_common_word_after_yes_is_lower_case_and_a_name_keeps_its_capital():
    passages = ["Sturdy boots are recommended for the ridge walk.", "The walk starts at Hollins Farm."]
    assert side_case("Yes, Boots are recommended.", "Are boots recommended?", passages) == "Yes, boots are recommended."
    assert side_case("Yes, Hollins Farm is the start.", "Is Hollins Farm the start?", passages) \
        == "Yes, Hollins Farm is the start."


def test_an_answer_must_take_a_side_and_only_one():
    question = "Is the reading room closed in May?"
    assert not takes_side("The reading room is a quiet place.", question)
    assert opposite_side("No, the reading room is closed in May.", question)
    assert not opposite_side("No, the reading room is open in May.", question)


def test_refusals_are_replies_about_the_passages_or_the_speaker():
    assert says_unknown("I do not know.") and says_unknown("The passages do not mention the fee.")
    assert says_unknown("This is not stated in the text.") and says_unknown("Not mentioned.")
    assert says_unknown("The model gave no answer from the retrieved passages.") and says_unknown("")
    assert not says_unknown("Applications whose income is not stated are rejected.")
    assert not says_unknown("No, the ferry does not run on Sundays.")


def test_a_remark_on_the_passages_is_no_answer_but_a_passage_as_a_way_through_is_a_fact():
    assert speaks_of_passages("The passage is about the ferry, not the bridge.")
    assert speaks_of_passages("The passage on kilns is not relevant to the question.")
    assert not speaks_of_passages("The passage was first navigated by Amundsen in 1906.")
    assert not speaks_of_passages("The passages through the Alps close in winter.")
    assert not speaks_of_passages("The passage of the act in 1867 made it a province.")


def test_a_preamble_is_stripped_but_a_fact_that_opens_with_documents_is_kept():
    assert shorten("According to the passage [2], the fee is ten pounds. It rose.") == "The fee is ten pounds."
    assert shorten("In documents from 1920, the town is called Oldbury.") == \
        "In documents from 1920, the town is called Oldbury."
    assert shorten("Smith et al. (2019) found the effect. It was small.") == "Smith et al. (2019) found the effect."


def test_two_things_the_question_names_are_compared_on_their_numbers():
    question = "Did the tannery close earlier than the brewery?"
    assert side_of("The tannery closed in 1971 and the brewery in 1980 [1].", question) == "yes"
    assert side_of("The brewery closed in 1960 and the tannery in 1975.", question) == "no"
    assert side_of("Ruth was born in 1950 and Ben in 1946.", "Is Ruth older than her cousin Ben?") == "no"
    assert side_of("The pier is 300 m long and the jetty 120 m.", "Is the pier longer than the jetty?") == "yes"
    assert side_of("The tannery closed in 1971.", question) is None  # one number: nothing to compare


def test_a_year_inside_a_range_of_years_is_worked_out_not_claimed():
    from ragchain_cli.text.compare import operands

    answer, question = "The mill was open from 1801 until 1877.", "Was the mill open in 1850?"
    assert side_of(answer, question) == "yes" and operands(answer, question) == {1850.0}
    assert operands("The mill was open in 1850.", question) == set()


def test_an_answer_to_a_comparison_shortened_from_a_passage_sentence_is_read_on_its_number():
    question = "Must entrants to the county chess league be at least 12?"
    passages = ["Entrants to the county chess league must be 10 or older on 1 January."]
    assert side_of("Entrants must be 10 or older on 1 January.", question) is None  # about whom?
    assert side_of("Entrants must be 10 or older on 1 January.", question, passages) == "no"
    assert side_of("Members must be 10 or older.", question, ["Members of the golf club must be 10 or older."]) is None


def test_a_negation_of_what_the_question_does_not_ask_is_not_the_answers_side():
    assert side_of("The moor road is not gritted, but it is open to lorries.", "Is the moor road open to lorries?") \
        == "yes"  # "not" negates "gritted"
    assert side_of("Goats do not need a tag, but sheep must be tagged at birth.", "Do sheep need a tag?") \
        == "yes"  # "not" is of the goats
    assert side_of("The flood reached the mill but not the bakery.", "Did the flood reach the bakery?") == "no"
    assert side_of("Road grit does not kill frogs, but it slows their growth.", "Does road grit harm frogs?") is None
    answer = "The ferry runs on weekdays but not on Sundays."
    assert side_of(answer, "Does the ferry run on Sundays?") == "no"
    assert side_of(answer, "Does the ferry run on weekdays?") == "yes"


def test_a_comparison_the_answer_repeats_is_the_subject_not_the_claim():
    question = "Do boats over ten metres long pay a mooring fee?"
    assert side_of("Boats over ten metres long pay a mooring fee.", question) == "yes"


def test_a_question_about_one_case_answered_from_a_passage_about_another_is_unmet():
    from ragchain_cli.text.conditions import unmet

    passages = ["The ferry carried 9,000 cars in 2022, up from 7,500 in 2021.", "The first toll is £4."]
    assert unmet("The ferry carried 9,000 cars.", "How many cars did the ferry carry in 2020?", passages) == ["2020"]
    assert unmet("The ferry carried 9,000 cars.", "How many cars did the ferry carry in 2022?", passages) == []
    assert unmet("The toll is £4.", "What is the second toll?", passages) == ["second"]
    assert unmet("The ferry carried 9,000 cars.", "Which year did the ferry not run?", passages) == ["not"]
    excepted = ["It gains on all except GENIA."]
    assert unmet("The tagger ties on GENIA.", "Where does the tagger not gain?", excepted) == []
    asked = "I can't sign in. How do I get back into my account?"
    assert unmet("Use the reset page.", asked, ["Use the reset page to get back into your account."]) == []
    rivers = ["The Aire and the Calder meet at Carrow."]
    assert unmet("The Aire and the Calder.", "Which two rivers meet at Carrow?", rivers) == []
    wed = ["Tom Hale married Ada Reid in 1901."]
    assert unmet("Ada Reid.", "Whom did Tom Hale's son marry?", wed) == ["son"]
    assert unmet("Ada Reid.", "Whom did Tom Hale marry?", wed) == []
    assert unmet("In 1901.", "When did St Mary's Hospital open?", ["St Mary's Hospital opened in 1901."]) == []


def test_no_and_then_a_clause_that_says_yes_is_both_sides():
    question = "Does the yeast need to be kept in a fridge?"
    assert opposite_side("No, the yeast must not be frozen but must be kept in a fridge.", question)
    assert not opposite_side("No, the yeast must not be kept in a fridge.", question)
