"""`ragchain eval --qa`: prediction files scored offline, malformed input, and an in-process run with
the real bundled SmolLM2 model on a tiny index the test builds."""

import io
import json
import sys

import pytest

GOLD = [{"question": "How many airports does Montreal have?", "answers": ["two", "Montreal has two airports."],
         "doc_id": "docs/montreal.md"},
        {"question": "Is Berlin the capital of Germany?", "answer": "Yes."},
        {"question": "Who discovered penicillin?", "answers": []}]


def _write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _predictions(answers, answered=(True, True, True)):
    rows = []
    for gold, answer, ok in zip(GOLD, answers, answered):
        rows.append({"question": gold["question"], "answer": answer, "answered": ok,
                     "citations": [{"number": 1, "chunk_id": "c1", "doc_id": "docs/montreal.md", "cited": True}],
                     "hits": [{"rank": 1, "doc_id": "docs/montreal.md", "text": "Montreal has two airports."}],
                     "timings": {"retrieve": 0.1, "first_token": 1.0, "total": 2.0}})
    return rows


def test_prediction_files_are_scored_side_by_side_with_paired_tests(cli, tmp_path):
    gold = _write_jsonl(tmp_path / "gold.jsonl", GOLD)
    weak = _write_jsonl(tmp_path / "weak.jsonl", _predictions(["three [1]", "No.", "Fleming [1]."]))
    strong = _write_jsonl(tmp_path / "strong.jsonl", list(reversed(_predictions(
        ["Montreal has two airports [1].", "Yes, it is.", "The documents do not say."], (True, True, False)))))
    result = cli("eval", "--qa", gold, "--predictions", weak, "--predictions", strong, "--per-query",
                 "--permutations", "200", "--json")
    assert result.code == 0, result.err
    payload = result.json()
    assert (payload["source"], payload["questions"], payload["answerable"]) == ("predictions", 3, 2)
    assert [c["name"] for c in payload["configs"]] == ["weak", "strong"] and payload["baseline"] == "weak"
    weak_run, strong_run = payload["configs"]
    assert weak_run["summary"]["correct"] == 0.0 and weak_run["summary"]["abstain_unanswerable"] == 0.0
    assert strong_run["summary"]["correct"] == 1.0 and strong_run["summary"]["abstain_unanswerable"] == 1.0
    assert strong_run["summary"]["exact_match"] == 0.5  # "Montreal has two airports" matches a gold exactly
    assert strong_run["summary"]["citation_doc_of_correct"] == 1.0
    assert strong_run["summary"]["seconds_total"] == 2.0
    assert strong_run["diff"]["correct"] == 1.0 and 0 < strong_run["p_value"]["correct"] <= 1
    assert strong_run["counts"] == {"questions": 3, "answerable": 2, "unanswerable": 1, "answered": 2, "correct": 2,
                                    "abstained_unanswerable": 1, "yes_no_gold": 1, "flagged_unsupported": 0}
    assert strong_run["summary"]["overall_correct"] == 1.0 and weak_run["summary"]["overall_correct"] == 0.0
    rows = strong_run["per_query"]
    assert [r["question"] for r in rows] == [g["question"] for g in GOLD]  # gold order, whatever the file's
    assert rows[2]["answered"] is False and rows[2]["correct"] is None and rows[2]["abstained"] == 1.0


def test_predictions_from_stdin_and_old_ask_output_without_answered(cli, tmp_path, monkeypatch):
    gold = _write_jsonl(tmp_path / "gold.jsonl", GOLD)
    rows = _predictions(["two", "yes", "I found nothing in the index that answers this question."])
    for row in rows:
        del row["answered"]
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(json.dumps(r) + "\n" for r in rows)))
    result = cli("eval", "--qa", gold, "--predictions", "-", "--permutations", "10")
    assert result.code == 0, result.err
    summary = result.json()["configs"][0]["summary"]
    assert result.json()["configs"][0]["name"] == "stdin"
    assert summary["exact_match"] == 1.0 and summary["abstain_unanswerable"] == 1.0


SQUAD_STYLE = [
    {"question": "What is the term for a task a computer can solve?", "answerable": True,
     "answers": ["A computational problem", "computational problem", "computational problems"], "doc_id": "d"},
    {"question": "Who proved the class theorem in 1901?", "answerable": False, "answers": [], "doc_id": "d"},
    {"question": "Who proved the class theorem in 1902?", "answerable": False, "doc_id": "d"},
    {"question": "What does the Cobham thesis say?", "answer": "feasible problems are solvable in polynomial time"}]


def test_squad_style_gold_reports_answerable_unanswerable_and_overall(cli, tmp_path):
    gold = _write_jsonl(tmp_path / "gold.jsonl", SQUAD_STYLE)
    preds = _write_jsonl(tmp_path / "answers.jsonl", [
        {"question": SQUAD_STYLE[0]["question"], "answer": "Computational problems [1].", "answered": True},
        {"question": SQUAD_STYLE[1]["question"], "answer": "The documents do not say.", "answered": False},
        {"question": SQUAD_STYLE[2]["question"], "answer": "Alan Cobham [1].", "answered": True},
        {"question": SQUAD_STYLE[3]["question"], "answer": "In polynomial time.", "answered": True}])
    result = cli("eval", "--qa", gold, "--predictions", preds, "--per-query", "--permutations", "10", "--json")
    assert result.code == 0, result.err
    payload = result.json()
    assert (payload["questions"], payload["answerable"]) == (4, 2)
    summary, counts = payload["configs"][0]["summary"], payload["configs"][0]["counts"]
    # answerable: EM 1 (third gold) and 0; the second's key words feasible problems solvable polynomial time:
    # polynomial time present -> 2/5, not correct; F1 [in, polynomial, time] vs 7 tokens: P 1, R 3/7 -> 0.6
    assert summary["exact_match"] == 0.5 and summary["correct"] == 0.5
    assert summary["f1"] == pytest.approx((1.0 + 0.6) / 2)
    assert summary["abstain_unanswerable"] == 0.5 and counts["abstained_unanswerable"] == 1
    # overall (SQuAD v2): 1, 0 (answerable), 1, 0 (unanswerable: abstained, answered)
    assert summary["overall_exact_match"] == 0.5 and summary["overall_correct"] == 0.5
    assert summary["overall_f1"] == pytest.approx((1.0 + 0.6 + 1.0 + 0.0) / 4)
    rows = payload["configs"][0]["per_query"]
    assert rows[0]["answers"] == SQUAD_STYLE[0]["answers"] and rows[2]["answers"] == []


