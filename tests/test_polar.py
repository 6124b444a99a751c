"""Yes/no questions: which they are, and the side an answer takes said first (polar.py)."""

from ragchain_cli.generate.polar import is_polar, side_of, side_problem, state_side, takes_side
from ragchain_cli.generate.support import check_support


def test_yes_no_questions_are_recognised_and_an_answer_must_take_a_side():
    assert is_polar("Is the ant a marsupial?") and is_polar("Can't drums have two heads?")
    assert is_polar("does Montreal contain the largest church in Canada?")
    assert not is_polar("Is the flag red or blue?") and not is_polar("Where is Melbourne situated?")
    assert not is_polar("Island ferries: when do they leave?")  # "Is" only as a word of its own
    assert is_polar("On average, are cougar males heavier than females?")  # after a leading phrase
    assert is_polar("Founded by Peter I in 1703, was it the capital for two hundred years?")
    assert not is_polar("In 1990, who was the mayor?") and not is_polar("Where, if anywhere, is it sold?")
    question = "Does Montreal contain the largest church in Canada?"
    assert takes_side("Yes, Saint Joseph's Oratory is the largest church in Canada.", question)
    assert takes_side("No.", question)
    assert takes_side("Montreal contains the largest church in Canada [1].", question)  # restates the claim
    assert not takes_side("Montreal has four Roman Catholic basilicas [3].", question)


def test_an_answer_that_restates_the_claim_says_yes_first():
    question = "Did Suharto resign as president?"
    assert state_side("Suharto resigned as president [1].", question) == "Yes, Suharto resigned as president [1]."
    assert state_side("Lobsters are invertebrates.", "Are lobsters invertebrates?") == "Yes, lobsters are invertebrates."
    assert state_side("The flute has been dated to prehistoric times [2].", "Has the flute been dated to prehistoric times?") \
        == "Yes, the flute has been dated to prehistoric times [2]."


def test_a_negated_claim_or_another_number_or_rank_says_no_first():
    assert state_side("Lobsters are not kosher.", "Are lobsters kosher?") == "No, lobsters are not kosher."
    assert state_side("Zebras never sleep standing up [1].", "Do zebras sleep standing up?").startswith("No, zebras never")
    question = "Is Montreal's economy the third largest of all cities in Canada?"
    assert state_side("Montreal's economy is the second largest of all cities in Canada [1].", question) \
        == "No, Montreal's economy is the second largest of all cities in Canada [1]."
    assert side_of("Nairobi was founded in 1906 [1].", "Was Nairobi founded in 1899?") == "no"
    assert side_of("The population of Nairobi is about 5 million [1].", "Is the population of Nairobi about six million?") == "no"
    assert side_of("Nairobi was founded in 1899 [1].", "Was Nairobi founded in 1899?") == "yes"  # the marker is no number


def test_no_side_is_read_off_an_answer_that_does_not_restate_or_qualifies_the_claim():
    question = "Did the Moche people worship lobsters?"
    answer = "The Moche people worshipped the sea and its animals [1]."  # lobsters: not said
    assert side_of(answer, question) is None and state_side(answer, question) == answer
    assert side_of("Ants live on every continent except Antarctica.", "Do ants live in Antarctica?") is None
    assert side_of("Yes, they do.", "Do ants live in Antarctica?") is None  # already says it
    assert side_of("The mayor is Gerald Tremblay.", "Who is the mayor of Montreal?") is None  # not a yes/no question
    assert side_of("Octopuses have two eyes [1].", "Do octopuses have three eyes?") == "no"
    assert side_of("Octopuses have eyes [1].", "Do octopuses have three eyes?") is None  # the number asked is not said
    assert side_of("Every drumhead makes different sounds [2].", "Does every drumhead make the same sound?") is None
    assert side_of("Ants build nests.", "Do all ants build nests?") is None  # "all" is the claim
    assert side_of("Trumpeters were among the most heavily guarded [1].", "Were trumpeters heavily guarded?") == "yes"


def test_a_yes_claims_the_numbers_and_names_of_the_question_and_is_checked_for_them():
    question = "Was Dizzy Gillespie a famous trumpeter in 1998?"
    passages = ["Dizzy Gillespie was a trumpeter, bandleader and composer. He died in 1993."]
    answer = state_side("Dizzy Gillespie was a famous trumpeter in 1998 [1].", question)
    assert answer.startswith("Yes, ")
    checked = check_support(answer, question, passages)
    assert not checked.supported and checked.missing == ["1998"]
    assert check_support("Yes, he was [1].", "Was Dizzy Gillespie a trumpeter in 1993?", passages).supported
    assert check_support("No, he died in 1993 [1].", question, passages).supported  # "No" claims no 1998
    closed = ["Heron Inlet is closed to all sampling from 1 April to 15 July to protect nesting birds."]
    invented = check_support("Yes, Heron Inlet is closed in August [1].", "Is Heron Inlet closed in August?", closed)
    assert not invented.supported and invented.missing == ["August"] and invented.apart == []
    assert invented.reason() == "the passages do not contain August"
    assert check_support("Yes, Heron Inlet is closed in April [1].", "Is Heron Inlet closed in April?", closed).supported
    apart = closed + ["More than 70 percent of the solar yield arrives between April and August."]
    scattered = check_support("Yes, Heron Inlet is closed in August [1].", "Is Heron Inlet closed in August?", apart)
    assert not scattered.supported and scattered.missing == [] and scattered.apart == ["August"]  # one claim, one passage
    assert scattered.reason() == "no one passage holds August together with Heron, Inlet"


def test_an_answer_that_takes_no_side_or_both_is_not_a_usable_yes_or_no():
    question = "Is Heron Inlet closed to sampling in May?"
    assert side_problem("The passage is not a fact, but rather a reference to a fact.", question) \
        == "the answer does not say yes or no"
    assert side_problem("No, Heron Inlet is closed to sampling in May [1].", question) \
        == 'the answer says "no" and then the opposite'
    assert side_problem("Yes, Heron Inlet is not closed to sampling in May.", question) \
        == 'the answer says "yes" and then the opposite'
    assert side_problem("Yes, Heron Inlet is closed to sampling in May [1].", question) == ""
    assert side_problem("No, it is closed from 1 April to 15 July [1].", question) == ""  # no side read off the rest
    assert side_problem("Heron Inlet is closed to sampling in May [1].", question) == ""  # restates: takes a side
    assert side_problem("No, it is closed.", "Is Heron Inlet not closed in May?") == ""  # a negated question
    assert side_problem("No giant pandas attack humans [1].", "Do giant pandas attack humans?") == ""  # "no" negates
    assert side_problem("No, every drumhead makes different sounds.", "Does every drumhead make the same sound?") == ""
    assert side_problem("The passage is a reference.", "When is Heron Inlet closed?") == ""  # not a yes/no question
