"""Answer-quality metrics (evaluation/qa.py, qa_score.py) on small hand-computed cases."""

import pytest

from ragchain_cli.evaluation import qa
from ragchain_cli.evaluation.qa_io import GoldQuestion
from ragchain_cli.evaluation.qa_score import cited_passages, compare, score_question, summarise


def test_normalisation_is_squad_v2s_normalize_answer():
    # lower -> delete string.punctuation -> articles to spaces -> collapse whitespace, in that order
    assert qa.normalize("The Cougar's paw: 10 cm (4 inches), 808,976!") == "cougars paw 10 cm 4 inches 808976"
    assert qa.normalize("A French-speaking city / an island") == "frenchspeaking city island"  # dashes deleted
    assert qa.normalize("An  apple\tand THE pear") == "apple and pear"
    assert qa.normalize("the-end") == "theend"  # punctuation goes first, so "the" is no longer a word
    assert qa.normalize("“Quoted”… Theatre") == "“quoted”… theatre"  # only ASCII punctuation is deleted
    assert qa.tokens("") == [] and qa.tokens("The a an.") == []
    assert qa.strip_citations("Berlin [1][2, 3] is big [x].").split() == ["Berlin", "is", "big", "[x]."]


def test_exact_match_is_squad_compute_exact_best_over_golds():
    assert qa.exact_match("the Denver Broncos", ["Denver Broncos", "Broncos"]) == 1.0
    assert qa.exact_match("The Headstock.", ["neck", "headstock"]) == 1.0
    assert qa.exact_match("the headstock end", ["headstock"]) == 0.0
    assert qa.exact_match("2,000", ["2000"]) == 1.0 and qa.exact_match("two", ["2"]) == 0.0


def test_no_gold_is_squads_no_answer_gold():
    # no gold (or only golds that normalise to nothing) stands for "": the empty answer scores 1, any other 0
    assert qa.exact_match("", []) == 1.0 and qa.token_f1("", []) == 1.0
    assert qa.exact_match("anything", []) == 0.0 and qa.token_f1("Fleming", []) == 0.0
    assert qa.exact_match("", ["the"]) == 1.0  # the gold "the" normalises to nothing and is dropped
    assert qa.exact_match("The.", []) == 1.0  # an answer that normalises to nothing is the empty answer
    assert qa.token_f1("", ["x"]) == 0.0 and qa.exact_match("", ["x"]) == 0.0


def test_token_f1_by_hand():
    # [two, international, airports] vs [montreal, has, two, international, airports]:
    # common 3, precision 3/3, recall 3/5 -> 2 * 1 * 0.6 / 1.6 = 0.75
    assert qa.token_f1("two international airports", ["Montreal has two international airports."]) == pytest.approx(0.75)
    # best gold: [two, airports] -> common 2, precision 2/3, recall 1 -> 0.8
    assert qa.token_f1("two international airports", ["no match here", "two airports"]) == pytest.approx(0.8)
    # repeats count as often as both sides hold them: [cat, cat, cat] vs [cat, sat, cat] -> common 2, P = R = 2/3
    assert qa.token_f1("the cat cat cat", ["Cat sat, the cat."]) == pytest.approx(2 / 3)
    # [yes, it, is] vs [yes]: precision 1/3, recall 1 -> 2 * (1/3) / (4/3) = 0.5; F1 has no yes/no rule
    assert qa.token_f1("Yes, it is.", ["Yes."]) == pytest.approx(0.5)
    assert qa.token_f1("Paris", ["London"]) == 0.0


def test_contains_needs_whole_words():
    assert qa.contains_gold("It is called a Melburnian, mostly.", ["Melburnian"]) == 1.0
    assert qa.contains_gold("Melburnians", ["Melburnian"]) == 0.0
    assert qa.contains_gold("Zoologischer Garten Berlin", ["Zoologischer Garten Berlin and Tierpark"]) == 0.0
    assert qa.contains_gold("There is no evidence.", ["Yes", "evidence"]) == 1.0  # the best gold


def test_key_words_drop_stop_words_but_keep_negations_numbers_and_yes():
    assert qa.key_words("The population is not 472,071 in the city.") == ["population", "not", "472071", "city"]
    assert qa.key_words("Yes, it is.") == ["yes"]
    assert qa.key_words("It is there, it is.") == ["it", "is", "there"]  # only stop words: all of them


def test_keyword_recall_by_hand():
    gold = ["An adult cougar's paw print is approximately 10 cm (4 inches) long."]
    # key words: adult cougars paw print approximately 10 cm 4 inches long (10)
    # "An adult cougar's paw print is 10 cm long": adult cougars paw print 10 cm long -> 7 of 10
    assert qa.keyword_recall("An adult cougar's paw print is 10 cm long", gold) == pytest.approx(0.7)
    assert qa.is_correct("An adult cougar's paw print is 10 cm long", gold) == 1.0
    # plain tokens: "cougar" is not "cougars", "prints" not "print" -> paw 10 cm long = 4 of 10
    assert qa.keyword_recall("Cougar paw prints are about 10 cm long [1].", gold) == pytest.approx(0.4)
    assert qa.is_correct("Cougar paw prints are about 10 cm long [1].", gold) == 0.0
    # the best gold wins: "4 inches" has key words [4, inches]; "about 4 inch" holds 4 -> 1/2 (the long gold 1/10)
    assert qa.keyword_recall("about 4 inch", gold + ["4 inches"]) == pytest.approx(0.5)
    assert qa.is_correct("x", gold, threshold=0.0) == 1.0 and qa.keyword_recall("x", []) == 0.0


