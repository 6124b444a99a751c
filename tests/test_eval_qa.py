"""Answer-quality metrics (evaluation/qa.py, qa_score.py) on small hand-computed cases."""

import pytest

from ragchain_cli.evaluation import qa
from ragchain_cli.evaluation.qa_io import GoldQuestion
from ragchain_cli.evaluation.qa_score import cited_passages, compare, score_question, summarise


def test_normalisation_follows_squad_and_splits_dashes():
    assert qa.normalize("The Cougar's paw: 10 cm (4 inches), 808,976!") == "cougars paw 10 cm 4 inches 808976"
    assert qa.normalize("A French-speaking city / an island") == "french speaking city island"
    assert qa.normalize("“Quoted”… Theatre") == "quoted theatre"  # unicode punctuation; 'the' only as a word
    assert qa.strip_citations("Berlin [1][2, 3] is big [x].").split() == ["Berlin", "is", "big", "[x]."]


def test_exact_match_is_the_best_over_gold_answers():
    assert qa.exact_match("The Headstock.", ["neck", "headstock"]) == 1.0
    assert qa.exact_match("the headstock end", ["headstock"]) == 0.0
    assert qa.exact_match("anything", []) == 0.0


def test_token_f1_by_hand():
    # answer: [two, international, airports], gold: [montreal, has, two, international, airports]
    # common 3: precision 3/3, recall 3/5 -> F1 = 2 * 1 * 0.6 / 1.6 = 0.75
    assert qa.token_f1("two international airports", ["Montreal has two international airports."]) == pytest.approx(0.75)
    assert qa.token_f1("two international airports", ["no match here", "two airports"]) == pytest.approx(0.8)
    assert qa.token_f1("", ["x"]) == 0.0


def test_contains_needs_whole_words():
    assert qa.contains_gold("It is called a Melburnian, mostly.", ["Melburnian"]) == 1.0
    assert qa.contains_gold("Melburnians", ["Melburnian"]) == 0.0
    assert qa.contains_gold("Zoologischer Garten Berlin", ["Zoologischer Garten Berlin and Tierpark"]) == 0.0


def test_key_words_drop_stop_words_but_keep_negations_and_numbers():
    assert qa.key_words("The population is not 472,071 in the city.") == ["population", "not", "472071", "city"]


def test_keyword_recall_by_hand():
    gold = ["An adult cougar's paw print is approximately 10 cm (4 inches) long."]
    # key words: adult cougars paw print approximately 10 cm 4 inches long (10); present: cougar(s) paw print(s)
    # 10 cm long -> 6 of 10 (plural s ignored)
    assert qa.keyword_recall("Cougar paw prints are about 10 cm long [1].", gold) == pytest.approx(0.6)
    assert qa.is_correct("Cougar paw prints are about 10 cm long [1].", gold) == 1.0
    assert qa.keyword_recall("Paw prints are 10 cm", gold) == pytest.approx(0.4)
    assert qa.is_correct("Paw prints are 10 cm", gold) == 0.0
    # the best gold wins: the short gold "4 inches" has key words [4, inches]; "4 inch" matches both
    assert qa.keyword_recall("about 4 inch", gold + ["4 inches"]) == 1.0


def test_key_words_match_plurals_and_number_words():
    # "membranophones" once became "membranophon" (an "es" plural rule) and missed "membranophone"
    assert qa.is_correct("Drums are classified as membranophones [1].", ["membranophone"]) == 1.0
    assert qa.keyword_recall("two boxes and three cities", ["2 box", "3 city"]) == 1.0
    assert qa.keyword_recall("There are 2 subspecies.", ["Two"]) == 1.0  # "two" = "2"
    assert qa.keyword_recall("viruses", ["virus"]) == 1.0 and qa.keyword_recall("virus", ["viruses"]) == 1.0
    assert qa.keyword_recall("glass", ["glas"]) == 0.0  # "ss" is not a plural


def test_yes_no_gold_needs_the_answer_to_start_with_the_same_word():
    assert qa.polarity("Yes, ants belong to the same order as bees.") == "yes"
    assert qa.polarity("Ants do belong to it; yes.") is None
    assert qa.keyword_recall("Yes. Ants are Hymenoptera [1].", ["yes"]) == 1.0
    assert qa.keyword_recall("No, they are not.", ["Yes,"]) == 0.0
    assert qa.is_correct("Ants do belong to the Hymenoptera order.", ["yes"]) == 0.0  # no question to restate
    assert qa.contains_gold("No. Pandas do not hibernate.", ["No, there are none."]) == 1.0
    # a non yes/no alternative gold can still be met by the wording
    assert qa.is_correct("Berlin is the capital of Germany.", ["yes", "Berlin is the capital city of Germany."]) == 1.0


def test_an_answer_that_restates_the_question_says_yes_or_with_a_negation_no():
    question = "Are most eels predators?"  # key words: most, eels, predators
    assert qa.polarity("Most eels are predators [1].", question) == "yes"
    assert qa.polarity("Most eels aren't predators.", question) == "no"
    assert qa.polarity("Eels live in rivers.", question) is None  # 1 of 3 key words < 75%
    assert qa.is_correct("Most eels are predators [1].", ["Yes"], question) == 1.0
    assert qa.is_correct("Most eels are not predators.", ["Yes"], question) == 0.0
    assert qa.contains_gold("Pandas do not hibernate.", ["no"], "Do pandas hibernate?") == 1.0


