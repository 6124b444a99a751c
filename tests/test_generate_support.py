"""The answer checks as pure logic: preamble stripping, one sentence, key content found in the
passages, refusals recognised, IDF coverage and sentence selection (hand-made cases, no model)."""

from __future__ import annotations

import math

from ragchain_cli.answer.generation import SentenceStream
from ragchain_cli.answer.decide import score
from ragchain_cli.answer.gather import Signals, question_weights, share, signals
from ragchain_cli.answer.select import choose, score_sentences
from ragchain_cli.answer.support import Support, check_support, key_terms
from ragchain_cli.text.replies import says_unknown, shorten
from ragchain_cli.text.sentences import sentences
from ragchain_cli.text.words import TermStats, stems_of
from ragchain_cli.types import Chunk, Hit


def select_context(question, hits, count_tokens, budget_tokens, weights, encoder=None, passages=4, neighbours=1,
                   dedupe=True):
    """The context the model reads: the hits' sentences scored, then chosen within the budget."""
    return choose(score_sentences(question, hits, weights, encoder, passages), count_tokens, budget_tokens,
                  neighbours, dedupe)


def stats(freqs: dict[str, int], total: int = 100) -> TermStats:
    return TermStats(total=total, doc_freq=lambda words: {w: freqs.get(w, 0) for w in words})


def hit(n: int, text: str, explain: dict | None = None) -> Hit:
    return Hit(f"c{n}", 1.0 / n, doc_id=f"d{n}", explain=explain or {}, chunk=Chunk(f"c{n}", f"d{n}", text))


def test_preamble_is_stripped_and_the_answer_cut_to_one_sentence():
    assert shorten("According to the passage [2], ants are insects. They live in colonies.") == "Ants are insects."
    assert shorten("Based on the provided passages, the starter is fed flour.") == "The starter is fed flour."
    assert shorten("The passage states that Dr. Smith left in 1990. He came back.") == "Dr. Smith left in 1990."
    assert shorten("Quorvath.") == "Quorvath."


def test_generation_stops_once_the_first_sentence_has_ended_and_the_preamble_is_stripped():
    stream = SentenceStream()
    fed = []
    for piece in ["Acc", "ording to", " the passage", ", the starter", " is fed with flour", " and water.", " It",
                  " is old."]:
        stream.feed(piece)
        fed.append(piece)
        if stream.done:
            break
    assert stream.done and fed[-1] == " It"  # the sentence is known to be over when the next one starts
    assert stream.close() == "The starter is fed with flour and water."


def test_invented_names_and_numbers_are_unsupported():
    passages = ["Reykjavik is a city; about 120,000 people live there.", "Faraday studied electricity."]
    assert not check_support("Reykjavik has 1.58 million people [1].", "How many people live in Reykjavik?",
                             passages).supported
    invented = check_support("Michael Faraday discovered penicillin.", "Who discovered penicillin?", passages,
                             stats({"faraday": 3}))
    assert not invented.supported and invented.missing == ["michael"]  # in no chunk of the index: rare
    found = check_support("About 120,000 people [1].", "How many people live in Reykjavik?", passages)
    assert found.supported and found.checked == ["120,000"]


def test_a_number_counts_only_in_a_passage_about_the_question_or_answer():
    passages = ["The river is 12 km long at its mouth.", "Giraffes eat leaves from tall trees."]
    invented = check_support("A giraffe's tongue is 12% long [1].", "How long is a giraffe's tongue?", passages)
    assert not invented.supported and invented.missing == ["12"]
    passages[1] = "A giraffe's tongue reaches 45 cm."
    assert check_support("It is 45 cm long [2].", "How long is a giraffe's tongue?", passages).supported