def test_key_words_are_plain_tokens_no_plurals_no_number_words():
    assert qa.keyword_recall("Drums are membranophones.", ["membranophone"]) == 0.0
    assert qa.keyword_recall("There are 2 subspecies.", ["Two"]) == 0.0
    assert qa.keyword_recall("There are two subspecies.", ["Two"]) == 1.0


def test_yes_no_gold_counts_the_answers_first_word_and_reads_no_restatement():
    assert qa.polar_word("Yes, ants belong to the same order as bees.") == "yes"
    assert qa.polar_word("Ants do belong to it; yes.") is None
    assert qa.keyword_recall("Yes. Ants are Hymenoptera [1].", ["yes"]) == 1.0
    assert qa.keyword_recall("No, they are not.", ["Yes,"]) == 0.0
    assert qa.contains_gold("No. Pandas do not hibernate.", ["No, there are none."]) == 1.0
    assert qa.is_correct("Yes", ["No, there are none."]) == 0.0
    # no restatement reading: an answer that does not start with yes/no is scored plainly on the gold
    assert qa.is_correct("Most eels are predators [1].", ["Yes"]) == 0.0  # key word "yes" absent
    assert qa.is_correct("Pandas do not hibernate.", ["no"]) == 0.0  # key word "no" absent
    # "Yes, most eels are predators.": key words yes most eels predators; 3 of 4 present -> 0.75
    assert qa.keyword_recall("Most eels are predators.", ["Yes, most eels are predators."]) == pytest.approx(0.75)
    # a non yes/no alternative gold can still be met by the wording
    assert qa.is_correct("Berlin is the capital of Germany.", ["yes", "Berlin is the capital city of Germany."]) == 1.0
    # an answer starting with yes/no against a gold that is not yes/no: the plain measure
    assert qa.keyword_recall("Yes, Berlin.", ["Berlin"]) == 1.0


def test_passage_contains_ignores_yes_no_golds():
    assert qa.passage_contains("Its population is 472,071 people.", ["472,071"])
    assert not qa.passage_contains("Its population is 472,071 people.", ["472,072"])
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
    # overall: answerable 1 and 0, the unanswerable one abstained -> 1: (1 + 0 + 1) / 3
    assert summary["overall_correct"] == pytest.approx(2 / 3) and summary["overall_exact_match"] == pytest.approx(2 / 3)
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
    assert result["better"]["diff"]["overall_correct"] == 1.0  # 0/3 -> 3/3
    # two answerable questions both +1: sign flips give |mean| = 1 in 2 of 4 patterns -> p ~ 0.5
    assert result["better"]["p_value"]["correct"] == pytest.approx(0.5, abs=0.05)


def test_a_restatement_is_not_read_as_yes():
    gold = GoldQuestion("Are most eels predators?", ("Yes",), "doc/e")
    restated = score_question(gold, _prediction("Most eels are predators [1].", hits=("doc/e",)))
    assert restated["correct"] == 0.0 and restated["keyword_recall"] == 0.0
    said = score_question(gold, _prediction("Yes, most eels are predators [1].", hits=("doc/e",)))
    assert said["correct"] == 1.0 and said["contains"] == 1.0
    assert said["exact_match"] == 0.0 and said["f1"] == pytest.approx(2 * (1 / 5) / (6 / 5))  # SQuAD's, no rule


def test_overall_figures_follow_squad_v2_on_unanswerable_questions():
    # an unanswerable question scores 1 on the overall figures when ask abstained, 0 when it answered
    answered = score_question(GOLD[2], _prediction("Fleming [1]."))
    abstained = score_question(GOLD[2], _prediction("The documents do not say.", answered=False))
    for name in ("overall_exact_match", "overall_f1", "overall_correct"):
        assert (answered[name], abstained[name]) == (0.0, 1.0)
    # on an answerable question they are the answerable values; an abstention is the empty answer
    right = score_question(GOLD[0], _prediction("two airports [1]"))  # [two, airports] vs [two]: P 1/2, R 1
    assert (right["overall_exact_match"], right["overall_correct"]) == (0.0, 1.0)
    assert right["overall_f1"] == pytest.approx(2 / 3)
    silent = score_question(GOLD[0], _prediction("two", answered=False))
    assert (silent["overall_exact_match"], silent["overall_f1"], silent["overall_correct"]) == (0.0, 0.0, 0.0)
