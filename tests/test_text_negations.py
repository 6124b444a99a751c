"""text/negations.py: the negated words of a question and whether a passage sentence can deny them."""

from ragchain_cli.text.negations import denies, negated_words, never_said


def test_the_main_claims_negation_and_its_word():
    assert negated_words("What cannot be recycled in the blue bin?") == [("cannot be recycled", "recycled")]
    assert negated_words("Which towns did the railway never reach?") == [("never reach", "reach")]
    assert negated_words("On which corpus does the tagger not improve F1?") == [("not improve", "improve")]
    assert negated_words("What does the non-alcoholic punch contain?") == [("non-alcoholic", "alcoholic")]


def test_negations_of_context_are_not_the_claim():
    assert negated_words("What happens to parcels that are not collected within 14 days?") == []
    assert negated_words("If the ferry does not run, how do I reach the island?") == []
    assert negated_words("I can't find the form. Where is the claim form kept?") == []
    assert negated_words("How do the yes/no answers of the survey compare?") == []


def test_a_sentence_denies_by_negation_near_the_word_or_an_exception():
    assert denies("Lead paint is not used on the railings.", "used") is True
    assert denies("All lockers are emptied on Fridays except those in the staff corridor.", "emptied") is True
    assert denies("Rooms 1 to 12 are non-smoking.", "smoking") is True
    assert denies("A zinc primer is used on the railings.", "used") is False
    assert denies("The railings are painted every year.", "used") is None


def test_never_said_needs_the_word_held_and_never_denied():
    question = "Which paint is not used on the railings?"
    assert never_said(question, ["A zinc primer is used on the railings.", "The quay was built in 1890."]) == ["not used"]
    assert never_said(question, ["A zinc primer is used.", "Lead paint is not used any more."]) == []
    assert never_said(question, ["The railings are painted every year."]) == []  # a paraphrase: nothing to judge


def test_a_word_of_its_own_can_say_the_negative():
    question = "Where are visitors not allowed to walk?"
    allowed = "Visitors are allowed on the marked paths."
    assert never_said(question, [allowed]) == ["not allowed"]
    assert never_said(question, [allowed, "The north meadow is closed to visitors until July."]) == []
    assert never_said(question, [allowed, "Walking on the dunes is forbidden."]) == []
    assert never_said(question, [allowed, "The hide stands close to the water."]) == ["not allowed"]  # "close", not "closed"
