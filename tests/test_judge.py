"""The shipped answer judge: pinned, offline, and telling an answer from a near miss (judge/model.py)."""

from __future__ import annotations

import hashlib
import json
import random
import shutil

import pytest

from ragchain_cli.errors import ModelNotFound
from ragchain_cli.judge import model
from ragchain_cli.judge.model import (MANIFEST, MODEL_FILE, PINNED, TOKENIZER, WEIGHTS, OnnxJudge, asked, checked,
                                      load_judge, passage)
from ragchain_cli.llm import models
from tools.judge.data import unanswerable_rows
from tools.judge.explorer import page_paragraphs, page_questions, placed_rows
from tools.judge.pairs import near_miss, squad_pairs


def test_the_pins_in_code_equal_the_shipped_files():
    """Weights retrained with tools/judge/train.py fail here until PINNED in judge/model.py is updated
    (train.py logs the new pins)."""
    actual = {name: ((WEIGHTS / name).stat().st_size, hashlib.sha256((WEIGHTS / name).read_bytes()).hexdigest())
              for name in (MODEL_FILE, TOKENIZER)}
    assert actual == {name: (pin.size, pin.sha256) for name, pin in PINNED.items()}


def test_the_shipped_weights_match_their_pins():
    assert checked(WEIGHTS).name == MODEL_FILE


