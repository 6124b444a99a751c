"""`ragchain ask` on the sample corpus with the real bundled SmolLM2 GGUF through llama.cpp, and each
outcome the answer path can reach with a scripted model in its place (tests/scripted.py), one a test."""

import io
import sys

from ragchain_cli.answer.assemble import open_workflow
from ragchain_cli.answer.decide import NOT_SAID
from ragchain_cli.answer.workflow import AskOptions
from ragchain_cli.config import DEFAULTS, load_settings
from scripted import ScriptedModel

LLM = ("--llm", "smollm2-135m-instruct", "--max-tokens", "48")
CLOSED = "When is Heron Inlet closed to sampling?"


def test_ask_answers_with_the_real_model_in_one_json_payload(sample_index, cli):
    # what holds whatever the 135M model's words (they differ between runs and CPUs); each outcome of
    # the answer path has its own test below, with a scripted model
    result = cli("ask", CLOSED, "--index", sample_index, *LLM, "--json")
    assert result.code == 0, result.err
    payload = result.json()
    assert set(payload) >= {"question", "answer", "answered", "supported", "citations", "hits", "timings"}
    assert payload["answered"] is True, payload
    assert [c["number"] for c in payload["citations"]] == sorted(c["number"] for c in payload["citations"])
    for key in ("retrieve", "generate", "total"):
        assert payload["timings"][key] >= 0
    assert payload["timings"]["generate"] <= payload["timings"]["total"] and "first_token" not in payload["timings"]
    assert payload["hits"][0]["doc_id"] == "sample_corpus/field-guide.pdf"


def ask(sample_index, question: str, model: ScriptedModel) -> dict:
    settings = load_settings({"index": str(sample_index)}, config_files=[])
    with open_workflow(settings, AskOptions(), model=model) as workflow:
        return workflow.ask(question)


def test_a_verified_answer_cites_the_passage_that_says_it(sample_index):
    payload = ask(sample_index, CLOSED, ScriptedModel("It is closed from 1 April to 15 July."))
    given = {h["chunk_id"]: h for h in payload["hits"]}
    cited = [c for c in payload["citations"] if c["cited"]]
    assert payload["supported"] is True and cited and {c["chunk_id"] for c in cited} <= set(given), payload
    assert any("Heron Inlet is closed" in given[c["chunk_id"]]["text"] for c in cited), payload


def test_a_non_answer_is_not_verified_and_gives_way_to_the_passage_s_sentence(sample_index):
    reply = "The passage is about the fishing in Heron Inlet, not about sampling."  # seen once from SmolLM2
    payload = ask(sample_index, CLOSED, ScriptedModel(reply, reply))
    quoted, cited = payload["answer"].rsplit(" [", 1)[0], [c for c in payload["citations"] if c["cited"]]
    assert payload["quoted"] is True and payload["supported"] is False and len(cited) == 1, payload
    assert "15 July" in quoted and quoted in payload["hits"][cited[0]["number"] - 1]["text"], payload


def test_a_yes_no_answer_the_judge_supports_is_shown_verified(sample_index):
    reply = "Yes, Heron Inlet is closed to all sampling from 1 April to 15 July."  # support 0.80 here
    payload = ask(sample_index, "Is Heron Inlet closed to sampling?", ScriptedModel(reply))
    assert payload["supported"] is True and payload["not_verified"] is None, payload
    assert payload["evidence"]["support"] >= DEFAULTS.judge_supports, payload


def test_a_yes_no_answer_the_judge_does_not_support_is_shown_with_nothing_cited(sample_index):
    reply = "No, Heron Inlet is open to sampling in May."
    payload = ask(sample_index, "Is Heron Inlet closed to sampling in May?", ScriptedModel(reply, reply))
    assert payload["supported"] is False and payload["not_verified"], payload
    assert not any(c["cited"] for c in payload["citations"]) and "[" not in payload["answer"], payload


def test_an_unverified_answer_comes_with_the_passages_sentence_closest_to_it(sample_index):
    reply = "No, Heron Inlet is open to sampling in May."
    payload = ask(sample_index, "Is Heron Inlet closed to sampling in May?", ScriptedModel(reply, reply))
    assert payload["closest"] and any(payload["closest"] in hit["text"] for hit in payload["hits"]), payload


def test_the_judge_s_refusal_gives_its_support_beside_the_bar(sample_index):
    reply = "Yes, Heron Inlet is open all year."  # no word check fails with verdicts = judge: the judge decides
    settings = load_settings({"index": str(sample_index)}, config_files=[])
    with open_workflow(settings, AskOptions(verdicts="judge"), model=ScriptedModel(reply, reply)) as workflow:
        payload = workflow.ask("Is Heron Inlet closed to sampling in May?")
    assert payload["supported"] is False and f"verified from {DEFAULTS.judge_supports:.0%})" in payload["not_verified"]


