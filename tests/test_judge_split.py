"""The judges' held-out split is by article, and no training pair touches it (tools/judge/split.py, issue 53)."""

from __future__ import annotations

import json
import random
from argparse import Namespace

from tools.judge.split import ARTICLES, Split, held_out
from tools.judge.train import gather

HELD = "Solar_energy"  # its title's hash falls in the held-out fifth
KEPT = "Genocide"
HELD_TEXT = ("Solar power is the conversion of sunlight into electricity. Photovoltaic cells convert light into an "
             "electric current using the photovoltaic effect. Concentrated solar power systems use lenses or mirrors.")
KEPT_TEXT = ("The word was coined in 1944 by a Polish lawyer. The convention on it was adopted in 1948 by the "
             "General Assembly. It entered into force in 1951 after twenty ratifications.")


def row(n: int, title: str, context: str, question: str, answer: str) -> dict:
    return {"id": f"{n:024x}", "title": title, "context": context, "question": question, "answers": [answer],
            "answer_starts": [context.index(answer)], "is_impossible": False, "plausible_answers": [],
            "plausible_starts": []}


ROWS = [row(1, HELD, HELD_TEXT, "What do photovoltaic cells convert light into?", "an electric current"),
        row(2, HELD, HELD_TEXT, "What do concentrated systems use?", "lenses or mirrors"),
        row(3, KEPT, KEPT_TEXT, "When was the word coined?", "1944"),
        row(4, KEPT, KEPT_TEXT, "When did the convention enter into force?", "1951")]


def test_the_articles_held_out_are_chosen_by_their_titles_hash():
    assert (held_out(HELD, ARTICLES), held_out(KEPT, ARTICLES)) == (True, False)


def test_a_sentence_of_a_held_out_paragraph_touches_the_split():
    assert Split.of(ROWS).touches("Photovoltaic cells  convert light into an electric current using the "
                                  "photovoltaic effect.")


def test_a_sentence_of_a_kept_article_does_not_touch_it():
    assert not Split.of(ROWS).touches("The convention on it was adopted in 1948 by the General Assembly.")


def test_a_squad_dev_article_as_a_boolq_title_touches_it():
    assert Split.of(ROWS).touches_title("Nikola Tesla")


def test_no_training_pair_lies_in_a_held_out_paragraph(tmp_path):
    squad, qnli = tmp_path / "squad.jsonl", tmp_path / "qnli.jsonl"
    squad.write_text("".join(json.dumps(r) + "\n" for r in ROWS * 3), encoding="utf-8")
    qnli.write_text("".join(json.dumps({"question": q, "sentence": s, "label": 1}) + "\n" for q, s in [
        ("What does the photovoltaic effect give?", "Photovoltaic cells convert light into an electric current using "
                                                     "the photovoltaic effect."),
        ("When was the convention adopted?", "The convention on it was adopted in 1948 by the General Assembly.")]),
        encoding="utf-8")
    args = Namespace(squad=[str(squad)], nli=[], boolq=[], qnli=[str(qnli)], reworded=[], examples=1000)
    train, evaluation, _ = gather(args, random.Random(13))
    paragraph = HELD_TEXT.lower()
    assert [p.text for p in train if p.sentence.lower().split(":")[-1].strip() in paragraph] == []