def test_rare_words_must_be_found_common_ones_need_not():
    freqs = {"gelatinous": 0, "usually": 40}
    keys = key_terms("It is usually gelatinous.", "What is the texture?", stats(freqs))
    assert keys == ["gelatinous"]
    assert not check_support("It is usually gelatinous.", "What is the texture?", ["It is soft."],
                             stats(freqs)).supported
    assert check_support("It is usually soft.", "What is the texture?", ["It is soft."], stats(freqs)).supported


def test_words_of_the_question_are_not_key_content():
    assert key_terms("Heron Inlet closes in April.", "When does Heron Inlet close?", None) == ["April"]


def test_a_capitalised_first_word_is_a_name_only_when_it_is_rare():
    question = "Does an octopus have a beak?"
    assert key_terms("Yes, an octopus has a hard beak.", question, stats({"hard": 30})) == []
    assert key_terms("Usually Henan.", "Where?", stats({"usually": 30})) == ["Henan"]
    assert key_terms("Quorvath is the capital.", "What is the capital?", stats({})) == ["quorvath"]


def test_refusals_are_recognised_but_negative_answers_are_not():
    assert says_unknown("I do not know.") and says_unknown("The passages do not mention penicillin.")
    assert says_unknown("There is no information about Oslo.")
    assert not says_unknown("No, ants cannot fly.") and not says_unknown("Koalas do not drink much water.")


def test_coverage_weighs_the_question_words_by_idf():
    weights = question_weights("Who discovered penicillin in London?", stats({"discovered": 9, "london": 9}))
    idf_rare, idf_common = math.log(1 + 100.5 / 0.5), math.log(1 + 91.5 / 9.5)
    assert math.isclose(weights["penicillin"], idf_rare) and math.isclose(weights["london"], idf_common)
    held = stems_of("London is large.") | stems_of("It was discovered.")
    assert math.isclose(share(weights, held), 2 * idf_common / (2 * idf_common + idf_rare))
    assert share(weights, stems_of("Penicillin was discovered in London.")) == 1.0


def test_retrieval_evidence_reads_both_retrievers_and_the_rule_is_monotone():
    hits = [hit(1, "penicillin", {"bm25": (1, 6.0), "dense": (2, 0.3)}), hit(2, "x", {"dense": (1, 0.5)}),
            hit(3, "discover", {"bm25": (2, 1.0)})]
    weights = {"penicillin": 2.0, "discov": 1.0}  # stems
    evidence = signals(hits, weights, passages=4, found=score_sentences("", hits, weights))
    assert math.isclose(evidence.coverage, 1.0) and evidence.dense == 0.5 and evidence.bm25 == 2.0
    assert math.isclose(evidence.local, 2 / 3)  # no one passage holds both words
    assert math.isclose(evidence.sentence_coverage, 2 / 3) and evidence.sentence == 0.0  # no encoder
    weak, strong = Signals(0.2, 0.2, 0.2, 0.2, 0.2, 0.2), Signals(1.0, 1.0, 0.7, 2.0, 0.7, 1.0)
    assert score(weak) < 0 <= score(strong)


def test_context_keeps_the_best_sentence_with_its_neighbour_within_the_budget():
    text = "Ferries leave at noon. Osprey nests close Heron Inlet from April. Bring boots. Tea is served."
    assert sentences(text)[1] == "Osprey nests close Heron Inlet from April."
    words = lambda t: len(t.split())  # noqa: E731
    chosen = select_context("When is Heron Inlet closed?", [hit(1, text), hit(2, "Unrelated words here.")], words,
                            budget_tokens=16, weights={"heron": 2.0, "inlet": 2.0, "close": 1.0}, neighbours=1)
    assert [h.chunk_id for h in chosen] == ["c1"]
    assert chosen[0].chunk.text == "Ferries leave at noon. Osprey nests close Heron Inlet from April. Bring boots."
    tight = select_context("When is Heron Inlet closed?", [hit(1, text)], words, budget_tokens=12,
                           weights={"heron": 2.0, "inlet": 2.0, "close": 1.0}, neighbours=1)
    assert tight[0].chunk.text == "Osprey nests close Heron Inlet from April. Bring boots."  # alone, then what fits


