"""Hostile queries, qrels and queries files: answers or clear errors, never a crash.

Hypothesis throws random text at the query parser (plain_terms + Tantivy's lenient parser, on a
real index), at the whole `search` command, and at the qrels and queries readers.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragchain_cli.cli.app import run
from ragchain_cli.errors import InputFormatError
from ragchain_cli.evaluation.readers import read_qrels, read_queries
from ragchain_cli.stores.lexical import LexicalIndex, plain_terms

SYNTAX = ['title:"foo AND (bar OR -baz^2 ~ * ? [a TO b] \\ / ! { } +', '"unbalanced', "AND OR NOT", "*", "?",
          "chunk_id:abc", "text:heron^100", "heron~2", "(((((", "]]]]", "'; DROP TABLE chunks; --", "$(id)",
          "{{7*7}}", "%s%s%n", "\\", "-", "+", "^", "heron inlet\" OR \"1\"=\"1"]
HOSTILE = ["", " ", "\t\n\r", "\x00", "heron\x00inlet", "\x00" * 1000, "🦩 heron 🦩", "מפרץ heron", "e\u0301\u0301\u0301",
           "\u202eheron", "x" * 100_000, ("heron inlet closed sampling " * 4000)[:100_000],
           " ".join(f"w{i}" for i in range(15_000)), *SYNTAX]


@pytest.mark.parametrize("retrievers", ["bm25", "bm25,dense"])
def test_hostile_queries_answer_with_valid_json(sample_index, cli, retrievers):
    for query in (q for q in HOSTILE if q != "-"):  # "-" alone means: read queries from stdin
        result = cli("search", query, "--index", sample_index, "--retrievers", retrievers, "-k", "5", "--json")
        if not query.strip():  # blank: a usage error with a hint, not arbitrary dense neighbours
            assert result.code == 2 and "empty" in result.err and result.out == ""
            continue
        assert result.code == 0, (query[:50], result.err)
        payload = result.json()
        assert payload["query"] == query
        for hit in payload["hits"]:
            assert hit["chunk_id"] and hit["doc_id"] and hit["snippet"] is not None
        if retrievers == "bm25" and not plain_terms(query):
            assert payload["hits"] == []  # nothing searchable: no hits rather than an error


def test_query_syntax_is_plain_words(sample_index, cli):
    """Operators and field names are words, not syntax: a field query cannot reach the chunk_id field."""
    plain = cli("search", "heron inlet", "--index", sample_index, "--retrievers", "bm25", "--json").json()
    for query in ('heron AND inlet', '"heron inlet"', "+heron +inlet", "text:heron inlet^1"):
        hits = cli("search", query, "--index", sample_index, "--retrievers", "bm25", "--json").json()["hits"]
        assert hits and hits[0]["doc_id"] == plain["hits"][0]["doc_id"]
    chunk = plain["hits"][0]["chunk_id"]
    assert cli("search", f"chunk_id:{chunk}", "--index", sample_index, "--retrievers", "bm25",
               "--json").json()["hits"] == []


def test_stdin_queries_with_nul_bytes_and_invalid_utf8_give_valid_json_lines(sample_index, tmp_path):
    """Before the fix, a stdin byte that is not UTF-8 went back out raw (surrogateescape) and the
    JSON on stdout was not UTF-8 at all."""
    data = b"heron\x00inlet\ncaf\xe9 heron\n\xff\xfe\n\n   \nsampling\r\n"
    result = subprocess.run([sys.executable, "-m", "ragchain_cli", "search", "-", "--index", str(sample_index),
                             "--retrievers", "bm25", "-k", "2", "--json"], input=data, capture_output=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.decode("utf-8").splitlines()]  # strict UTF-8
    # one output line per input line (blank ones get no hits), so output N answers input N
    assert [line["query"] for line in lines] == ["heron\x00inlet", "caf\ufffd heron", "\ufffd\ufffd", "", "", "sampling"]
    assert lines[0]["hits"] and lines[1]["hits"] and lines[5]["hits"] and not lines[3]["hits"] and not lines[4]["hits"]


# -- property-based: the query parser ------------------------------------------------------------


@pytest.fixture(scope="module")
def small_lexical(tmp_path_factory) -> LexicalIndex:
    lexical = LexicalIndex(tmp_path_factory.mktemp("lexical"))
    lexical.apply([], [("c1", "the heron fishes in the inlet"), ("c2", "closed for sampling in spring"),
                       ("c3", "AND OR NOT title chunk_id are words here")])
    yield lexical
    lexical.close()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=400) | st.lists(st.sampled_from(SYNTAX + ["heron", "AND", ":", '"', "\x00"]),
                                         max_size=30).map(" ".join))
def test_any_text_is_a_valid_lexical_query(small_lexical, query):
    terms = plain_terms(query)
    assert all(ch.isalnum() or ch == " " for ch in terms)
    hits = small_lexical.search(query, 5)
    assert {cid for cid, _score in hits} <= {"c1", "c2", "c3"}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.text(max_size=300).filter(lambda q: not q.startswith("-")))
def test_any_text_through_the_search_command(sample_index, capsys, query):
    capsys.readouterr()
    code = run(["search", query, "--index", str(sample_index), "--retrievers", "bm25", "-k", "3", "--json"])
    out = capsys.readouterr().out
    if not query.strip():  # nothing to look for is a usage error, not an arbitrary answer
        assert code == 2 and out == ""
        return
    assert code == 0
    assert json.loads(out)["query"] == query


# -- property-based: qrels and queries readers ----------------------------------------------------

LINE_PARTS = st.sampled_from(["q1", "d1", "0", "1", "2", "-1", "1.0", "1.5", "x", "Q0", "\t", " ", "query-id",
                              "corpus-id", "score", "{", "}", '"_id"', '"text"', ":", ",", "null", "[]", "\ufeff",
                              "\x00", "é", "\r", '{"_id": "q", "text": "t"}', '{"_id": 1, "text": 2}'])
TEXT_FILES = st.lists(st.lists(LINE_PARTS, max_size=8).map("".join), max_size=12).map("\n".join)


def _only_clear_errors(reader, path: Path):
    try:
        return reader(path)
    except InputFormatError as exc:
        assert exc.path == str(path) and exc.line >= 0
        assert str(path) in exc.message and exc.message.strip()
        return None


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("readers")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=st.binary(max_size=300) | TEXT_FILES.map(lambda t: t.encode("utf-8")) |
       st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_qrels_and_queries_readers_raise_only_clear_errors(scratch, content):
    for name in ("input.tsv", "input.jsonl", "input.tsv.gz"):
        path = scratch / name
        path.write_bytes(gzip.compress(content) if name.endswith(".gz") and content[:1] != b"\x00" else content)
        qrels = _only_clear_errors(read_qrels, path)
        if qrels is not None:
            assert all(isinstance(grade, int) for judged in qrels.values() for grade in judged.values())
        queries = _only_clear_errors(read_queries, path)
        if queries is not None:
            assert all(isinstance(q, str) and isinstance(t, str) and q for q, t in queries.items())


MALFORMED = {
    "qrels.tsv": ("q1\td1\n", "expected 3 (BEIR TSV"),
    "grades.tsv": ("q1\td1\thigh\n", "relevance must be an integer"),
    "binary.tsv": (b"\x89PNG\r\n\x1a\n\x00\x00", "not valid UTF-8"),
    "fake.tsv.gz": ("q1\td1\t1\n", "cannot read file"),
    "regraded.tsv": ("q1\td1\t1\nq1\td1\t2\n", "judged again"),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_qrels_are_a_usage_error_naming_file_and_line(sample_index, cli, tmp_path, name):
    content, reason = MALFORMED[name]
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    queries = tmp_path / "queries.tsv"
    queries.write_text("q1\theron inlet\n", encoding="utf-8")
    result = cli("eval", path, "--queries", queries, "--index", sample_index, "--retrievers", "bm25")
    assert result.code == 2, result.err
    assert f"{path}:" in result.err and reason in result.err


@pytest.mark.parametrize("content, reason", [
    ('{"_id": "q1", "text": "heron"\n', "invalid JSON"),
    ('{"_id": "q1"}\n', "missing text"),
    ('{"_id": "q1", "text": "a"}\n{"_id": "q1", "text": "b"}\n', "duplicate query id"),
    ("q1 heron without a tab\n", "expected 2 tab-separated columns"),
    ("[" * 100_000 + "\n", "expected 2 tab-separated"),
    ('{"_id": ' + "[" * 100_000 + "\n", "invalid JSON"),
])
def test_malformed_queries_are_a_usage_error_naming_file_and_line(sample_index, cli, tmp_path, content, reason):
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("q1\tsample_corpus/it-faq.txt\t1\n", encoding="utf-8")
    path = tmp_path / "queries.txt"
    path.write_text(content, encoding="utf-8")
    result = cli("eval", qrels, "--queries", path, "--index", sample_index, "--retrievers", "bm25")
    assert result.code == 2, result.err
    assert f"{path}:" in result.err and reason in result.err
