"""`ragchain ask` on the sample corpus with the real bundled SmolLM2 GGUF through llama.cpp."""

import io
import sys

from ragchain_cli.generate.answer import NOTHING_FOUND

LLM = ("--llm", "smollm2-135m-instruct", "--max-tokens", "48", "--context-tokens", "700")


def test_ask_answers_with_citations_of_the_passages_it_was_given(sample_index, cli):
    result = cli("ask", "When is Heron Inlet closed to sampling?", "--index", sample_index, *LLM, "--json")
    assert result.code == 0, result.err
    payload = result.json()
    assert set(payload) >= {"question", "answer", "citations", "hits", "timings"}
    assert payload["answer"].strip() and payload["answer"] != NOTHING_FOUND
    given = {h["chunk_id"] for h in payload["hits"]}
    assert payload["citations"] and {c["chunk_id"] for c in payload["citations"]} <= given
    assert [c["number"] for c in payload["citations"]] == sorted(c["number"] for c in payload["citations"])
    for key in ("retrieve", "first_token", "generate", "total"):
        assert payload["timings"][key] >= 0
    assert payload["hits"][0]["doc_id"] == "sample_corpus/field-guide.pdf"


def test_irrelevant_question_says_nothing_was_found(sample_index, cli):
    result = cli("ask", "What is the airspeed velocity of an unladen swallow?", "--index", sample_index, *LLM,
                 "--json")
    assert result.code == 0, result.err
    payload = result.json()
    assert payload["answer"] == NOTHING_FOUND and payload["citations"] == [] and payload["hits"] == []


def test_no_generate_prints_the_context_only(sample_index, cli):
    result = cli("ask", "ferry timetable", "--index", sample_index, "--no-generate", "--json")
    payload = result.json()
    assert result.code == 0 and "answer" not in payload and payload["hits"]


def test_questions_from_stdin_give_one_json_line_each(sample_index, cli, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("Who maintains the buoys?\n\nWhat is Lugol used for?\n"))
    result = cli("ask", "-", "--index", sample_index, *LLM)
    lines = result.jsonl()
    assert result.code == 0 and [line["question"] for line in lines] == [
        "Who maintains the buoys?", "What is Lugol used for?"]
    assert all("answer" in line for line in lines)


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
