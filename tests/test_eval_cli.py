"""`ragchain eval` on the sample corpus's own queries and judgements."""

from pathlib import Path

from conftest import SAMPLE


def test_eval_sample_corpus_side_by_side(sample_index, cli, tmp_path):
    result = cli("eval", SAMPLE / "qrels.tsv", "--queries", SAMPLE / "queries.jsonl", "--index", sample_index,
                 "--retrievers", "bm25", "--retrievers", "bm25,dense", "--run-out", tmp_path / "run.trec",
                 "--plot", tmp_path / "cmp.png", "--per-query", "--json")
    assert result.code == 0, result.err
    payload = result.json()
    assert payload["metrics"] == ["ndcg@10", "mrr@10", "recall@100", "map"]
    assert [c["name"] for c in payload["configs"]] == ["bm25", "bm25,dense"]
    base, hybrid = payload["configs"]
    assert base["diff"] == {} and set(hybrid["p_value"]) == set(payload["metrics"])
    assert 0.5 < hybrid["means"]["ndcg@10"] <= 1.0
    assert hybrid["counts"]["queries"] == payload["queries_judged"] == 15
    assert set(hybrid["per_query"]["ndcg@10"]) == {f"q{i}" for i in range(1, 16)}
    assert (tmp_path / "cmp.png").read_bytes()[:4] == b"\x89PNG"
    assert payload["runs_written"] == {"bm25": str(tmp_path / "run.bm25.trec"),
                                       "bm25,dense": str(tmp_path / "run.bm25-dense.trec")}
    assert "run.bm25-dense.trec" in result.err
    lines = (tmp_path / "run.bm25.trec").read_text().splitlines()
    qid, q0, docid, rank, _score, tag = lines[0].split()
    assert (q0, rank, tag) == ("Q0", "1", "ragchain-bm25")


def test_eval_of_a_written_run_matches_the_live_eval(sample_index, cli, tmp_path):
    live = cli("eval", SAMPLE / "qrels.tsv", "--queries", SAMPLE / "queries.jsonl", "--index", sample_index,
               "--retrievers", "bm25", "--run-out", tmp_path / "bm25.trec", "--json").json()
    offline = cli("eval", SAMPLE / "qrels.tsv", "--run", tmp_path / "bm25.trec", "--json").json()
    assert offline["configs"][0]["means"] == live["configs"][0]["means"]


def test_malformed_qrels_and_queries_name_file_and_line(cli, tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\tlots\n", encoding="utf-8")
    result = cli("eval", bad, "--queries", SAMPLE / "queries.jsonl")
    assert result.code == 2 and "bad.tsv:3" in result.err
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"_id": "q1", "text": "ok"}\n{"_id": "q2", "text": \n', encoding="utf-8")
    result = cli("eval", SAMPLE / "qrels.tsv", "--queries", queries)
    assert result.code == 2 and "q.jsonl:2" in result.err


def test_tune_writes_settings_that_search_reads(sample_index, cli, tmp_path):
    result = cli("eval", SAMPLE / "qrels.tsv", "--queries", SAMPLE / "queries.jsonl", "--index", sample_index,
                 "--tune", "--json")
    assert result.code == 0, result.err
    payload = result.json()
    best = payload["trials"][0]
    assert best["score"] == max(t["score"] for t in payload["trials"])
    written = Path("ragchain.toml").read_text(encoding="utf-8")
    assert f'fusion = "{best["params"]["fusion"]}"' in written
    assert cli("search", "ferry", "--index", sample_index, "--json").code == 0