def test_people_get_a_table(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")
    gold = _write_jsonl(tmp_path / "gold.jsonl", GOLD)
    preds = _write_jsonl(tmp_path / "answers.jsonl", _predictions(["two [1]", "Yes.", "Fleming"]))
    result = cli("eval", "--qa", gold, "--predictions", preds, "--no-json")
    assert result.code == 0, result.err
    header, row = [line for line in result.out.splitlines() if ("┃" in line or "│" in line) and "─" not in line]
    assert "correct" in header and "abstain unans." in header and "overall" in header and "s/q" in header
    assert row.split()[1:4] == ["answers", "│", "1.000"]  # config name, then correct
    assert "2 answerable (1 yes/no) and 1 unanswerable questions" in result.out


@pytest.mark.parametrize("line, reason", [
    ('{"question": "q2", "answers": "two"}', "list of non-empty strings"),
    ('{"answers": ["x"]}', '"question"'),
    ('{"question": "q2"', "not valid JSON"),
    ('{"question": "q1", "answer": "again"}', "repeats line 1"),
    ('{"question": "q2", "answerable": false, "answers": ["x"]}', '"answerable": false with gold answers'),
    ('{"question": "q2", "answerable": true, "answers": []}', '"answerable": true needs at least one gold answer'),
    ('{"question": "q2", "answerable": "no", "answers": []}', "true or false"),
])
def test_malformed_gold_names_file_and_line(cli, tmp_path, line, reason):
    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"question": "q1", "answer": "a"}\n' + line + "\n", encoding="utf-8")
    preds = _write_jsonl(tmp_path / "p.jsonl", [{"question": "q1", "answer": "a"}])
    result = cli("eval", "--qa", gold, "--predictions", preds)
    assert result.code == 2 and f"{gold}:2" in result.err and reason in result.err


def test_predictions_missing_a_gold_question_or_malformed_are_usage_errors(cli, tmp_path):
    gold = _write_jsonl(tmp_path / "gold.jsonl", GOLD)
    short = _write_jsonl(tmp_path / "short.jsonl", _predictions(["two"]))
    result = cli("eval", "--qa", gold, "--predictions", short)
    assert result.code == 2 and "no answer for 2 of the 3" in result.err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q", "answer": 3}\n', encoding="utf-8")
    result = cli("eval", "--qa", gold, "--predictions", bad)
    assert result.code == 2 and f"{bad}:1" in result.err
    assert cli("eval", "--predictions", short).code == 2
    assert cli("eval", "--qa", gold, "--predictions", short, "--retrievers", "bm25").code == 2


LLM = ("--llm", "smollm2-135m-instruct")


@pytest.fixture
def tiny_index(cli, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "montreal.md").write_text("# Montreal\n\nMontreal has two international airports: Trudeau and "
                                      "Mirabel. The city lies on an island in the Saint Lawrence River.\n")
    (docs / "koala.md").write_text("# Koala\n\nThe koala eats eucalyptus leaves and sleeps up to 18 hours a day. "
                                   "Koalas live in eastern Australia.\n")
    index = tmp_path / "index"
    assert cli("ingest", docs, "--index", index, "--json").code == 0
    return index


def test_in_process_run_scores_what_ask_prints(cli, tmp_path, tiny_index, monkeypatch):
    gold = _write_jsonl(tmp_path / "gold.jsonl", [
        {"question": "How many international airports does Montreal have?", "answers": ["two"],
         "doc_id": "docs/montreal.md"},
        {"question": "What does the koala eat?", "answers": ["eucalyptus leaves"], "doc_id": "docs/koala.md"}])
    live = cli("eval", "--qa", gold, "--index", tiny_index, *LLM, "--per-query", "--json")
    assert live.code == 0, live.err
    payload = live.json()
    assert payload["source"] == "ask" and payload["seconds"]["default"] > 0
    config = payload["configs"][0]
    assert config["counts"]["questions"] == 2 and config["summary"]["seconds_total"] > 0
    assert all(row["answer"] for row in config["per_query"])
    # the same questions through `ask - --json`, then scored from the file: the same answers and figures
    monkeypatch.setattr(sys, "stdin", io.StringIO("How many international airports does Montreal have?\n"
                                                  "What does the koala eat?\n"))
    asked = cli("ask", "-", "--index", tiny_index, *LLM, "--json")
    assert asked.code == 0, asked.err
    preds = tmp_path / "p.jsonl"
    preds.write_text(asked.out, encoding="utf-8")
    offline = cli("eval", "--qa", gold, "--predictions", preds, "--per-query", "--json").json()["configs"][0]
    assert [r["answer"] for r in offline["per_query"]] == [r["answer"] for r in config["per_query"]]
    for key in ("correct", "f1", "exact_match", "citation_doc_of_answered"):
        assert offline["summary"][key] == config["summary"][key]