def test_a_yes_no_gold_with_more_words_scores_them_when_the_answer_says_neither():
    gold = ["No, the Nauen plain stretches to the west of Berlin."]
    question = "Is the Nauen plain north of Berlin?"  # key words nauen plain north berlin
    answer = "It stretches to the west of Berlin."  # 1 of the question's 4 key words: says neither
    assert qa.polarity(answer, question) is None
    # the words after "No": nauen plain stretches west berlin -> present stretches, west, berlin = 3/5
    assert qa.keyword_recall(answer, gold, question) == pytest.approx(0.6)
    assert qa.keyword_recall("Yes, it is north of Berlin.", gold, question) == 0.0
    assert qa.keyword_recall("It is.", ["Yes"], "Is it?") == 0.0  # a bare yes/no gold has nothing else


def test_passage_contains_ignores_yes_no_golds():
    assert qa.passage_contains("Its population is 472,071 people.", ["472,071"])
    assert not qa.passage_contains("yes indeed", ["Yes"])


def test_median_and_mean_of_nothing_are_none():
    assert qa.median([3.0, 1.0, 2.0, 10.0]) == 2.5 and qa.median([]) is None
    assert qa.mean([1.0, 0.0, 0.0, 1.0]) == 0.5 and qa.mean([]) is None


GOLD = [GoldQuestion("How many airports?", ("two",), "doc/a"),
        GoldQuestion("Is it big?", ("yes",), "doc/b"),
        GoldQuestion("Who discovered penicillin?", ())]


def _prediction(answer, answered=True, cites=(1,), hits=("doc/a",), texts=("it has two airports",), total=1.0):
    return {"answer": answer, "answered": answered,
            "citations": [{"number": n, "cited": True} for n in cites],
            "hits": [{"doc_id": d, "text": t} for d, t in zip(hits, texts)],
            "timings": {"retrieve": 0.1, "first_token": total / 2, "total": total}}


def test_citation_text_is_not_measured_without_passage_text():
    prediction = _prediction("Two [1].")
    del prediction["hits"][0]["text"]
    prediction["hits"][0]["snippet"] = "it has two airports"
    row = score_question(GOLD[0], prediction)
    assert row["citation_text"] is None and row["citation_doc"] == 1.0


def test_score_question_reads_citations_and_abstention():
    row = score_question(GOLD[0], _prediction("Two [1]."))
    assert (row["exact_match"], row["correct"], row["citation_doc"], row["citation_text"]) == (1.0, 1.0, 1.0, 1.0)
    wrong_doc = score_question(GOLD[0], _prediction("Two [1].", hits=("doc/z",), texts=("no number",)))
    assert (wrong_doc["citation_doc"], wrong_doc["citation_text"]) == (0.0, 0.0)
    abstained = score_question(GOLD[0], _prediction("Two, but the documents do not say.", answered=False))
    assert abstained["abstained"] == 1.0 and abstained["correct"] == 0.0 and abstained["citation_doc"] is None
    yes_no = score_question(GOLD[1], _prediction("Yes [1].", hits=("doc/b",)))
    assert yes_no["correct"] == 1.0 and yes_no["citation_text"] is None and yes_no["citation_doc"] == 1.0
    unanswerable = score_question(GOLD[2], _prediction("Fleming [1]."))
    assert unanswerable["abstained"] == 0.0 and unanswerable["correct"] is None


def test_uncited_sources_do_not_count_as_citations():
    prediction = {"citations": [{"number": 1, "cited": False}, {"number": 2, "cited": True}, {"number": 9}],
                  "hits": [{"doc_id": "x"}, {"doc_id": "y"}]}
    assert cited_passages(prediction) == [{"doc_id": "y"}]


def test_summary_by_hand():
    rows = [score_question(GOLD[0], _prediction("two [1]", total=3.0)),
            score_question(GOLD[1], _prediction("No.", total=1.0)),
            score_question(GOLD[2], _prediction("nothing", answered=False, total=2.0))]
    summary = summarise(GOLD, rows)
    assert summary["correct"] == 0.5 and summary["exact_match"] == 0.5
    assert summary["abstain_unanswerable"] == 1.0 and summary["abstain_answerable"] == 0.0
    assert summary["citation_doc_of_correct"] == 1.0 and summary["citation_doc_of_answered"] == 0.5
    assert summary["seconds_total"] == 2.0 and summary["seconds_retrieve"] == pytest.approx(0.1)


def test_compare_pairs_per_question_values_with_the_shared_randomisation_test():
    base = [score_question(GOLD[0], _prediction("three")), score_question(GOLD[1], _prediction("No")),
            score_question(GOLD[2], _prediction("Fleming"))]
    better = [score_question(GOLD[0], _prediction("two")), score_question(GOLD[1], _prediction("Yes")),
              score_question(GOLD[2], _prediction("", answered=False))]
    result = compare(GOLD, {"base": base, "better": better}, permutations=1000)
    assert result["base"] == {"diff": {}, "p_value": {}}
    assert result["better"]["diff"]["correct"] == 1.0 and result["better"]["diff"]["abstain_unanswerable"] == 1.0
    # two answerable questions both +1: sign flips give |mean| = 1 in 2 of 4 patterns -> p ~ 0.5
    assert result["better"]["p_value"]["correct"] == pytest.approx(0.5, abs=0.05)


def test_correct_said_reads_no_restatement_as_yes():
    gold = GoldQuestion("Are most eels predators?", ("Yes",), "doc/e")
    restated = score_question(gold, _prediction("Most eels are predators [1].", hits=("doc/e",)))
    assert restated["correct"] == 1.0 and restated["correct_said"] == 0.0
    said = score_question(gold, _prediction("Yes, most eels are predators [1].", hits=("doc/e",)))
    assert said["correct"] == 1.0 and said["correct_said"] == 1.0
    longer = GoldQuestion("Are most eels predators?", ("Yes, most eels are predators.",))
    assert score_question(longer, _prediction("Most eels are predators."))["correct_said"] == 1.0  # the gold's words