def test_context_reads_a_sentence_shared_by_overlapping_chunks_once():
    first = "Ferries leave at noon. Osprey nests close Heron Inlet from April. Bring boots."
    second = "nests close Heron Inlet from April. Bring boots. The inlet reopens in July."  # the overlap, cut mid-sentence
    words = lambda t: len(t.split())  # noqa: E731
    weights = {"heron": 2.0, "inlet": 2.0, "close": 1.0}
    chosen = select_context("When is Heron Inlet closed?", [hit(1, first), hit(2, second)], words,
                            budget_tokens=40, weights=weights, neighbours=1)
    assert [h.chunk.text for h in chosen] == [first, "The inlet reopens in July."]  # the budget goes to new text
    twice = select_context("When is Heron Inlet closed?", [hit(1, first), hit(2, second)], words, budget_tokens=40,
                           weights=weights, neighbours=1, dedupe=False)
    assert twice[1].chunk.text == second


def test_the_best_sentence_is_the_one_that_matches_the_question_best():
    text = "Ferries leave at noon. Osprey nests close Heron Inlet from April. Bring boots."
    weights = {"heron": 2.0, "inlet": 2.0, "close": 1.0}
    found = score_sentences("When is Heron Inlet closed?", [hit(1, "Unrelated words."), hit(2, text)], weights)
    assert found.best() == "Osprey nests close Heron Inlet from April."
    assert score_sentences("When is Heron Inlet closed?", [], weights).best() == ""


def test_a_markdown_heading_is_never_the_best_sentence():
    text = "## Logger error codes\n\nCode: E-417; Meaning: Sensor chain not responding.\n\nVisit the logger weekly."
    weights = {"logger": 2.0, "error": 1.0, "417": 5.0, "mean": 1.0}
    found = score_sentences("What does logger error E-417 mean?", [hit(1, text)], weights)
    assert found.best() == "Code: E-417; Meaning: Sensor chain not responding."
    only = score_sentences("What does logger error E-417 mean?", [hit(1, "## Logger error codes")], weights)
    assert only.best() == "## Logger error codes"  # a passage of headings alone still has a best
    assert only.best_share == 3.0 / 9.0  # and the evidence still reads a heading's words


def test_a_question_in_the_passages_is_never_the_best_sentence():
    faq = ("Q: I forgot my password. How do I reset my password?\n"
           "A: Use the self-service page and choose a new password.")
    weights = {"forgot": 3.0, "password": 2.0, "reset": 2.0}
    found = score_sentences("I forgot my password. How do I reset it?", [hit(1, faq)], weights)
    assert found.best() == "A: Use the self-service page and choose a new password."  # shares fewer words
    stated = score_sentences("How do I reset my password?", [hit(1, "Forgot your password? Quebec: reset by phone.")],
                            weights)
    assert stated.best() == "Quebec: reset by phone."  # a label that is not a question's stays a sentence


def test_a_preamble_before_a_fact_is_stripped():
    assert shorten("The passage [2] states that the drum kit has a pair of hi-hats.") == "The drum kit has a pair of hi-hats."


def test_a_time_the_tokenizer_splits_is_named_whole_in_the_reason():
    passages = ["Take all rubbish back to the mainland with you. Quiet hours are from 22:00 to 07:00.",
                "Season: Winter; Days: Sunday; From Tarn Island: 16:10."]
    answer = "The last boat back to the mainland leaves on Sundays at 16:10."
    support = check_support(answer, "When does the last boat back to the mainland leave on Sundays?", passages)
    assert support.elsewhere == ["16", "10"]
    assert support.reason(answer) == "16:10 comes from another sentence than the rest of the answer"
    assert "2024-05-01" in Support(False, missing=["2024", "05", "01", "Harbour"]).reason("Open on 2024-05-01 at Harbour.")
