"""Readers for qrels, queries and TREC runs: both formats of each, every malformed case, random input."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragchain_cli.errors import InputFormatError, UsageError
from ragchain_cli.evaluation.readers import read_qrels, read_queries
from ragchain_cli.evaluation.runs import read_trec_run, write_trec_run


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    data = content.encode("utf-8") if isinstance(content, str) else content
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    return path


def assert_points_at(caught: pytest.ExceptionInfo, path: Path, line: int, reason: str) -> None:
    message = str(caught.value)
    assert message.startswith(f"{path}:{line}: " if line else f"{path}: "), message  # line 0: the whole file
    assert reason in message
    assert (caught.value.path, caught.value.line) == (str(path), line)


# --- qrels -----------------------------------------------------------------------------------------------


def test_beir_tsv_qrels_with_header_and_blank_lines(tmp_path):
    path = write(tmp_path, "test.tsv", "query-id\tcorpus-id\tscore\nq1\td1\t1\n\nq1\td2\t2\nq2\td1\t0\n")
    assert read_qrels(path) == {"q1": {"d1": 1, "d2": 2}, "q2": {"d1": 0}}


def test_beir_tsv_qrels_without_header_and_with_bom_and_crlf(tmp_path):
    path = write(tmp_path, "test.tsv", "\ufeffq1\td1\t1\r\nq2\td3\t2.0\r\n")
    assert read_qrels(path) == {"q1": {"d1": 1}, "q2": {"d3": 2}}


def test_trec_qrels_with_mixed_whitespace_and_negative_grades(tmp_path):
    path = write(tmp_path, "qrels.txt", "301 0 FT911-3 1\n301\t0\tFT911-4\t0\n302 Q0 LA01 -1\n")
    assert read_qrels(path) == {"301": {"FT911-3": 1, "FT911-4": 0}, "302": {"LA01": -1}}


def test_gzipped_qrels_are_read_transparently(tmp_path):
    path = write(tmp_path, "qrels.txt.gz", "q1 0 d1 3\n")
    assert read_qrels(path) == {"q1": {"d1": 3}}


def test_repeated_identical_judgement_is_accepted(tmp_path):
    assert read_qrels(write(tmp_path, "q.txt", "q1 0 d1 1\nq1 0 d1 1\n")) == {"q1": {"d1": 1}}


@pytest.mark.parametrize("content", ["", "\n\n", "query-id\tcorpus-id\tscore\n"])
def test_qrels_without_judgements_are_refused_when_read(tmp_path, content):
    path = write(tmp_path, "qrels.tsv", content)
    with pytest.raises(InputFormatError, match="no judgements") as caught:
        read_qrels(path)
    assert str(path) in str(caught.value)


@pytest.mark.parametrize(
    ("content", "line", "reason"),
    [
        ("q1 0 d1 1\n\nq1 0 d2\n", 3, "expected 4 columns"),
        ("query-id\tcorpus-id\tscore\nq1\td1\t1\tx\n", 2, "expected 3 columns"),
        ("q1 0 d1 1 extra\n", 1, "found 5"),
        ("lonely\n", 1, "found 1"),
        ("q1 0 d1 high\n", 1, "relevance must be an integer"),
        ("query-id\tcorpus-id\tscore\nq1\td1\t0.5\n", 2, "relevance must be an integer"),
        ("q1 0 d1 1\nq1 0 d1 2\n", 2, "judged again"),
    ],
)
def test_malformed_qrels_name_file_and_line(tmp_path, content, line, reason):
    path = write(tmp_path, "qrels.txt", content)
    with pytest.raises(InputFormatError) as caught:
        read_qrels(path)
    assert_points_at(caught, path, line, reason)


def test_qrels_that_are_not_utf8_name_the_line(tmp_path):
    path = write(tmp_path, "qrels.txt", b"q1 0 d1 1\nq1 0 d\xff2 1\n")
    with pytest.raises(InputFormatError) as caught:
        read_qrels(path)
    assert_points_at(caught, path, 2, "not valid UTF-8")


def test_missing_file_is_line_zero(tmp_path):
    path = tmp_path / "absent.tsv"
    with pytest.raises(InputFormatError) as caught:
        read_qrels(path)
    assert_points_at(caught, path, 0, "cannot open")


def test_a_directory_is_line_zero(tmp_path):
    with pytest.raises(InputFormatError) as caught:
        read_queries(tmp_path)
    assert_points_at(caught, tmp_path, 0, "cannot open")


def test_corrupt_gzip_is_an_input_format_error(tmp_path):
    path = tmp_path / "qrels.txt.gz"
    path.write_bytes(b"q1 0 d1 1\n")  # plain text under a .gz name
    with pytest.raises(InputFormatError) as caught:
        read_qrels(path)
    assert_points_at(caught, path, 1, "cannot read")


# --- queries ---------------------------------------------------------------------------------------------


def test_beir_jsonl_queries_ignore_extra_fields(tmp_path):
    lines = ['{"_id": "q1", "text": " what is bm25 ", "metadata": {}}', "", '{"_id": 7, "text": "rrf?", "title": "x"}']
    path = write(tmp_path, "queries.jsonl", "\n".join(lines) + "\n")
    assert read_queries(path) == {"q1": "what is bm25", "7": "rrf?"}


def test_tsv_queries_with_and_without_header(tmp_path):
    assert read_queries(write(tmp_path, "a.tsv", "1\tfirst query\n2\tsecond\n")) == {"1": "first query", "2": "second"}
    assert read_queries(write(tmp_path, "b.tsv", "id\ttext\nq1\thello\n")) == {"q1": "hello"}


def test_gzipped_jsonl_queries(tmp_path):
    path = write(tmp_path, "queries.jsonl.gz", '{"_id": "q1", "text": "hi"}\n')
    assert read_queries(path) == {"q1": "hi"}


@pytest.mark.parametrize(
    ("content", "line", "reason"),
    [
        ('{"_id": "q1", "text": "a"}\n{"_id": "q2", "text": \n', 2, "invalid JSON"),
        ('{"_id": "q1", "text": "a"}\n\n{"text": "b"}\n', 3, "missing _id"),
        ('{"_id": "q1"}\n', 1, "missing text"),
        ('{"_id": "", "text": "a"}\n', 1, "empty query id"),
        ('{"_id": "q1", "text": 3}\n', 1, "'text' must be a string"),
        ('{"_id": ["q1"], "text": "a"}\n', 1, "'_id' must be a string"),
        ('{"_id": "q1", "text": "a"}\n["q2", "b"]\n', 2, "expected a JSON object"),
        ('{"_id": "q1", "text": "a"}\n{"_id": "q2", "text": "b"}\n{"_id": "q1", "text": "c"}\n', 3, "first on line 1"),
        ("q1\tone\nq2\ttwo\tthree\n", 2, "expected 2 tab-separated columns"),
        ("q1 has no tab\n", 1, "found 1"),
        ("q1\tone\n \ttwo\n", 2, "empty query id"),
        ("q1\tone\n\nq1\tagain\n", 3, "duplicate query id 'q1'"),
    ],
)
def test_malformed_queries_name_file_and_line(tmp_path, content, line, reason):
    path = write(tmp_path, "queries.jsonl", content)
    with pytest.raises(InputFormatError) as caught:
        read_queries(path)
    assert_points_at(caught, path, line, reason)


def test_deeply_nested_json_is_an_input_format_error(tmp_path):
    path = write(tmp_path, "queries.jsonl", "{" + '"a":[' * 100_000 + "\n")
    with pytest.raises(InputFormatError) as caught:
        read_queries(path)
    assert_points_at(caught, path, 1, "invalid JSON")


# --- runs ------------------------------------------------------------------------------------------------


def test_written_runs_rank_by_descending_score_then_docid():
    out = io.StringIO()
    write_trec_run({"q1": {"b": 1.0, "a": 1.0, "c": 2.5}, "q0": {"z": 0.1 + 0.2}}, out, "bm25")
    assert out.getvalue().splitlines() == [
        "q1 Q0 c 1 2.5 bm25",
        "q1 Q0 a 2 1.0 bm25",
        "q1 Q0 b 3 1.0 bm25",
        "q0 Q0 z 1 0.30000000000000004 bm25",
    ]


@pytest.mark.parametrize("name", ["run.trec", "run.trec.gz"])
def test_runs_round_trip_exactly(tmp_path, name):
    run = {"q1": {"d1": 1 / 3, "d2": -2.0, "d3": 1e-300}, "q2": {"d1": 7.0}}
    write_trec_run(run, tmp_path / name, "tag")
    assert read_trec_run(tmp_path / name) == run


@pytest.mark.parametrize(
    ("tag", "run"), [("two words", {"q": {"d": 1.0}}), ("", {"q": {"d": 1.0}}), ("t", {"q": {"d x": 1.0}})]
)
def test_ids_or_tags_with_whitespace_cannot_be_written(tag, run):
    with pytest.raises(UsageError):
        write_trec_run(run, io.StringIO(), tag)


@pytest.mark.parametrize(
    ("content", "line", "reason"),
    [
        ("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0\n", 2, "expected 6 columns"),
        ("q1 Q0 d1 1 high t\n", 1, "score must be a number"),
        ("q1 Q0 d1 1 nan t\n", 1, "NaN"),
        ("q1 Q0 d1 first 1.0 t\n", 1, "rank must be an integer"),
        ("q1 Q0 d1 1 2.0 t\n\nq1 Q0 d1 2 1.0 t\n", 3, "appears twice"),
    ],
)
def test_malformed_runs_name_file_and_line(tmp_path, content, line, reason):
    path = write(tmp_path, "run.trec", content)
    with pytest.raises(InputFormatError) as caught:
        read_trec_run(path)
    assert_points_at(caught, path, line, reason)


# --- random input ----------------------------------------------------------------------------------------

LINE_PIECES = st.sampled_from(["q1", "0", "d1", "1", "-3", "x", "\t", " ", "\n", "{", "}", '"_id"', '"text"', ":", ","])
RANDOM_TEXT = st.one_of(
    st.text(),
    st.lists(LINE_PIECES, max_size=40).map("".join),
    st.text().map(lambda text: text.encode("utf-8", "surrogatepass")),
    st.binary(),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=RANDOM_TEXT, layout=st.sampled_from(["plain", "gzip", "raw bytes named .gz"]))
def test_readers_either_return_or_raise_input_format_error(tmp_path, content, layout):
    path = write(tmp_path, "random.gz" if layout == "gzip" else "random.txt", content)
    if layout == "raw bytes named .gz":
        path = path.rename(tmp_path / "raw.gz")
    for reader in (read_qrels, read_queries, read_trec_run):
        try:
            reader(path)
        except InputFormatError as error:
            assert error.path == str(path) and error.line >= 0