def _substituted(tmp_path, name: str):
    """A copy of the shipped folder with one byte of `name` changed and the manifest agreeing with it."""
    copy = tmp_path / "weights"
    shutil.copytree(WEIGHTS, copy)
    data = bytearray((copy / name).read_bytes())
    data[len(data) // 2] ^= 0x01
    (copy / name).write_bytes(bytes(data))
    record = json.loads((copy / MANIFEST).read_text(encoding="utf-8"))
    record["sha256"] = hashlib.sha256((copy / MODEL_FILE).read_bytes()).hexdigest()
    (copy / MANIFEST).write_text(json.dumps(record), encoding="utf-8")
    return copy


@pytest.mark.parametrize("name", [MODEL_FILE, TOKENIZER])
def test_a_substituted_file_where_the_judge_loads_is_refused_whatever_its_manifest_says(tmp_path, monkeypatch, name):
    copy = _substituted(tmp_path, name)
    monkeypatch.setattr(model, "WEIGHTS", copy)  # where the loader looks for the shipped judge
    actual = hashlib.sha256((copy / name).read_bytes()).hexdigest()
    with pytest.raises(ModelNotFound, match=f"{name}.*expected {PINNED[name].sha256}, got {actual}"):
        OnnxJudge(copy)


def test_a_changed_model_file_in_another_folder_is_refused_by_its_manifest(tmp_path):
    copy = tmp_path / "weights"
    shutil.copytree(WEIGHTS, copy)
    data = bytearray((copy / MODEL_FILE).read_bytes())
    data[len(data) // 2] ^= 0xFF
    (copy / MODEL_FILE).write_bytes(bytes(data))
    with pytest.raises(ModelNotFound, match="wrong sha256"):
        OnnxJudge(copy)


def test_the_mismatch_says_a_retrained_judge_needs_its_pin_in_code(tmp_path, monkeypatch):
    copy = _substituted(tmp_path, MODEL_FILE)
    monkeypatch.setattr(model, "WEIGHTS", copy)
    with pytest.raises(ModelNotFound) as caught:
        checked(copy)
    assert "PINNED in ragchain_cli/judge/model.py" in caught.value.hint


def test_a_second_check_stats_the_files_without_hashing_them(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGCHAIN_CACHE", str(tmp_path / "cache"))
    hashed = []
    real = models.sha256_file
    monkeypatch.setattr(models, "sha256_file", lambda path: hashed.append(path.name) or real(path))
    checked(WEIGHTS)
    first = sorted(hashed)
    checked(WEIGHTS)
    assert (first, len(hashed)) == (sorted([MODEL_FILE, TOKENIZER]), 2)


# Invented text: no data set's sentence.
CLOSED = passage("Field guide", "Heron Inlet is closed to all sampling from 1 April to 15 July while ospreys nest.")
OTHER = passage("Field guide", "Samples from Heron Inlet are labelled with the site code HI and the date.")


def test_the_sentence_that_answers_scores_above_one_that_does_not():
    question = "When is sampling at Heron Inlet not allowed?"
    answers, other = load_judge().score([(question, CLOSED), (question, OTHER)])
    assert answers > other


def test_the_right_answer_scores_above_a_wrong_one_from_the_same_sentence():
    question = "Until what date is Heron Inlet closed to sampling?"
    right, wrong = load_judge().score([(asked(question, "15 July"), CLOSED), (asked(question, "1 April"), CLOSED)])
    assert right > wrong


def test_a_near_miss_swaps_a_name_the_sentence_holds_for_one_it_does_not():
    missed = near_miss("When did the orchestra leave Warsaw?", "The orchestra left Warsaw in 1830.",
                       "It settled in Paris the next year.", random.Random(1))
    assert missed == "When did the orchestra leave Paris?"


def test_an_unanswerable_question_gives_only_negatives():
    context = "The mill opened in 1820. It closed in 1901 after a fire."
    row = {"title": "Mill", "context": context, "question": "When did the mill reopen?", "answers": [],
           "answer_starts": [], "is_impossible": True, "plausible_answers": ["1820"], "plausible_starts": [20]}
    assert {p.label for p in squad_pairs([row], random.Random(1))} == {0}


def test_an_unanswerable_question_is_paired_with_the_sentence_it_was_written_from():
    sentences = ["Heron Inlet is closed to all sampling from 1 April to 15 July.",
                 "The ferry to Fernbrook leaves every hour in summer."]
    lines = ["5a8d7bf7df8bba001a0f9ab1\tWhen is Heron Inlet closed to fishing ?\t0,0,0,0,0,1,0"]
    rows = list(unanswerable_rows(lines, sentences, known_ids=set()))
    assert [(r["question"], r["sentence"], r["label"]) for r in rows] == [
        ("When is Heron Inlet closed to fishing?", sentences[0], 0)]


# An invented page in the SQuAD explorer's markup (tools/judge/data.py's EXPLORER source).
PAGE = ('<h1 id="title">Heron Inlet</h1><div class="para-wrap"><div class="row"><div class="col-md-6"><pre>'
        'Heron Inlet is closed to all sampling from 1 April to 15 July while ospreys nest.</pre></div>'
        '<div class="qa-wrap"><p> <strong class="question">When is Heron Inlet closed?</strong></p>'
        '<span class="answer">from 1 April to 15 July</span></div><div class="qa-wrap"><p> <strong class="question">'
        'What nests there?</strong></p><span class="answer">ospreys</span></div></div></div>')


def test_an_explorer_page_gives_its_paragraph_with_its_first_question_and_where_the_answer_starts():
    rows = [r for t, c, rest in page_paragraphs(PAGE, "page") for r in page_questions(t, c, rest)]
    assert [(r["title"], r["question"], r["answers"], r["answer_starts"]) for r in rows] == [
        ("Heron_Inlet", "When is Heron Inlet closed?", ["from 1 April to 15 July"], [38])]


def test_an_explorer_page_of_a_measured_article_gives_nothing():
    assert list(page_paragraphs(PAGE.replace("Heron Inlet</h1>", "Melbourne</h1>"), "page")) == []


def test_an_unanswerable_question_is_put_back_in_its_paragraph_with_its_twins_answer_as_plausible():
    paragraphs = list(page_paragraphs(PAGE, "page")) + [("Ferry", "The ferry to Fernbrook leaves every hour.", "")]
    lines = ["5a8d7bf7df8bba001a0f9ab1\tWhen is Heron Inlet closed to fishing ?\t0,0,0,0,0,1,0"]
    rows = list(placed_rows(paragraphs, lines, known_ids=set()))
    assert [(r["question"], r["is_impossible"], r["answers"], r["plausible_answers"]) for r in rows] == [
        ("When is Heron Inlet closed to fishing?", True, [], ["from 1 April to 15 July"]),
        ("When is Heron Inlet closed?", False, ["from 1 April to 15 July"], [])]