def test_question_the_documents_do_not_answer_abstains_with_the_closest_passages(sample_index, cli):
    result = cli("ask", "What is the airspeed velocity of an unladen swallow?", "--index", sample_index, *LLM,
                 "--json")
    assert result.code == 0, result.err
    payload = result.json()
    assert payload["answered"] is False and payload["supported"] is None
    assert payload["answer"].startswith(NOT_SAID[:-1]) and payload["citations"] == []
    assert all(h["text"] for h in payload["hits"])
    assert payload["evidence"]["score"] < 0


def test_no_generate_prints_the_context_only(sample_index, cli):
    result = cli("ask", "ferry timetable", "--index", sample_index, "--no-generate", "--json")
    payload = result.json()
    assert result.code == 0 and "answer" not in payload and payload["hits"]


def test_questions_from_stdin_give_one_json_line_per_input_line(sample_index, cli, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("Who maintains the buoys?\n\nWhat is Lugol used for?\n"))
    result = cli("ask", "-", "--index", sample_index, *LLM)
    lines = result.jsonl()
    assert result.code == 0 and [line["question"] for line in lines] == [
        "Who maintains the buoys?", "", "What is Lugol used for?"]
    assert all("answer" in line and "answered" in line for line in lines)
    assert lines[1]["answered"] is False and lines[1]["answer"] == "" and lines[1]["hits"] == []


def test_missing_model_file_is_one_clear_error(sample_index, cli, tmp_path):
    result = cli("ask", "anything", "--index", sample_index, "--llm", tmp_path / "missing.gguf")
    assert result.code == 6 and "missing.gguf" in result.err


def test_questions_from_stdin_that_are_not_utf8_are_read_with_replacement(sample_index, cli, monkeypatch):
    raw = io.TextIOWrapper(io.BytesIO(b"ferry timetable \xff\xfe\n"), encoding="utf-8", errors="strict")
    monkeypatch.setattr(sys, "stdin", raw)
    result = cli("ask", "-", "--index", sample_index, "--no-generate")
    lines = result.jsonl()
    assert result.code == 0, result.err
    assert [line["question"] for line in lines] == ["ferry timetable \ufffd\ufffd"] and lines[0]["hits"]


def test_an_answer_that_is_not_verified_says_why_on_the_terminal():
    from rich.console import Console

    from ragchain_cli.cli.ask import _render_sources

    console = Console(record=True, width=200)
    consulted = {"number": 1, "chunk_id": "c1", "doc_id": "a.txt", "page": None, "cited": False}
    _render_sources(console, {"supported": False, "not_verified": "the answer does not say yes or no",
                              "citations": [consulted], "hits": [{"rank": 1, "doc_id": "a.txt", "page": None}]})
    text = console.export_text()
    assert "Not verified: the answer does not say yes or no; treat this answer as the model's guess" in text
    assert "closest" not in text  # no sentence to show: none is named
    assert "Passages consulted (none is cited for this answer)" in text and "[1] a.txt" in text


def test_the_terminal_shows_the_sentence_to_check_an_unverified_answer_against():
    from rich.console import Console

    from ragchain_cli.cli.ask import _render_sources

    console = Console(record=True, width=200)
    _render_sources(console, {"supported": False, "not_verified": "ragchain could not find \"cannot\" in the passages",
                              "closest": "Pool bicycles must not be taken on the ferry.", "citations": [], "hits": []})
    assert "closest to it: \"Pool bicycles must not be taken on the ferry.\"" in console.export_text()


def test_a_sentence_the_reason_already_quotes_is_not_shown_twice():
    from rich.console import Console

    from ragchain_cli.cli.ask import _render_sources

    console = Console(record=True, width=200)
    sentence = "The last ferry leaves the island at 18:00 every day."
    _render_sources(console, {"supported": False, "not_verified": f'ragchain could not confirm "no" from the passages; check it against: "{sentence}"',
                              "closest": sentence, "citations": [], "hits": []})
    assert console.export_text().count(sentence) == 1


def test_passages_read_but_not_cited_are_named_under_the_sources():
    from rich.console import Console

    from ragchain_cli.cli.ask import _render_sources

    console = Console(record=True, width=200)
    cited = {"number": 2, "chunk_id": "c2", "doc_id": "handbook.md", "page": None, "cited": True}
    hits = [{"rank": 1, "doc_id": "timetable.html", "page": None}, {"rank": 2, "doc_id": "handbook.md", "page": None},
            {"rank": 3, "doc_id": "guide.pdf", "page": 2}]
    _render_sources(console, {"supported": True, "citations": [cited], "hits": hits})
    text = console.export_text()
    assert "Sources" in text and "[2] handbook.md  c2" in text
    assert "also read, not cited: [1] timetable.html, [3] guide.pdf p.2" in text
