"""A question the answer judge finds no answering sentence for, whose passages are near it in meaning
(a question worded otherwise than its documents), gets the passages' sentence closest to it quoted,
not verified, with no model asked (answer/quote.py `closest`, decide.NEAR); one on another subject,
and a yes/no question, are still refused."""

from __future__ import annotations

from ragchain_cli.answer.assemble import open_workflow
from ragchain_cli.answer.decide import NOT_SAID
from ragchain_cli.answer.quote import CLOSEST, closest
from ragchain_cli.answer.select import score_sentences
from ragchain_cli.answer.workflow import AskOptions
from ragchain_cli.config import load_settings
from ragchain_cli.stores.embedders import load_embedder
from ragchain_cli.types import Chunk, Hit
from scripted import ScriptedModel

REWORDED = "Why does the bottom of a lake stay cold all summer?"  # the glossary words it otherwise


def ask(sample_index, question: str, model, **options) -> dict:
    settings = load_settings({"index": str(sample_index)}, config_files=[])
    with open_workflow(settings, AskOptions(**options), model=model) as workflow:
        return workflow.ask(question)


def test_a_reworded_question_gets_its_closest_sentence_quoted_not_verified_and_no_model_is_asked(sample_index):
    model = ScriptedModel("The lake is cold [1].")
    payload = ask(sample_index, REWORDED, model)
    assert (payload["answered"], payload["supported"], payload["quoted"], payload["not_verified"],
            payload["llm"], model.calls) == (True, False, True, CLOSEST, None, []), payload


def test_the_quote_is_cited_and_its_citation_holds_it(sample_index):
    payload = ask(sample_index, REWORDED, ScriptedModel())
    (cited,) = payload["citations"]
    quoted = payload["answer"].rsplit(" [", 1)[0]
    assert quoted in " ".join(payload["hits"][cited["number"] - 1]["text"].split()), payload


def test_without_quote_closest_the_same_question_is_refused(sample_index):
    payload = ask(sample_index, REWORDED, ScriptedModel(), quote_closest=False)
    assert (payload["answered"], payload["answer"]) == (False, NOT_SAID), payload


def test_a_question_on_another_subject_is_still_refused(sample_index):
    payload = ask(sample_index, "Who won the football World Cup in 1998?", ScriptedModel())
    assert payload["answered"] is False and "quoted" not in payload, payload


def test_the_closest_sentence_is_chosen_by_meaning_not_by_shared_words():
    texts = ["Wren, the trike, was bought in May 2020 and the trike is kept at the depot.",
             "It has a range of about 40 km on a full battery."]
    hits = [Hit(f"c{i}", 1.0, doc_id=f"d{i}", chunk=Chunk(f"c{i}", f"d{i}", t)) for i, t in enumerate(texts)]
    question = "How far can the trike travel before it must be recharged?"
    found = score_sentences(question, hits, {"trike": 1.0}, None, passages=2)
    k = closest(found, question, load_embedder(), ["", ""])
    assert found.text_at(k) == texts[1]
