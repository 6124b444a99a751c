"""`ragchain search` on the sample corpus: explain output, stdin JSONL, lenient BM25 parsing,
filters, recency, document collapse, and start-up without torch on the BM25 path."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def _search(cli, index, *args):
    result = cli("search", *args, "--index", index, "--json")
    assert result.code == 0, result.err
    return result.json()["hits"]


def test_hybrid_hit_explains_every_retriever(sample_index, cli):
    hits = _search(cli, sample_index, "When is Heron Inlet closed to sampling?", "-k", "5")
    top = hits[0]
    assert top["doc_id"] == "sample_corpus/field-guide.pdf" and top["page"] == 2
    assert set(top["explain"]) == {"bm25", "dense"}
    assert [h["rank"] for h in hits] == [1, 2, 3, 4, 5]
    scores = [h["score"] for h in hits]
    assert scores == sorted(scores, reverse=True)
    for key in ("chunk_id", "source", "snippet", "date", "section", "title"):
        assert key in top


def test_rrf_scores_are_reciprocal_ranks(sample_index, cli):
    hits = _search(cli, sample_index, "solar panel tilt angle", "--fusion", "rrf", "-k", "3")
    for hit in hits:
        expected = sum(1 / (60 + e["rank"]) for e in hit["explain"].values())
        assert hit["score"] == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("query", ['"unbalanced', "title:(x", "AND OR NOT", "a\x00b", "[]{}^~*?:\\/",
                                   "x" * 100_000])
def test_bm25_never_fails_on_query_syntax(sample_index, cli, query):
    result = cli("search", query, "--retrievers", "bm25", "--index", sample_index, "--json")
    assert result.code == 0, result.err
    assert isinstance(result.json()["hits"], list)


def test_stdin_queries_give_one_json_line_each(sample_index, cli, monkeypatch):
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO("Lugol\n\nferry timetable\n  \n"))
    result = cli("search", "-", "--index", sample_index, "--retrievers", "bm25", "-k", "2")
    lines = result.jsonl()  # line N answers input line N: a blank line gets an empty result
    assert result.code == 0 and [line["query"] for line in lines] == ["Lugol", "", "ferry timetable", ""]
    assert lines[0]["hits"][0]["page"] == 3
    assert lines[1]["hits"] == [] and lines[3]["hits"] == [] and lines[2]["hits"]


def test_filters_by_date_and_source(sample_index, cli):
    query = "How many days per week can staff work from home?"
    recent = _search(cli, sample_index, query, "--since", "2025-01-01", "-k", "20")
    assert recent and all(h["date"] >= "2025" for h in recent)
    old = _search(cli, sample_index, query, "--until", "2021-12-31", "-k", "20")
    assert old and all(h["date"] < "2022" for h in old)
    only_md = _search(cli, sample_index, query, "--source", "*.md", "-k", "20")
    assert only_md and all(h["doc_id"].endswith(".md") for h in only_md)


def test_recency_lifts_the_newer_policy(sample_index, cli):
    query = "How many days per week can staff work from home?"
    plain = _search(cli, sample_index, query, "--documents", "-k", "30")
    # weight 0.5: the 2025 revision is near the top (rel 0.58 >= 1 - w), so recency can close the gap;
    # at 0.9 any recent file may pass both policies (README, "Versions, --latest and --recency")
    boosted = _search(cli, sample_index, query, "--documents", "-k", "30", "--recency", "365d",
                      "--recency-weight", "0.5")
    order = lambda hits: [h["doc_id"] for h in hits]  # noqa: E731
    new, old = "sample_corpus/remote-work-policy-2025.md", "sample_corpus/remote-work-policy-2021.md"
    assert order(plain).index(old) < order(plain).index(new)
    assert order(boosted).index(new) < order(boosted).index(old)
    assert len(boosted) == len(plain)


def test_documents_collapse_to_one_hit_each(sample_index, cli):
    hits = _search(cli, sample_index, "field station safety", "--documents", "-k", "10")
    doc_ids = [h["doc_id"] for h in hits]
    assert len(doc_ids) == len(set(doc_ids))


def test_bad_flag_values_are_usage_errors(sample_index, cli):
    assert cli("search", "x", "--index", sample_index, "--fusion", "magic").code == 2
    assert cli("search", "x", "--index", sample_index, "--retrievers", "bm25,telepathy").code == 2
    assert cli("search", "x", "--index", sample_index, "--recency", "soon").code == 2
    assert cli("search", "x", "--index", sample_index, "--weights", "bm25").code == 2


def test_config_file_env_and_flags_take_precedence_in_order(sample_index, cli, tmp_path, monkeypatch):
    (tmp_path / "ragchain.toml").write_text('retrievers = "bm25"\nk = 2\n', encoding="utf-8")
    hits = _search(cli, sample_index, "ferry")
    assert len(hits) == 2 and set(hits[0]["explain"]) == {"bm25"}
    monkeypatch.setenv("RAGCHAIN_K", "3")
    assert len(_search(cli, sample_index, "ferry")) == 3
    assert len(_search(cli, sample_index, "ferry", "-k", "1")) == 1
    (tmp_path / "ragchain.toml").write_text('bogus = 1\n', encoding="utf-8")
    assert cli("search", "ferry", "--index", sample_index).code == 2


def _imports_after(args: list[str], index=None) -> set[str]:
    code = (
        "import sys\nfrom ragchain_cli.cli.app import run\n"
        f"code = run({args!r})\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'torch', 'lancedb', 'sentence_transformers', 'ray'})\n"
        "print('HEAVY=' + ','.join(heavy))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGCHAIN_")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    line = [l for l in out.stdout.splitlines() if l.startswith("HEAVY=")][-1]
    return set(filter(None, line[6:].split(",")))


def test_help_and_bm25_search_import_neither_torch_nor_lancedb(sample_index):
    assert _imports_after(["--help"]) == set()
    assert _imports_after(["search", "ferry", "--retrievers", "bm25", "--index", str(sample_index)]) == set()
    assert _imports_after(["status", "--index", str(sample_index)]) - {"lancedb"} == set()
    assert "ray" not in _imports_after(["search", "ferry", "--index", str(sample_index)])
    assert "ray" not in _imports_after(["ask", "ferry", "--no-generate", "--index", str(sample_index)])


def test_console_script_exit_code_and_json_pipe(sample_index):
    script = str(Path(sys.executable).with_name("ragchain"))
    out = subprocess.run([script, "search", "Lugol", "--retrievers", "bm25", "--index", str(sample_index)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0
    assert json.loads(out.stdout)["hits"][0]["page"] == 3


def test_an_empty_query_is_a_usage_error(sample_index, cli):
    result = cli("search", "  ", "--index", sample_index, "--json")
    assert result.code == 2 and "empty" in result.err and result.out == ""


def test_blank_lines_among_library_queries_get_no_hits(sample_index):
    from ragchain_cli.retrieve.pipeline import SearchOptions, SearchPipeline
    from ragchain_cli.stores.index import Index

    pipeline = SearchPipeline(Index(sample_index), SearchOptions(retrievers=["dense"], k=3))
    results = pipeline.search_many(["ferry timetable", " ", "ferry timetable"])
    assert results[1] == [] and results[0] and [h.chunk_id for h in results[0]] == [h.chunk_id for h in results[2]]


def test_ids_the_docstore_lacks_are_skipped_and_the_top_k_still_filled(sample_index):
    from ragchain_cli.retrieve.pipeline import SearchOptions, SearchPipeline
    from ragchain_cli.stores.index import Index
    from ragchain_cli.types import Hit

    index = Index(sample_index)
    real = [h.chunk_id for h in SearchPipeline(index, SearchOptions(retrievers=["bm25"], k=12)).search("the")]
    assert len(real) == 12
    fused = [Hit(f"missing-{i}" if i % 2 else real[i // 2], 100.0 - i) for i in range(24)]
    pipeline = SearchPipeline(index, SearchOptions(retrievers=["bm25"], k=10))
    top = pipeline.finish("the", [Hit(h.chunk_id, h.score) for h in fused])
    assert [h.chunk_id for h in top] == real[:10] and all(h.chunk and h.doc_id for h in top)

    reranking = SearchPipeline(index, SearchOptions(retrievers=["bm25"], k=12, rerank="bm25", rerank_depth=3))
    out = reranking.finish("the", [Hit(h.chunk_id, h.score) for h in fused])
    assert sorted(h.chunk_id for h in out[:3]) == sorted(real[:3])  # the head: first 3 the docstore holds
    assert [h.chunk_id for h in out[3:]] == real[3:12]  # the tail in fused order, stale IDs skipped


@pytest.mark.parametrize("command", ["ingest", "search", "ask", "eval", "status"])
def test_help_names_what_each_option_takes(cli, command):
    result = cli(command, "--help")
    assert result.code == 0, result.err
    options = result.out.split("Options:", 1)[1]
    assert "<str>" not in options and "<list" not in options and "<path>" not in options
    assert "--index DIR" in options and "--config FILE" in options


@pytest.fixture(scope="module")
def small_index(tmp_path_factory) -> Path:
    """Two notes ingested with the default embedding model."""
    from ragchain_cli.cli.app import run

    base = tmp_path_factory.mktemp("small")
    (base / "docs").mkdir()
    (base / "docs" / "a.txt").write_text("Tardigrades survive the vacuum of space.\n", encoding="utf-8")
    (base / "docs" / "b.txt").write_text("The ferry leaves the harbour at noon.\n", encoding="utf-8")
    if run(["ingest", str(base / "docs"), "--index", str(base / "index"), "--json"]) != 0:
        raise RuntimeError("the small ingest failed")
    return base


@pytest.mark.parametrize("command", [("search",), ("ask", "--no-generate")])
def test_an_embedding_model_set_for_the_query_is_refused_as_ingest_refuses_it(small_index, cli, monkeypatch, command):
    monkeypatch.setenv("RAGCHAIN_EMBED_MODEL", "another-model")  # not the model the index was built with
    index = small_index / "index"
    refused = cli("ingest", small_index / "docs", "--index", index)
    result = cli(*command, "tardigrades", "--index", index, "--json")
    assert (result.code, result.err) == (4, refused.err) and "another-model" in result.err


def test_an_embedding_model_in_ragchain_toml_is_refused_by_search(small_index, cli, tmp_path):
    (tmp_path / "ragchain.toml").write_text('embed_model = "another-model"\n', encoding="utf-8")
    result = cli("search", "tardigrades", "--index", small_index / "index", "--retrievers", "bm25", "--json")
    assert result.code == 4 and "embed_model: index has 'all-MiniLM-L6-v2', asked for 'another-model'" in result.err


def test_the_index_own_embedding_model_set_for_the_query_is_searched_with(small_index, cli, monkeypatch):
    monkeypatch.setenv("RAGCHAIN_EMBED_MODEL", "all-MiniLM-L6-v2")
    result = cli("search", "tardigrades", "--index", small_index / "index", "-k", "1", "--json")
    assert result.code == 0 and result.json()["hits"][0]["doc_id"].endswith("docs/a.txt"), result.err
